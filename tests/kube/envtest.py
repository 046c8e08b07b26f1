"""The session's own kube-apiserver (tests/kube/control_plane.py) as the tests need it.

Three things a bare control plane does not do for the tests, done here through its API:

- **Clean up after each test.** Without kube-controller-manager a deleted namespace stays
  ``Terminating`` for ever and its objects stay, and every test shares the one server, so after
  each test every object that was not there when the session started is deleted (pods with no
  grace period, finalizers removed), and namespaces are finalized as the namespace controller
  would. The next test sees the cluster as it was.
- **Users that can be denied things.** The test users (``admin`` and ``user-N``) come from the
  token file and are bound to ``cluster-admin``. RBAC only grants, so a denial becomes a
  ClusterRole granting every verb on every resource discovery lists, less the denied ones,
  bound to that user instead, until the test ends.
- **Discovery**, read once: which resources exist, their verbs, scope, and subresources.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from kubernetes import config
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic import DynamicClient

from tests.kube.apiserver import Request, Rule
from tests.kube.control_plane import USERS, ControlPlane
from tests.kube.kubeconfig import kubeconfig
from tests.kube.resources import Attributes

RBAC = "rbac.authorization.k8s.io"
AUTHORIZED_ONLY = (
    ("resource.k8s.io", "resourceclaims/binding"),
    ("scheduling.k8s.io", "workloads"),
    ("scheduling.k8s.io", "podgroups"),
)
"""Resources kube-apiserver asks the authorizer about that discovery does not list: a
subresource (changing a claim's allocation or reservedFor), and the alpha workload API the
session's server does not serve (cluster-admin's ``*`` names it all the same): a denial's role
keeps them."""
NOT_SWEPT_GROUPS = {
    RBAC,  # the fixture's own bindings; a test's are named pg-test-* and swept by name
    "flowcontrol.apiserver.k8s.io",
    "apiregistration.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
}
NOT_SWEPT = {"endpoints", "endpointslices"}
"""kube-apiserver keeps the ``kubernetes`` Service's endpoints itself."""
POLICY_SECONDS = 10


@dataclass(frozen=True)
class ApiResource:
    """One entry of discovery: ``name`` is ``pods`` or ``pods/binding``."""

    group: str
    version: str
    name: str
    namespaced: bool
    verbs: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    def attributes(self, verb: str) -> Attributes:
        resource, _, sub = self.name.partition("/")
        return Attributes(verb, self.group, resource, sub)


class OwnedCluster:
    """The session's control plane, through its ``system:masters`` fixture user."""

    def __init__(self, plane: ControlPlane) -> None:
        self.plane = plane
        self.client = config.new_client_from_config_dict(
            kubeconfig(plane.url, plane.certificates.ca_pem, plane.fixture_token, "fixture", "x")
        )
        self.resources = self._discover()
        self.dynamic = DynamicClient(self.client)
        """One discovery for the whole session, shared by every test's ``kube_api``."""
        self.denied: dict[str, list[Rule]] = {}
        for user in USERS:
            self._bind(user, "cluster-admin")
        self._wait_for_policy([(user, Attributes("create", "", "pods"), True) for user in USERS])
        self.baseline = set(self.keys())

    # --- REST ----------------------------------------------------------------------------------

    def rest(self, method: str, path: str, body: object = None, query: Iterable = ()) -> object:
        """One request as the fixture user; the decoded answer (ApiException on failure)."""
        content_type = "application/merge-patch+json" if method == "PATCH" else "application/json"
        response = self.client.call_api(
            path,
            method,
            query_params=list(query),
            header_params={"Content-Type": content_type, "Accept": "application/json"},
            body=body,
            auth_settings=["BearerToken"],
            _preload_content=False,
            _return_http_data_only=True,
        )
        return json.loads(response.data or b"null")

    def _discover(self) -> list[ApiResource]:
        found = []
        versions = [("", "v1")]
        for group in self.rest("GET", "/apis")["groups"]:
            versions.append((group["name"], group["preferredVersion"]["version"]))
        for group, version in versions:
            path = f"/apis/{group}/{version}" if group else f"/api/{version}"
            for entry in self.rest("GET", path)["resources"]:
                found.append(
                    ApiResource(
                        group, version, entry["name"], entry["namespaced"], tuple(entry["verbs"])
                    )
                )
        return found

    # --- the request log ------------------------------------------------------------------------

    def audit_offset(self) -> int:
        """Where the audit log ends now: a test's requests are those written after it."""
        log = self.plane.audit_log
        return log.stat().st_size if log.exists() else 0

    def requests_since(self, offset: int) -> list[Request]:
        """The test users' requests from kube-apiserver's audit log, in the order received
        (a watch as soon as its response started). The log keeps no content type."""
        found: dict[str, Request] = {}
        with self.plane.audit_log.open("rb") as log:
            log.seek(offset)
            for line in log:
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    found.setdefault(event["auditID"], _request(event))
        return list(found.values())

    def open_watches_since(self, offset: int) -> int:
        """How many of the test users' watches that started after ``offset`` are still open:
        the audit log has their ``ResponseStarted`` event and not yet their
        ``ResponseComplete``."""
        open_ids: set[str] = set()
        with self.plane.audit_log.open("rb") as log:
            log.seek(offset)
            for line in log:
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    if event["verb"] != "watch":
                        continue
                    if event["stage"] == "ResponseStarted":
                        open_ids.add(event["auditID"])
                    elif event["stage"] == "ResponseComplete":
                        open_ids.discard(event["auditID"])
        return len(open_ids)

    # --- cleanup -------------------------------------------------------------------------------

    def _sweepable(self) -> list[ApiResource]:
        return [
            r
            for r in self.resources
            if "/" not in r.name
            and {"list", "delete"} <= set(r.verbs)
            and r.group not in NOT_SWEPT_GROUPS
            and r.name not in NOT_SWEPT
        ]

    def keys(self, resources: list[ApiResource] | None = None) -> Iterable[tuple[str, str, str]]:
        """(collection path, namespace, name) of every object the sweep looks after."""
        for resource in resources or self._sweepable():
            for item in self.rest("GET", f"{resource.path}/{resource.name}")["items"]:
                meta = item["metadata"]
                yield resource.path + "/" + resource.name, meta.get("namespace", ""), meta["name"]

    def sweep(self) -> None:
        """Delete every object the session did not start with: namespaced ones first, then
        cluster-scoped ones, namespaces last (finalized, as no namespace controller runs)."""
        sweepable = self._sweepable()
        order = sorted(sweepable, key=lambda r: (not r.namespaced, r.name == "namespaces"))
        for resource in order:
            for collection, namespace, name in self.keys([resource]):
                if (collection, namespace, name) not in self.baseline:
                    self._delete(resource, namespace, name)

    def _delete(self, resource: ApiResource, namespace: str, name: str) -> None:
        where = f"/namespaces/{namespace}" if namespace else ""
        path = f"{resource.path}{where}/{resource.name}/{name}"
        try:
            gone = self.rest("DELETE", path, {"gracePeriodSeconds": 0})
            if (gone.get("metadata") or {}).get("finalizers"):
                self.rest("PATCH", path, {"metadata": {"finalizers": None}})
            if resource.name == "namespaces":
                self.rest("PUT", f"{path}/finalize", {**gone, "spec": {"finalizers": []}})
                self.rest("DELETE", path)
        except ApiException as err:
            if err.status != 404:
                raise

    # --- users and RBAC ------------------------------------------------------------------------

    def deny(self, rule: Rule) -> None:
        """Take a verb on a resource away from one test user (or all of them)."""
        if rule.namespace is not None:
            raise NotImplementedError("a denial in one namespace (RBAC cannot subtract)")
        users = [rule.user] if rule.user else list(USERS)
        for user in users:
            self.denied.setdefault(user, []).append(rule)
            self._put_cluster_role(f"pg-test-deny-{user}", self._rules_without(self.denied[user]))
            self._bind(user, f"pg-test-deny-{user}")
        checks = [
            (user, resource.attributes(verb), False)
            for user in users
            for resource, verb in self._examples(rule)
        ]
        self._wait_for_policy(checks)

    def allow_all(self) -> None:
        """Every test user back to cluster-admin."""
        users, self.denied = list(self.denied), {}
        for user in users:
            self._bind(user, "cluster-admin")
            self._delete_quietly(f"/apis/{RBAC}/v1/clusterroles/pg-test-deny-{user}")
        self._wait_for_policy([(user, Attributes("*", "*", "*"), True) for user in users])

    def _rules_without(self, rules: list[Rule]) -> list[dict]:
        granted: list[dict] = [{"nonResourceURLs": ["*"], "verbs": ["*"]}]
        untouched: dict[str, list[str]] = {}
        for resource in self.resources:
            denied = {
                verb
                for verb in resource.verbs
                if any(rule.matches(rule.user or "", resource.attributes(verb)) for rule in rules)
            }
            if not denied:
                untouched.setdefault(resource.group, []).append(resource.name)
            elif left := sorted(set(resource.verbs) - denied):
                granted.append(
                    {"apiGroups": [resource.group], "resources": [resource.name], "verbs": left}
                )
        for group, names in untouched.items():
            granted.append({"apiGroups": [group], "resources": names, "verbs": ["*"]})
        granted += [
            {"apiGroups": [group], "resources": [name], "verbs": ["*"]}
            for group, name in AUTHORIZED_ONLY
        ]
        return granted

    def _examples(self, rule: Rule) -> list[tuple[ApiResource, str]]:
        return [
            (resource, verb)
            for resource in self.resources
            for verb in resource.verbs
            if rule.matches(rule.user or "", resource.attributes(verb))
        ]

    def _put_cluster_role(self, name: str, rules: list[dict]) -> None:
        self._delete_quietly(f"/apis/{RBAC}/v1/clusterroles/{name}")
        self.rest(
            "POST",
            f"/apis/{RBAC}/v1/clusterroles",
            {"metadata": {"name": name}, "rules": rules},
        )

    def _bind(self, user: str, role: str) -> None:
        """Bind ``user`` to one ClusterRole (a binding's role cannot change: made anew)."""
        name = f"pg-test-user-{user}"
        self._delete_quietly(f"/apis/{RBAC}/v1/clusterrolebindings/{name}")
        self.rest(
            "POST",
            f"/apis/{RBAC}/v1/clusterrolebindings",
            {
                "metadata": {"name": name},
                "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role},
                "subjects": [{"apiGroup": RBAC, "kind": "User", "name": user}],
            },
        )

    def _delete_quietly(self, path: str) -> None:
        try:
            self.rest("DELETE", path)
        except ApiException as err:
            if err.status != 404:
                raise

    def _wait_for_policy(self, checks: list[tuple[str, Attributes, bool]]) -> None:
        """RBAC reads its objects from a cache: wait until each check answers as wanted."""
        deadline = time.monotonic() + POLICY_SECONDS
        for user, attrs, wanted in checks:
            while self._allowed(user, attrs) != wanted:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"RBAC did not settle: {user} {attrs} should be {wanted}")
                time.sleep(0.05)

    def _allowed(self, user: str, attrs: Attributes) -> bool:
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": {
                "user": user,
                "resourceAttributes": {
                    "verb": attrs.verb,
                    "group": attrs.group,
                    "resource": attrs.resource,
                    "subresource": attrs.subresource,
                },
            },
        }
        answer = self.rest("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)
        return bool(answer["status"].get("allowed"))


_METHODS = {"create": "POST", "update": "PUT", "patch": "PATCH", "delete": "DELETE"}


def _request(event: dict) -> Request:
    url = urlsplit(event["requestURI"])
    verb = event["verb"]
    return Request(
        method=_METHODS.get(verb, "DELETE" if verb == "deletecollection" else "GET"),
        path=url.path,
        query=url.query,
        user=event["user"]["username"],
        code=(event.get("responseStatus") or {}).get("code", 0),
        body=event.get("requestObject"),
    )
