"""Admission of a file's objects as kube-apiserver would create them: Priority and
NamespaceLifecycle (cases after upstream's lifecycle ``admission_test.go``)."""

from __future__ import annotations

import pytest

from framework.admission.admit import create_objects
from framework.admission.namespace_lifecycle import namespace_error, phases_of
from framework.api.loader import decode_new_object, parse_object
from tests.framework.builders import priority_class_manifest as priority_class


def namespace(name: str, phase: str = "") -> dict:
    manifest = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    if phase:
        manifest["status"] = {"phase": phase}
    return manifest


def pod(name: str = "web", namespace: str = "default", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


def node(name: str = "n1") -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def admitted(*manifests: dict) -> tuple[list, list[str]]:
    objects, errors = create_objects([decode_new_object(m) for m in manifests])
    return objects, [str(e) for e in errors]


# -- NamespaceLifecycle ---------------------------------------------------------------------


def test_a_namespace_that_does_not_exist_refuses_new_objects():
    _, errors = admitted(pod(namespace="team-a"), node())
    assert errors == ['Pod "team-a/web": metadata.namespace: namespaces "team-a" not found']


def test_an_active_namespace_takes_them_wherever_the_file_lists_it():
    objects, errors = admitted(pod(namespace="team-a"), namespace("team-a", "Active"))
    assert errors == [] and [o.kind for o in objects] == ["Pod", "Namespace"]


def test_a_terminating_namespace_refuses_new_content():
    _, errors = admitted(namespace("gone", "Terminating"), pod(namespace="gone"))
    assert errors == [
        'Pod "gone/web": metadata.namespace: unable to create new content in namespace gone '
        "because it is being terminated"
    ]


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "kube-node-lease"])
def test_the_system_namespaces_exist_in_every_cluster(name):
    assert admitted(pod(namespace=name))[1] == []


def test_cluster_scoped_objects_and_namespaces_themselves_are_always_allowed():
    nowhere = phases_of([])
    for manifest in (node(), namespace("new"), priority_class("high", 10)):
        assert namespace_error(parse_object(manifest), nowhere) is None


# -- Priority -------------------------------------------------------------------------------


def test_a_pods_class_gives_it_its_priority_and_policy():
    objects, errors = admitted(
        priority_class("polite", 500, preemptionPolicy="Never"),
        pod(priorityClassName="polite"),
    )
    spec = objects[1].spec
    assert errors == [] and (spec.priority, spec.preemption_policy) == (500, "Never")


def test_a_pod_without_a_class_gets_the_global_default():
    objects, errors = admitted(priority_class("low", 10, globalDefault=True), pod())
    assert errors == []
    assert (objects[1].spec.priority, objects[1].spec.priority_class_name) == (10, "low")


def test_a_second_global_default_is_refused_in_file_order():
    objects, errors = admitted(
        priority_class("low", 10, globalDefault=True),
        priority_class("lower", 5, globalDefault=True),
        pod(),
    )
    assert errors == [
        'PriorityClass "lower": globalDefault: PriorityClass low is already marked as default. '
        "Only one default can exist"
    ]
    assert objects[-1].spec.priority == 10


def test_the_system_classes_need_no_object():
    objects, errors = admitted(pod(priorityClassName="system-node-critical"))
    assert errors == [] and objects[0].spec.priority == 2_000_001_000


def test_an_unknown_class_is_refused_and_every_refusal_is_listed():
    _, errors = admitted(pod("a", priorityClassName="nope"), pod("b", namespace="nowhere"))
    assert errors == [
        'Pod "default/a": spec.priorityClassName: no PriorityClass with name nope was found',
        'Pod "nowhere/b": metadata.namespace: namespaces "nowhere" not found',
    ]


def test_a_pod_with_a_priority_already_is_taken_as_admitted():
    objects, errors = admitted(pod(priority=7, priorityClassName="not-here"))
    assert errors == [] and objects[0].spec.priority == 7


# -- DRA admin access (the ResourceClaim / template strategies' AuthorizedForAdmin) ---------

ADMIN_ERROR = (
    "spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the "
    "`resource.kubernetes.io/admin-access: true` label on the containing namespace"
)


def admin_claim(kind: str = "ResourceClaim", namespace: str = "monitoring") -> dict:
    spec = {
        "devices": {
            "requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu", "adminAccess": True}}
            ]
        }
    }
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": "watch", "namespace": namespace},
        "spec": spec if kind == "ResourceClaim" else {"spec": spec},
    }


def labelled(name: str, **labels: str) -> dict:
    return {**namespace(name), "metadata": {"name": name, "labels": labels}}


@pytest.mark.parametrize("kind", ["ResourceClaim", "ResourceClaimTemplate"])
@pytest.mark.parametrize(
    ("labels", "error"),
    [({"resource.kubernetes.io/admin-access": "true"}, None), ({}, ADMIN_ERROR)],
    ids=["admin-access-admin-namespace", "admin-access-non-admin-namespace"],
)
def test_admin_access_needs_the_admin_label_on_the_namespace(kind, labels, error):
    objects, errors = admitted(labelled("monitoring", **labels), admin_claim(kind))
    if error is None:
        assert errors == [] and [o.kind for o in objects] == ["Namespace", kind]
    else:
        assert errors == [f'{kind} "monitoring/watch" is invalid: {error}']


def test_admin_access_comes_before_the_kinds_own_validation():
    claim = admin_claim(namespace="default")
    claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = ""
    _, [error] = admitted(claim)
    assert error.startswith('ResourceClaim "default/watch" is invalid: [' + ADMIN_ERROR + ", ")
