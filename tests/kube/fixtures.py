"""The ``kube_api`` fixture: a Kubernetes API server the product's tests can talk to.

Every test that uses it runs once per server it can have:

- ``test-server``: the in-process test server (tests/kube/apiserver.py) over HTTPS on a random
  127.0.0.1 port, new for each test; it alone can show faults on demand.
- ``kube-apiserver``, when ``KUBEBUILDER_ASSETS`` names a folder with ``etcd`` and
  ``kube-apiserver`` (envtest's convention): one real control plane for the whole session
  (tests/kube/control_plane.py), each test in its own namespace, everything it made deleted
  afterwards (tests/kube/envtest.py). Denials become RBAC; stopping, restarting, cutting
  watches, expiring a token and compacting become what a real server does then (kube-apiserver
  stopped, restarted, killed, etcd compacted); the faults it cannot show (``expire_watches``,
  ``slow``) skip.
- ``cluster``, when ``PLAYGROUND_TEST_KUBECONFIG`` names a kubeconfig: that cluster, touched
  only in namespaces and cluster-scoped names ``pg-test-*`` that the fixture creates and deletes
  afterwards; the fault methods skip the test.

Under ``CI=true``, or whenever ``KUBEBUILDER_ASSETS`` is set, a control plane that cannot start
stops the run: it is never skipped. A conftest imports both fixtures:
``from tests.kube.fixtures import kube_api, kube_control_plane``.
"""

from __future__ import annotations

import base64
import copy
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes import config
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic import DynamicClient

from tests.kube.apiserver import ApiServer, Request, Rule
from tests.kube.control_plane import ASSETS_ENV, USERS, ControlPlane, ControlPlaneError
from tests.kube.envtest import OwnedCluster
from tests.kube.kubeconfig import kubeconfig
from tests.kube.resources import RESOURCES, resource_for_kind

KUBECONFIG_ENV = "PLAYGROUND_TEST_KUBECONFIG"
PREFIX = "pg-test-"
TEST_BOOKMARK_SECONDS = 0.5
"""Bookmarks every half second, so a test sees them without waiting kube-apiserver's minute."""


class KubeApi:
    """Common interface: the server's address and credentials, and clients built from them."""

    url: str
    ca_pem: str
    token: str
    namespace: str
    """A namespace named pg-test-* made for this test (exists before the test starts)."""

    def token_for(self, user: str) -> str:
        raise NotImplementedError

    def kubeconfig_text(
        self,
        user: str = "admin",
        context: str = "test",
        token: str | None = None,
        ca_pem: str | None = None,
    ) -> str:
        """A kubeconfig YAML for ``user`` (or an explicit token / CA, to test failures)."""
        token = token if token is not None else self.token_for(user)
        return yaml.safe_dump(
            kubeconfig(self.url, ca_pem or self.ca_pem, token, user, context), sort_keys=False
        )

    def revision(self) -> int:
        """The server's current revision (etcd's, on a real server): what a list made now
        would carry as its resourceVersion."""
        raise NotImplementedError

    def client(self, user: str = "admin", **kubeconfig_args) -> ApiClient:
        """An ApiClient configured from kubeconfig_text, as the product loads a kubeconfig."""
        text = self.kubeconfig_text(user, **kubeconfig_args)
        return config.new_client_from_config_dict(yaml.safe_load(text))


class LocalKubeApi(KubeApi):
    """The in-process test server; setup and checks go straight to its store."""

    def __init__(self) -> None:
        self.server = ApiServer()
        self.server.bookmark_interval = TEST_BOOKMARK_SECONDS
        self.token = self.server.add_user("admin")
        self.users = {"admin": self.token}
        self.server.start()
        self.ca_pem = self.server.certificates.ca_pem
        self.namespace = f"{PREFIX}{secrets.token_hex(3)}"
        self.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}})

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def store(self):
        return self.server.store

    def revision(self) -> int:
        return self.store.rv

    def token_for(self, user: str) -> str:
        if user not in self.users:
            self.users[user] = self.server.add_user(user)
        return self.users[user]

    def create(self, manifest: dict) -> dict:
        """Store an object directly (no HTTP), filled in as the server would but keeping any
        ``status`` given (a pod Running on a node, say); namespaced objects without a
        namespace go to ``self.namespace``, as on a real cluster."""
        resource = resource_for_kind(manifest["kind"], manifest.get("apiVersion"))
        namespace = manifest.get("metadata", {}).get("namespace", self.namespace)
        namespace = namespace if resource.namespaced else ""
        return self.store.create(resource, namespace, manifest, keep_status=True)

    def objects(self, kind: str, namespace: str | None = None, api_version: str | None = None):
        """The stored objects of a kind (``Event`` is core/v1 unless api_version says else)."""
        resource = resource_for_kind(kind, api_version)
        items, _, _, _ = self.store.list(resource, namespace or "", lambda obj: True)
        return items

    def get(self, kind: str, name: str, namespace: str = "", api_version: str | None = None):
        resource = resource_for_kind(kind, api_version)
        return self.store.get(resource, namespace if resource.namespaced else "", name)

    # faults
    def drop_watches(self, clean: bool = True) -> int:
        return self.server.drop_watches(clean)

    def compact(self) -> int:
        return self.server.compact()

    def expire_watches(self) -> int:
        return self.server.expire_watches()

    def restart(self) -> None:
        self.server.restart()

    def stop(self) -> None:
        self.server.stop()

    def start(self) -> None:
        self.server.start()

    def slow(self, path_prefix: str, seconds: float) -> None:
        self.server.slow(path_prefix, seconds)

    def deny(self, verb: str, resource: str, group: str = "", **scope) -> None:
        self.server.deny(verb, resource, group, **scope)

    def allow_all(self) -> None:
        self.server.allow_all()

    def expire_token(self, user: str = "admin") -> None:
        self.server.expire_token(self.token_for(user))

    @property
    def requests(self):
        return self.server.requests

    def close(self) -> None:
        self.server.stop()


def _skips(reason: str) -> property:
    """A fault a server cannot show: naming it skips the test, saying why."""

    def skip(self):
        pytest.skip(reason)

    return property(skip)


class RealKubeApi(KubeApi):
    """A real cluster named by PLAYGROUND_TEST_KUBECONFIG; touches only pg-test-* objects."""

    def __init__(self, path: str) -> None:
        self.raw = yaml.safe_load(Path(path).read_text())
        context = _named(self.raw["contexts"], self.raw["current-context"])["context"]
        cluster = _named(self.raw["clusters"], context["cluster"])["cluster"]
        user = _named(self.raw["users"], context["user"])["user"]
        self.url = cluster["server"]
        self.ca_pem = _ca_pem(cluster, Path(path).parent)
        self.token = user.get("token", "")
        self.admin = config.new_client_from_config_dict(self.raw)
        self._discovered: DynamicClient | None = None
        self.created: list[dict] = []
        self.namespace = f"{PREFIX}{secrets.token_hex(3)}"
        self.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}})

    def token_for(self, user: str) -> str:
        if user != "admin":
            pytest.skip("only the kubeconfig's own user exists on a real cluster")
        if not self.token:
            pytest.skip("the kubeconfig's user has no bearer token")
        return self.token

    def client(self, user: str = "admin", **kubeconfig_args) -> ApiClient:
        if user == "admin" and not kubeconfig_args and not self.token:
            return config.new_client_from_config_dict(self.raw)
        return super().client(user, **kubeconfig_args)

    def create(self, manifest: dict) -> dict:
        resource = resource_for_kind(manifest["kind"], manifest.get("apiVersion"))
        manifest = copy.deepcopy(manifest)
        meta = manifest.setdefault("metadata", {})
        if resource.namespaced:
            meta.setdefault("namespace", self.namespace)
        self._check_name(manifest, resource.namespaced)
        manifest.setdefault("apiVersion", resource.api_version)
        api = self._dynamic(resource)
        obj = api.create(body=manifest, namespace=meta.get("namespace")).to_dict()
        if not resource.namespaced:
            self.created.append(obj)
        if manifest.get("status") and resource.has_status:
            obj = api.status.patch(
                body={"status": manifest["status"]},
                name=obj["metadata"]["name"],
                namespace=meta.get("namespace"),
                content_type="application/merge-patch+json",
            ).to_dict()
        return obj

    def _check_name(self, manifest: dict, namespaced: bool) -> None:
        meta = manifest["metadata"]
        if namespaced and not meta["namespace"].startswith(PREFIX):
            raise ValueError(f"tests may only write in {PREFIX}* namespaces: {manifest}")
        if not namespaced and not meta.get("name", "").startswith(PREFIX):
            raise ValueError(f"cluster-scoped test objects must be named {PREFIX}*: {manifest}")

    def objects(self, kind: str, namespace: str | None = None, api_version: str | None = None):
        resource = resource_for_kind(kind, api_version)
        items = self._dynamic(resource).get(namespace=namespace).to_dict()["items"]
        return [item for item in items if _ours(item, resource.namespaced)]

    def revision(self) -> int:
        namespaces = self._dynamic(resource_for_kind("Namespace")).get(limit=1)
        return int(namespaces.metadata.resourceVersion)

    def get(self, kind: str, name: str, namespace: str = "", api_version: str | None = None):
        resource = resource_for_kind(kind, api_version)
        return self._dynamic(resource).get(name=name, namespace=namespace or None).to_dict()

    def _dynamic(self, resource):
        if self._discovered is None:
            self._discovered = DynamicClient(self.admin)
        return self._discovered.resources.get(api_version=resource.api_version, kind=resource.kind)

    # Properties, so that naming one skips the test where it is named: a test that hands
    # ``kube_api.restart`` to a thread skips before the thread starts.
    drop_watches = compact = restart = stop = start = slow = deny = _skips(
        "fault injection needs the test API server or the session's kube-apiserver, not a "
        "real cluster"
    )
    allow_all = expire_token = expire_watches = drop_watches

    @property
    def requests(self):
        pytest.skip("the request log exists only on the test API server")

    def close(self) -> None:
        """Delete what the test created: what is in its namespaces (at once: no kubelet may
        be there to finish a pod, no namespace controller to empty a namespace), its nodes
        and other cluster-scoped objects, then its namespaces."""
        for obj in reversed(self.created):
            if obj["kind"] == "Namespace":
                self._empty(obj["metadata"]["name"])
        for obj in reversed(self.created):
            resource = resource_for_kind(obj["kind"], obj["apiVersion"])
            self._dynamic(resource).delete(name=obj["metadata"]["name"])

    def _empty(self, namespace: str) -> None:
        stores = set()
        for resource in RESOURCES:
            listable = resource.namespaced and resource.kind != "Binding"
            if listable and resource.storage_key not in stores:
                stores.add(resource.storage_key)
                self._dynamic(resource).delete(  # a selector makes it a deletecollection
                    namespace=namespace,
                    field_selector=f"metadata.namespace={namespace}",
                    body={"gracePeriodSeconds": 0},
                )


def _named(entries: list[dict], name: str) -> dict:
    return next(entry for entry in entries if entry["name"] == name)


def _ca_pem(cluster: dict, base: Path) -> str:
    if cluster.get("certificate-authority-data"):
        return base64.b64decode(cluster["certificate-authority-data"]).decode()
    if cluster.get("certificate-authority"):
        return (base / cluster["certificate-authority"]).read_text()
    return ""


def _ours(obj: dict, namespaced: bool) -> bool:
    meta = obj.get("metadata", {})
    return (meta.get("namespace") if namespaced else meta.get("name", "")).startswith(PREFIX)


class ControlPlaneKubeApi(RealKubeApi):
    """The session's own kube-apiserver: any name may be written (the cluster is the tests'),
    the test users exist and can be denied things, and every object the test made is deleted
    afterwards, namespaces included."""

    def __init__(self, cluster: OwnedCluster) -> None:
        self.cluster = cluster
        plane = cluster.plane
        self.url, self.ca_pem = plane.url, plane.certificates.ca_pem
        self.tokens = dict(plane.tokens)
        """The users' tokens as the test began: an expired one stays the test's, as on the test
        server; the next test gets the new one."""
        self.token = self.tokens["admin"]
        self.raw = kubeconfig(self.url, self.ca_pem, self.token, "admin", "test")
        self.admin = cluster.client
        self._discovered = cluster.dynamic
        self.created = []
        self.audit_offset = cluster.audit_offset()
        self.namespace = f"{PREFIX}{secrets.token_hex(3)}"
        self.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}})

    def token_for(self, user: str) -> str:
        if user not in USERS:
            raise ValueError(f"kube-apiserver's token file has the users {USERS}, not {user!r}")
        return self.tokens[user]

    def _check_name(self, manifest: dict, namespaced: bool) -> None:
        """Every name is allowed: the session's cluster belongs to the tests."""

    def objects(self, kind: str, namespace: str | None = None, api_version: str | None = None):
        resource = resource_for_kind(kind, api_version)
        return self._dynamic(resource).get(namespace=namespace).to_dict()["items"]

    def deny(self, verb: str, resource: str, group: str = "", **scope) -> None:
        self.cluster.deny(Rule(verb, resource, group, **scope))

    def allow_all(self) -> None:
        self.cluster.allow_all()

    # faults: each stop, restart or kill costs a few seconds; etcd keeps every object
    def stop(self) -> None:
        """kube-apiserver stops (SIGTERM): connections are refused until ``start``."""
        self.cluster.plane.stop_apiserver()

    def start(self) -> None:
        self.cluster.plane.start_apiserver()

    def restart(self) -> None:
        """Stop and start: objects and versions stay, watches end cleanly, and the new watch
        cache starts at the current revision (a watch from an older version gets 410)."""
        self.cluster.plane.restart_apiserver()

    def drop_watches(self, clean: bool = True) -> int:
        """End the test's open watches by restarting kube-apiserver: a SIGTERM ends them
        cleanly, a SIGKILL (``clean=False``) cuts them. Returns how many there were. The
        restart loses the watch history too, as any restart does."""
        count = self.cluster.open_watches_since(self.audit_offset)
        self.cluster.plane.restart_apiserver(kill=not clean)
        return count

    def compact(self) -> int:
        """Compact etcd up to now and restart kube-apiserver, whose running watch cache would
        go on serving its window of events: afterwards older versions get 410."""
        revision = self.cluster.plane.compact_etcd()
        self.cluster.plane.restart_apiserver()
        return revision

    def expire_token(self, user: str = "admin") -> None:
        """The user gets a new token in the token file, which kube-apiserver reads as it
        starts: after the restart the old one, still this test's, is a 401."""
        self.token_for(user)
        self.cluster.plane.renew_token(user)
        self.cluster.plane.restart_apiserver()

    expire_watches = _skips(
        "kube-apiserver ends no open watch with 410 on demand: its watch cache serves open "
        "watches through an etcd compaction, and a restart ends them cleanly"
    )
    slow = _skips("kube-apiserver cannot be made to delay the answers of one path")

    @property
    def requests(self) -> list[Request]:
        """The test users' requests since the test began, from the audit log."""
        return self.cluster.requests_since(self.audit_offset)

    def close(self) -> None:
        """kube-apiserver runs again if the test stopped it, everything the test made goes,
        and every user may do everything again."""
        if not self.cluster.plane.apiserver_running:
            self.cluster.plane.start_apiserver()
        if self.cluster.denied:
            self.cluster.allow_all()
        self.cluster.sweep()


def _servers() -> list[str]:
    """The servers each ``kube_api`` test runs against, from the environment."""
    servers = ["test-server"]
    if os.getenv(ASSETS_ENV):
        servers.append("kube-apiserver")
    if os.getenv(KUBECONFIG_ENV):
        servers.append("cluster")
    return servers


@pytest.fixture(scope="session")
def kube_control_plane() -> Iterator[OwnedCluster]:
    """etcd and kube-apiserver from ``KUBEBUILDER_ASSETS``, for the whole session."""
    assets = os.environ[ASSETS_ENV]
    plane = ControlPlane(Path(assets))
    try:
        plane.start()
        cluster = OwnedCluster(plane)
    except (ControlPlaneError, OSError, ApiException, TimeoutError) as err:
        plane.stop()
        pytest.exit(
            f"{ASSETS_ENV} is set but kube-apiserver could not start: {err}",
            returncode=3,
        )
    try:
        yield cluster
    finally:
        cluster.client.close()
        plane.stop()


@pytest.fixture(params=_servers())
def kube_api(request: pytest.FixtureRequest) -> Iterator[KubeApi]:
    """A Kubernetes API server for this test (see the module docstring)."""
    if request.param == "kube-apiserver":
        api: KubeApi = ControlPlaneKubeApi(request.getfixturevalue("kube_control_plane"))
    elif request.param == "cluster":
        api = RealKubeApi(os.environ[KUBECONFIG_ENV])
    else:
        api = LocalKubeApi()
    try:
        yield api
    finally:
        api.close()
