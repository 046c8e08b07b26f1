"""The RBAC manifest docs/live-clusters.md hands out grants every permission Test connection
asks for (read here, and on a real kube-apiserver by its RBAC authorizer), and the mirror asks
for every kind it follows."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml
from kubernetes.client import CoreV1Api, RbacAuthorizationV1Api

from playground.clusters.access import MIRROR, PERMISSIONS, WORKLOAD_API, Permission
from playground.clusters.connecting import probe, target_from_text
from playground.clusters.mirror import FOLLOWED
from tests.kube.fixtures import LocalKubeApi

DOCS = Path(__file__).resolve().parents[3] / "docs" / "live-clusters.md"


def documented_roles() -> dict[str, list[dict]]:
    """ClusterRole name -> rules, from the manifest under "Permissions: a ready RBAC manifest"."""
    section = DOCS.read_text().split("### Permissions: a ready RBAC manifest", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return {
        doc["metadata"]["name"]: doc["rules"]
        for doc in yaml.safe_load_all(block)
        if doc["kind"] == "ClusterRole"
    }


def grants(rules: list[dict], permission: Permission) -> bool:
    """Whether a rule allows it, as RBAC matches a request (resource/subresource spelled
    together; ``*`` matching anything)."""
    resource = permission.resource + (
        f"/{permission.subresource}" if permission.subresource else ""
    )
    return any(
        _matches(rule.get("apiGroups", []), permission.group)
        and _matches(rule.get("resources", []), resource)
        and _matches(rule.get("verbs", []), permission.verb)
        for rule in rules
    )


def _matches(allowed: list[str], value: str) -> bool:
    return "*" in allowed or value in allowed


def test_the_documented_roles_grant_every_permission_asked():
    roles = documented_roles()
    mirror_rules = roles["playground-mirror"]
    scheduler_rules = roles["playground-scheduler"]
    missing = [
        permission.label
        for permission in PERMISSIONS
        if not grants(
            mirror_rules if permission.needed_for in (MIRROR, WORKLOAD_API) else scheduler_rules,
            permission,
        )
    ]
    assert missing == []
    # Read-only: the mirror's role writes nothing.
    assert {verb for rule in mirror_rules for verb in rule["verbs"]} == {"get", "list", "watch"}


def test_the_mirror_permissions_cover_every_followed_kind():
    for followed in FOLLOWED:
        use = WORKLOAD_API if followed.optional else MIRROR
        asked = {(p.verb, p.group, p.resource) for p in PERMISSIONS if p.needed_for == use}
        for verb in ("list", "watch"):
            assert (verb, followed.group, followed.plural) in asked, followed.kind


def test_a_service_account_with_the_documented_roles_is_allowed_everything(kube_api):
    """On a real kube-apiserver (its RBAC authorizer): a service account bound to the two
    roles, as the manifest binds them, gets *allowed* for every permission Test connection
    asks (the test API server allows everything, so only a real one can tell)."""
    if isinstance(kube_api, LocalKubeApi):
        pytest.skip("the test API server has no RBAC authorizer: a real one is needed")
    admin = kube_api.client()
    rbac, core = RbacAuthorizationV1Api(admin), CoreV1Api(admin)
    namespace, suffix = kube_api.namespace, kube_api.namespace.removeprefix("pg-test-")
    core.create_namespaced_service_account(namespace, {"metadata": {"name": "playground"}})
    made = []
    try:
        for role, rules in documented_roles().items():
            name = f"pg-test-{suffix}-{role}"
            rbac.create_cluster_role({"metadata": {"name": name}, "rules": rules})
            made.append(name)
            subject = {"kind": "ServiceAccount", "name": "playground", "namespace": namespace}
            role_ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole"}
            rbac.create_cluster_role_binding(
                {
                    "metadata": {"name": name},
                    "roleRef": {**role_ref, "name": name},
                    "subjects": [subject],
                }
            )
        token = core.create_namespaced_service_account_token(
            "playground", namespace, {"spec": {"expirationSeconds": 600}}
        ).status.token
        text = kube_api.kubeconfig_text(token=token)
        report = wait_for_rbac(lambda: probe(target_from_text(text)))
        assert report.problem == ""
        assert [a.label for a in report.answers if not a.allowed] == []
    finally:
        for name in made:
            rbac.delete_cluster_role_binding(name)
            rbac.delete_cluster_role(name)
        admin.close()


def wait_for_rbac(ask, seconds: float = 10.0):
    """The report once every answer is allowed, or the last one: RBAC's cache takes a moment
    to see new roles."""
    deadline = time.monotonic() + seconds
    while True:
        report = ask()
        if (report.answers and all(a.allowed for a in report.answers)) or (
            time.monotonic() > deadline
        ):
            return report
        time.sleep(0.2)
