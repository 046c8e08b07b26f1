"""What the playground's store does as an API server would: Priority admission, name checks."""

from __future__ import annotations

import pytest

from framework.api.errors import ObjectError
from playground.workspaces.cluster import DatabaseCluster
from tests.framework.builders import priority_class_manifest as priority_class


def pod(name: str = "web", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


@pytest.mark.parametrize(
    ("classes", "spec", "expected"),
    [
        ([], {}, (0, "", "PreemptLowerPriority")),
        ([priority_class("high", 1000)], {"priorityClassName": "high"}, (1000, "high", None)),
        (
            [priority_class("polite", 500, preemptionPolicy="Never")],
            {"priorityClassName": "polite"},
            (500, "polite", "Never"),
        ),
        (
            [priority_class("low", 10, globalDefault=True), priority_class("lower", 5)],
            {},
            (10, "low", "PreemptLowerPriority"),
        ),
        (
            [
                priority_class("b", 20, globalDefault=True),
                priority_class("a", 10, globalDefault=True),
            ],
            {},
            (10, "a", None),
        ),
        ([], {"priorityClassName": "system-node-critical"}, (2000001000, "", None)),
        (
            [priority_class("high", 1000)],
            {"priorityClassName": "high", "priority": 3},
            (3, "high", None),
        ),
    ],
    ids=[
        "no class and no default give priority zero",
        "the named class gives its value",
        "the class gives its preemption policy",
        "a pod naming no class gets the global default",
        "of two global defaults (a real cluster's) the lower value wins",
        "system classes exist in every cluster",
        "a pod carrying its priority is taken as already admitted",
    ],
)
def test_a_new_pod_gets_its_priority_from_its_class(cluster, workspace, classes, spec, expected):
    # As a mirror writes them: a cluster may hold two defaults, created before admission ran.
    DatabaseCluster(workspace, from_api_server=True).add_many(classes)
    stored = cluster.add(pod(**spec))
    priority, class_name, policy = expected
    assert stored.spec.priority == priority
    if class_name:
        assert stored.spec.priority_class_name == class_name
    if policy:
        assert stored.spec.preemption_policy == policy


def test_a_class_created_in_the_same_batch_is_found(cluster):
    stored = cluster.add_many([pod(priorityClassName="high"), priority_class("high", 1000)])
    assert stored[0].spec.priority == 1000


def test_an_unknown_class_is_refused_with_the_admission_text(cluster):
    with pytest.raises(ObjectError) as raised:
        cluster.add(pod(priorityClassName="gold"))
    assert str(raised.value) == (
        'Pod "default/web": spec.priorityClassName: no PriorityClass with name gold was found'
    )
    assert cluster.get("Pod", "web", "default") is None


def test_a_preemption_policy_contradicting_the_class_is_refused(cluster):
    cluster.add(priority_class("high", 1000))
    with pytest.raises(ObjectError) as raised:
        cluster.add(pod(priorityClassName="high", preemptionPolicy="Never"))
    assert raised.value.field == "spec.preemptionPolicy"
    assert raised.value.problem == (
        "the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
        "priority admission controller computed PreemptLowerPriority from the given "
        "PriorityClass name"
    )


def test_replacing_a_pod_does_not_admit_it_again(cluster):
    cluster.add(priority_class("high", 1000))
    cluster.add(pod(priorityClassName="high"))
    cluster.delete(cluster.get("PriorityClass", "high"))
    edited = cluster.get("Pod", "web", "default").to_dict()
    del edited["spec"]["priority"]
    replaced = cluster.add(edited)
    assert replaced.spec.priority_class_name == "high"


@pytest.mark.parametrize(
    ("kind", "name", "accepted"),
    [
        ("Node", "worker-1.zone-a", True),
        ("Node", "Worker", False),
        ("Node", "-worker", False),
        ("Namespace", "team-a", True),
        ("Namespace", "team.a", False),
        ("Pod", "web_1", False),
    ],
    ids=[
        "a node name with dots",
        "an upper-case node name",
        "a node name starting with a dash",
        "a namespace label",
        "a namespace with a dot",
        "a pod name with an underscore",
    ],
)
def test_names_follow_the_api_server_rules(cluster, kind, name, accepted):
    manifest = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}}
    if kind == "Pod":
        manifest["spec"] = {"containers": [{"name": "c", "image": "nginx"}]}
    if accepted:
        assert cluster.add(manifest).name == name
    else:
        with pytest.raises(ObjectError) as raised:
            cluster.add(manifest)
        assert raised.value.field == "metadata.name"


def test_a_second_global_default_class_is_refused_as_the_priority_plugin_refuses_it(cluster):
    cluster.add(priority_class("low", 10, globalDefault=True))
    second = priority_class("lower", 5, globalDefault=True)
    message = (
        'PriorityClass "lower": globalDefault: PriorityClass low is already marked as default. '
        "Only one default can exist"
    )
    assert [str(e) for e in cluster.admission_errors([second])] == [message]
    with pytest.raises(ObjectError, match="Only one default can exist"):
        cluster.add(second)
    cluster.add(priority_class("low", 10, globalDefault=True, description="replaced"))
    assert [c.name for c in cluster.list("PriorityClass")] == ["low"]


def test_of_two_default_classes_in_one_import_the_second_is_refused(cluster):
    batch = [
        priority_class("a", 10, globalDefault=True),
        priority_class("b", 5, globalDefault=True),
    ]
    assert [str(e) for e in cluster.admission_errors(batch)] == [
        'PriorityClass "b": globalDefault: PriorityClass a is already marked as default. '
        "Only one default can exist"
    ]


# -- kube-apiserver's order: mutating admission, validation, validating admission ------------


def test_a_pod_both_invalid_and_in_a_missing_namespace_is_refused_for_its_namespace(cluster):
    """NamespaceLifecycle is mutating admission: it refuses before validation looks."""
    manifest = pod(containers=[])
    manifest["metadata"]["namespace"] = "team-a"
    with pytest.raises(ObjectError, match='namespaces "team-a" not found'):
        cluster.create(manifest)
    [error] = cluster.admission_errors([manifest])
    assert str(error) == 'Pod "team-a/web": metadata.namespace: namespaces "team-a" not found'


def test_an_invalid_pod_naming_a_missing_class_is_refused_for_the_class(cluster):
    with pytest.raises(ObjectError, match="no PriorityClass with name high was found"):
        cluster.create(pod(priorityClassName="high", containers=[]))


def test_a_second_default_class_that_is_also_invalid_is_refused_for_its_fields(cluster):
    """The one-default rule is validating admission: validation speaks first."""
    cluster.add(priority_class("first", 10, globalDefault=True))
    invalid = priority_class("second", 2_000_000_000, globalDefault=True)
    with pytest.raises(ObjectError, match=r"second.*value"):
        cluster.create(invalid)


def test_importing_a_stored_pod_with_another_spec_is_refused_as_an_update(cluster):
    cluster.add(pod())
    changed = cluster.get("Pod", "web", "default").to_dict()
    changed["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    with pytest.raises(ObjectError, match="pod updates may not change fields"):
        cluster.add_many([changed])
    [error] = cluster.admission_errors([changed])
    assert "pod updates may not change fields" in str(error)
    # The same text is fine as a new object (what Delete and recreate checks).
    assert cluster.admission_errors([changed], as_new=True) == []


def test_an_edit_that_leaves_out_the_priority_keeps_it(cluster):
    """The Priority plugin keeps what it set on create; validation would refuse its removal."""
    cluster.add(priority_class("high", 1000))
    cluster.add(pod(priorityClassName="high"))
    edited = cluster.get("Pod", "web", "default").to_dict()
    del edited["spec"]["priority"]
    edited["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert cluster.update(edited).spec.priority == 1000


def test_a_claim_asking_for_admin_access_needs_an_admin_namespace(cluster):
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "watch", "namespace": "monitoring"},
        "spec": {
            "devices": {
                "requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu", "adminAccess": True}}
                ]
            }
        },
    }
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "monitoring"}}
    cluster.add(namespace)
    with pytest.raises(ObjectError, match="admin access to devices requires the"):
        cluster.create(claim)
    namespace["metadata"]["labels"] = {"resource.kubernetes.io/admin-access": "true"}
    assert cluster.admission_errors([namespace, claim]) == []  # labelled in the same import
    cluster.add(namespace)
    assert cluster.create(claim).name == "watch"


KATA = {
    "apiVersion": "node.k8s.io/v1",
    "kind": "RuntimeClass",
    "metadata": {"name": "kata"},
    "handler": "kata",
    "overhead": {"podFixed": {"cpu": "250m"}},
    "scheduling": {"nodeSelector": {"sandbox": "kata"}},
}


def test_a_pod_of_a_runtime_class_gets_its_overhead_and_node_selector(cluster):
    (_, stored) = cluster.add_many([KATA, pod(runtimeClassName="kata")])
    assert stored.manifest["spec"]["overhead"] == {"cpu": "250m"}
    assert stored.manifest["spec"]["nodeSelector"] == {"sandbox": "kata"}
    assert stored.spec.overhead["cpu"].milli_value() == 250  # what NodeResourcesFit counts


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (
            {"overhead": {"cpu": "100m"}},
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
        ),
        ({"runtimeClassName": "gvisor"}, 'pod rejected: RuntimeClass "gvisor" not found'),
        (
            {"runtimeClassName": "kata", "overhead": {"cpu": "1"}},
            "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
        ),
    ],
    ids=["overhead without a class", "a missing class", "another overhead than the class's"],
)
def test_runtime_class_admission_refuses_as_kube_apiserver(cluster, spec, problem):
    cluster.add(KATA)
    with pytest.raises(ObjectError) as refused:
        cluster.add(pod(**spec))
    assert refused.value.problem == problem
    assert cluster.get("Pod", "web", "default") is None
