"""The ``kube_api`` fixture: a Kubernetes API server the product's tests can talk to.

By default it starts the in-process test server (tests/kube/apiserver.py) over HTTPS on a
random 127.0.0.1 port. When PLAYGROUND_TEST_KUBECONFIG names a kubeconfig, the same interface
stands for that real cluster instead: objects are created and listed through the official
client, only in namespaces and nodes named ``pg-test-*`` that the fixture creates and deletes
afterwards, and the fault methods skip the test (a real cluster cannot be made to fail on cue).

Import the fixture into a conftest.py: ``from tests.kube.fixtures import kube_api``.
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
from kubernetes.dynamic import DynamicClient

from tests.kube.apiserver import ApiServer
from tests.kube.resources import resource_for_kind

KUBECONFIG_ENV = "PLAYGROUND_TEST_KUBECONFIG"
PREFIX = "pg-test-"
TEST_BOOKMARK_SECONDS = 0.5
"""Bookmarks every half second, so a test sees them without waiting kube-apiserver's minute."""


def kubeconfig(server: str, ca_pem: str, token: str, user: str, context: str) -> dict:
    """A one-context kubeconfig with the CA inline and a bearer token."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": context,
                "cluster": {
                    "server": server,
                    "certificate-authority-data": base64.b64encode(ca_pem.encode()).decode(),
                },
            }
        ],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": user}}],
        "current-context": context,
    }


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

    def restart(self, compact: bool = False) -> None:
        self.server.restart(compact)

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
            if not meta["namespace"].startswith(PREFIX):
                raise ValueError(f"tests may only write in {PREFIX}* namespaces: {manifest}")
        elif not meta.get("name", "").startswith(PREFIX):
            raise ValueError(f"cluster-scoped test objects must be named {PREFIX}*: {manifest}")
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

    def objects(self, kind: str, namespace: str | None = None, api_version: str | None = None):
        resource = resource_for_kind(kind, api_version)
        items = self._dynamic(resource).get(namespace=namespace).to_dict()["items"]
        return [item for item in items if _ours(item, resource.namespaced)]

    def get(self, kind: str, name: str, namespace: str = "", api_version: str | None = None):
        resource = resource_for_kind(kind, api_version)
        return self._dynamic(resource).get(name=name, namespace=namespace or None).to_dict()

    def _dynamic(self, resource):
        return DynamicClient(self.admin).resources.get(
            api_version=resource.api_version, kind=resource.kind
        )

    def _fault(self, *args, **kwargs):
        pytest.skip("fault injection needs the test API server, not a real cluster")

    drop_watches = compact = restart = stop = start = slow = deny = _fault
    allow_all = expire_token = expire_watches = _fault

    @property
    def requests(self):
        pytest.skip("the request log exists only on the test API server")

    def close(self) -> None:
        """Delete what the test created: its nodes and other cluster-scoped objects, and its
        namespaces, which takes their contents with them."""
        for obj in reversed(self.created):
            resource = resource_for_kind(obj["kind"], obj["apiVersion"])
            self._dynamic(resource).delete(name=obj["metadata"]["name"])


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


def kube_api_object() -> KubeApi:
    path = os.getenv(KUBECONFIG_ENV)
    return RealKubeApi(path) if path else LocalKubeApi()


@pytest.fixture
def kube_api() -> Iterator[KubeApi]:
    """A Kubernetes API server for this test (see the module docstring)."""
    api = kube_api_object()
    try:
        yield api
    finally:
        api.close()
