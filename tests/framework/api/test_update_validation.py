"""Updates validated as kube-apiserver validates them, ported from upstream's
TestValidatePodUpdate (its cases for the fields the scheduler reads, with the same names and
the same substring of the error they expect, "" for none), TestValidateObjectMetaUpdate,
TestValidateNodeUpdate, TestValidatePriorityClassUpdate, TestValidateStorageClassUpdate,
TestValidatePersistentVolumeClaimUpdate and the resource.k8s.io update tests."""

from __future__ import annotations

import copy

import pytest

from framework.api.errors import InvalidObjectError
from framework.api.field_errors import aggregate_message
from framework.api.loader import parse_updated_object
from framework.api.validation.update_common import prepare_update, spec_diff
from framework.api.validation.updates import validate_manifest_update

NAMESPACED = {"Pod", "PersistentVolumeClaim", "ResourceClaim", "ResourceClaimTemplate"}


def message(kind: str, new: dict, old: dict) -> str:
    new = prepare_update({"kind": kind, **new}, {"kind": kind, **old})
    errors = validate_manifest_update(kind, kind in NAMESPACED, new, {"kind": kind, **old})
    return aggregate_message(errors) if errors else ""


def make_pod(name="foo", *, labels=None, annotations=None, containers=None, **spec) -> dict:
    metadata = {"name": name, "namespace": "ns", "uid": "uid-1", "resourceVersion": "1"}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    containers = containers or [container("ctr")]
    return {"metadata": metadata, "spec": {"containers": containers, **spec}}


def container(name, image="image", **fields) -> dict:
    return {"name": name, "image": image, **fields}


def resources(**sections) -> dict:
    return {"resources": sections}


def toleration(value="bar", seconds=None) -> dict:
    found = {"key": "foo", "operator": "Equal", "value": value, "effect": "NoExecute"}
    if seconds is not None:
        found["tolerationSeconds"] = seconds
    return found


def term(expressions=(), fields=()) -> dict:
    found = {}
    if expressions:
        found["matchExpressions"] = [
            {"key": key, "operator": "In", "values": [value]} for key, value in expressions
        ]
    if fields:
        found["matchFields"] = [
            {"key": "metadata.name", "operator": "In", "values": [value]} for value in fields
        ]
    return found


def node_affinity(*terms, preferred=None) -> dict:
    affinity = {}
    if terms:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": list(terms)
        }
    if preferred is not None:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return {"nodeAffinity": affinity}


GATE = [{"name": "baz"}]
POD_SPEC_CHANGE = "spec: Forbidden: pod updates may not change fields"
OTHER_THAN_IMAGE = (
    "Forbidden: pod updates may not change fields other than `spec.containers[*].image"
)
TERMS = (
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
)

POD_CASES = [
    ("nothing", make_pod(), make_pod(), ""),
    ("ids", make_pod("foo"), make_pod("bar"), "metadata.name"),
    ("labels", make_pod(labels={"foo": "bar"}), make_pod(labels={"bar": "foo"}), ""),
    (
        "annotations",
        make_pod(annotations={"foo": "bar"}),
        make_pod(annotations={"bar": "foo"}),
        "",
    ),
    (
        "less containers",
        make_pod(containers=[container("foo", "foo:V2")]),
        make_pod(containers=[container("foo", "foo:V1"), container("bar", "bar:V1")]),
        "may not add or remove containers",
    ),
    (
        "more containers",
        make_pod(containers=[container("foo", "foo:V2"), container("bar", "bar:V2")]),
        make_pod(containers=[container("foo", "foo:V1")]),
        "may not add or remove containers",
    ),
    (
        "more init containers",
        make_pod(initContainers=[container("foo", "foo:V2")]),
        make_pod(),
        "may not add or remove containers",
    ),
    (
        "image change",
        make_pod(containers=[container("foo", "foo:V2")]),
        make_pod(containers=[container("foo", "foo:V1")]),
        "",
    ),
    (
        "init container image change",
        make_pod(initContainers=[container("foo", "foo:V2")]),
        make_pod(initContainers=[container("foo", "foo:V1")]),
        "",
    ),
    (
        "image change to empty",
        make_pod(containers=[container("foo", "")]),
        make_pod(containers=[container("foo", "foo:V1")]),
        "spec.containers[0].image",
    ),
    ("activeDeadlineSeconds no change, nil", make_pod(), make_pod(), ""),
    (
        "activeDeadlineSeconds no change, set",
        make_pod(activeDeadlineSeconds=30),
        make_pod(activeDeadlineSeconds=30),
        "",
    ),
    (
        "activeDeadlineSeconds change to positive from nil",
        make_pod(activeDeadlineSeconds=30),
        make_pod(),
        "",
    ),
    (
        "activeDeadlineSeconds change to smaller positive",
        make_pod(activeDeadlineSeconds=30),
        make_pod(activeDeadlineSeconds=31),
        "",
    ),
    (
        "activeDeadlineSeconds change to larger positive",
        make_pod(activeDeadlineSeconds=31),
        make_pod(activeDeadlineSeconds=30),
        "spec.activeDeadlineSeconds",
    ),
    (
        "activeDeadlineSeconds change to negative from nil",
        make_pod(activeDeadlineSeconds=-30),
        make_pod(),
        "spec.activeDeadlineSeconds",
    ),
    (
        "activeDeadlineSeconds change to negative from positive",
        make_pod(activeDeadlineSeconds=-30),
        make_pod(activeDeadlineSeconds=30),
        "spec.activeDeadlineSeconds",
    ),
    (
        "activeDeadlineSeconds change to nil from positive",
        make_pod(),
        make_pod(activeDeadlineSeconds=30),
        "spec.activeDeadlineSeconds",
    ),
    (
        "cpu limit change",
        make_pod(containers=[container("ctr", **resources(limits={"cpu": "100m"}))]),
        make_pod(containers=[container("ctr", **resources(limits={"cpu": "200m"}))]),
        POD_SPEC_CHANGE,
    ),
    (
        "memory request change",
        make_pod(containers=[container("ctr", **resources(requests={"memory": "1Gi"}))]),
        make_pod(containers=[container("ctr", **resources(requests={"memory": "2Gi"}))]),
        POD_SPEC_CHANGE,
    ),
    (
        "Pod QoS change, besteffort -> burstable",
        make_pod(containers=[container("ctr", **resources(requests={"cpu": "100m"}))]),
        make_pod(),
        POD_SPEC_CHANGE,
    ),
    (
        "port change",
        make_pod(containers=[container("ctr", ports=[{"containerPort": 8080}])]),
        make_pod(containers=[container("ctr", ports=[{"containerPort": 80}])]),
        POD_SPEC_CHANGE,
    ),
    ("bad label change", make_pod(labels={"foo": "bar"}), make_pod(labels={"foo": "bar"}), ""),
    (
        "existing toleration value modified in pod spec updates",
        make_pod(nodeName="node1", tolerations=[toleration("value2")]),
        make_pod(nodeName="node1", tolerations=[toleration("value1")]),
        "spec.tolerations: Forbidden",
    ),
    (
        "existing toleration value modified in pod spec updates with modified tolerationSeconds",
        make_pod(nodeName="node1", tolerations=[toleration("value2", 20)]),
        make_pod(nodeName="node1", tolerations=[toleration("value1", 10)]),
        "spec.tolerations: Forbidden",
    ),
    (
        "modified tolerationSeconds in existing toleration value in pod spec updates",
        make_pod(nodeName="node1", tolerations=[toleration("value1", 10)]),
        make_pod(nodeName="node1", tolerations=[toleration("value1", 20)]),
        "",
    ),
    (
        "toleration modified in updates to an unscheduled pod",
        make_pod(tolerations=[toleration("value2", 10)]),
        make_pod(tolerations=[toleration("value1", 20)]),
        "spec.tolerations: Forbidden",
    ),
    (
        "added valid new toleration to existing tolerations in pod spec updates",
        make_pod(
            nodeName="node1",
            tolerations=[
                toleration("value1", 20),
                {"key": "foo2", "operator": "Equal", "value": "value2", "effect": "NoSchedule"},
            ],
        ),
        make_pod(nodeName="node1", tolerations=[toleration("value1", 20)]),
        "",
    ),
    (
        "added invalid new toleration to existing tolerations in pod spec updates",
        make_pod(
            nodeName="node1",
            tolerations=[
                toleration("value1", 20),
                {
                    "key": "foo2",
                    "operator": "Equal",
                    "value": "value2",
                    "effect": "NoSchedule",
                    "tolerationSeconds": 10,
                },
            ],
        ),
        make_pod(nodeName="node1", tolerations=[toleration("value1", 20)]),
        "spec.tolerations[1].effect",
    ),
    ("removed nodeName from pod spec", make_pod(), make_pod(nodeName="foo"), POD_SPEC_CHANGE),
    (
        "added mirror pod annotation",
        make_pod(nodeName="foo", annotations={"kubernetes.io/config.mirror": ""}),
        make_pod(nodeName="foo"),
        "metadata.annotations[kubernetes.io/config.mirror]",
    ),
    (
        "removed mirror pod annotation",
        make_pod(nodeName="foo"),
        make_pod(nodeName="foo", annotations={"kubernetes.io/config.mirror": ""}),
        "metadata.annotations[kubernetes.io/config.mirror]",
    ),
    (
        "changed priority class name",
        make_pod(priorityClassName="foo-priority"),
        make_pod(priorityClassName="bar-priority"),
        "spec: Forbidden: pod updates",
    ),
    (
        "removed priority class name",
        make_pod(),
        make_pod(priorityClassName="bar-priority"),
        "spec: Forbidden: pod updates",
    ),
    (
        "update termination grace period seconds",
        make_pod(terminationGracePeriodSeconds=1),
        make_pod(terminationGracePeriodSeconds=-1),
        "",
    ),
    (
        "update termination grace period seconds not 1",
        make_pod(terminationGracePeriodSeconds=0),
        make_pod(terminationGracePeriodSeconds=-1),
        "spec: Forbidden: pod updates",
    ),
    (
        "update pod spec schedulingGates: add new scheduling gate",
        make_pod(schedulingGates=[{"name": "foo"}]),
        make_pod(),
        "Forbidden: only deletion is allowed, but found new scheduling gate 'foo'",
    ),
    (
        "update pod spec schedulingGates: mutating an existing scheduling gate",
        make_pod(schedulingGates=[{"name": "bar"}]),
        make_pod(schedulingGates=[{"name": "foo"}]),
        "Forbidden: only deletion is allowed, but found new scheduling gate 'bar'",
    ),
    (
        "update pod spec schedulingGates: mutating an existing scheduling gate along with deletion",
        make_pod(schedulingGates=[{"name": "baz"}]),
        make_pod(schedulingGates=[{"name": "foo"}, {"name": "bar"}]),
        "Forbidden: only deletion is allowed, but found new scheduling gate 'baz'",
    ),
    (
        "update pod spec schedulingGates: legal deletion",
        make_pod(),
        make_pod(schedulingGates=[{"name": "foo"}]),
        "",
    ),
    (
        "adding node selector is allowed for gated pods",
        make_pod(nodeSelector={"foo": "bar"}, schedulingGates=GATE),
        make_pod(schedulingGates=GATE),
        "",
    ),
    (
        "adding node selector is not allowed for non-gated pods",
        make_pod(nodeSelector={"foo": "bar"}),
        make_pod(),
        OTHER_THAN_IMAGE,
    ),
    (
        "removing node selector is not allowed for gated pods",
        make_pod(schedulingGates=GATE),
        make_pod(nodeSelector={"foo": "bar"}, schedulingGates=GATE),
        "spec.nodeSelector: Invalid value:",
    ),
    (
        "old pod spec has scheduling gate, new pod spec does not, and node selector is added",
        make_pod(nodeSelector={"foo": "bar"}),
        make_pod(schedulingGates=GATE),
        "",
    ),
    (
        "modifying value of existing node selector is not allowed",
        make_pod(nodeSelector={"foo": "bar2"}, schedulingGates=GATE),
        make_pod(nodeSelector={"foo": "bar"}, schedulingGates=GATE),
        "spec.nodeSelector: Invalid value:",
    ),
    (
        "addition to nodeAffinity is allowed for gated pods",
        make_pod(
            affinity=node_affinity(term([("expr", "foo"), ("expr2", "foo2")], ["foo"])),
            schedulingGates=GATE,
        ),
        make_pod(affinity=node_affinity(term([("expr", "foo")])), schedulingGates=GATE),
        "",
    ),
    (
        "old RequiredDuringSchedulingIgnoredDuringExecution is non-nil, new "
        "RequiredDuringSchedulingIgnoredDuringExecution is nil, pod is gated",
        make_pod(affinity={"nodeAffinity": {}}, schedulingGates=GATE),
        make_pod(affinity=node_affinity(term([("expr", "foo")])), schedulingGates=GATE),
        f"{TERMS}: Invalid value:",
    ),
    (
        "addition to nodeAffinity is not allowed for non-gated pods",
        make_pod(affinity=node_affinity(term([("expr", "foo"), ("expr2", "foo2")]))),
        make_pod(affinity=node_affinity(term([("expr", "foo")]))),
        OTHER_THAN_IMAGE,
    ),
    (
        "nodeAffinity deletion from MatchExpressions not allowed",
        make_pod(affinity=node_affinity(term([("expr", "foo")])), schedulingGates=GATE),
        make_pod(
            affinity=node_affinity(term([("expr", "foo"), ("expr2", "foo2")])),
            schedulingGates=GATE,
        ),
        f"{TERMS}[0]: Invalid value:",
    ),
    (
        "nodeAffinity modification of item in MatchFields not allowed",
        make_pod(affinity=node_affinity(term(fields=["bar"])), schedulingGates=GATE),
        make_pod(affinity=node_affinity(term(fields=["foo"])), schedulingGates=GATE),
        f"{TERMS}[0]: Invalid value:",
    ),
    (
        "nodeSelectorTerms addition on gated pod should fail",
        make_pod(
            affinity=node_affinity(term([("expr", "foo")]), term([("expr", "foo")])),
            schedulingGates=GATE,
        ),
        make_pod(affinity=node_affinity(term([("expr", "foo")])), schedulingGates=GATE),
        f"{TERMS}: Invalid value:",
    ),
    (
        "preferredDuringSchedulingIgnoredDuringExecution can modified for gated pods",
        make_pod(
            affinity=node_affinity(
                preferred=[{"weight": 1, "preference": term([("expr", "foo2")])}]
            ),
            schedulingGates=GATE,
        ),
        make_pod(
            affinity=node_affinity(
                preferred=[{"weight": 1, "preference": term([("expr", "foo")])}]
            ),
            schedulingGates=GATE,
        ),
        "",
    ),
    (
        "empty NodeSelectorTerm (selects nothing) cannot become populated (selects something)",
        make_pod(affinity=node_affinity(term([("expr", "foo")])), schedulingGates=GATE),
        make_pod(affinity=node_affinity({}), schedulingGates=GATE),
        f"{TERMS}[0]: Invalid value:",
    ),
    (
        "nil affinity can be mutated for gated pods",
        make_pod(affinity=node_affinity(term([("expr", "foo")])), schedulingGates=GATE),
        make_pod(schedulingGates=GATE),
        "",
    ),
    (
        "the podAffinity cannot be updated on gated pods",
        make_pod(
            affinity={
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "foo", "labelSelector": {"matchLabels": {"a": "b"}}}
                    ]
                }
            },
            schedulingGates=GATE,
        ),
        make_pod(schedulingGates=GATE),
        "pod updates may not change fields other than",
    ),
    (
        "not allow update node affinity to an invalid label-value",
        make_pod(affinity=node_affinity(term([("key", "-1")]))),
        make_pod(),
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.'",
    ),
    (
        "cpu limit change with pod-level resources",
        make_pod(resources={"limits": {"cpu": "100m"}}),
        make_pod(resources={"limits": {"cpu": "200m"}}),
        "pod updates may not change fields other than",
    ),
]


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [pytest.param(n, o, e, id=name) for name, n, o, e in POD_CASES],
)
def test_validate_pod_update(new, old, expected):
    found = message("Pod", copy.deepcopy(new), copy.deepcopy(old))
    if expected:
        assert expected in found
    else:
        assert found == ""


def test_a_refused_pod_spec_change_lists_the_updatable_fields_and_the_diff():
    old = make_pod(containers=[container("ctr", **resources(requests={"cpu": "1"}))])
    new = make_pod(containers=[container("ctr", **resources(requests={"cpu": "2"}))])
    assert message("Pod", new, old) == (
        "spec: Forbidden: pod updates may not change fields other than "
        "`spec.containers[*].image`,`spec.initContainers[*].image`,"
        "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
        "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
        "previously negative)\n"
        "@@ -5,7 +5,7 @@\n"
        '    "image": "image",\n'
        '    "resources": {\n'
        '     "requests": {\n'
        '-     "cpu": "1"\n'
        '+     "cpu": "2"\n'
        "     }\n"
        "    }\n"
        "   }\n"
    )


def test_the_diff_is_a_unified_diff_of_indented_json_without_file_headers():
    assert spec_diff({"a": 1, "b": "<x>"}, {"a": 2, "b": "<x>"}) == (
        '@@ -1,4 +1,4 @@\n {\n- "a": 1,\n+ "a": 2,\n  "b": "\\u003cx\\u003e"\n }\n'
    )


# -- metadata --------------------------------------------------------------------------------


def test_uid_creation_time_and_resource_version_left_out_are_the_stored_ones():
    old = make_pod()
    old["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
    old["metadata"]["generation"] = 3
    new = make_pod()
    for key in ("uid", "resourceVersion"):
        del new["metadata"][key]
    new["metadata"]["generation"] = 1
    prepared = prepare_update(new, old)
    assert prepared["metadata"] == {**old["metadata"]}
    assert message("Pod", new, old) == ""


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("uid", "uid-2", 'metadata.uid: Invalid value: "uid-2": field is immutable'),
        ("namespace", "other", 'metadata.namespace: Invalid value: "other": field is immutable'),
        (
            "deletionTimestamp",
            "2026-02-02T00:00:00Z",
            'metadata.deletionTimestamp: Invalid value: "2026-02-02T00:00:00Z": field is immutable',
        ),
    ],
)
def test_identity_may_not_change(key, value, expected):
    old = make_pod()
    old["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
    new = copy.deepcopy(old)
    new["metadata"][key] = value
    assert message("Pod", new, old).startswith(expected)


def test_a_changed_creation_timestamp_is_ignored_as_the_api_server_ignores_it():
    old = make_pod()
    old["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
    new = copy.deepcopy(old)
    new["metadata"]["creationTimestamp"] = "2030-01-01T00:00:00Z"
    assert prepare_update(new, old)["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"
    assert message("Pod", new, old) == ""


def test_labels_are_checked_as_on_create():
    new = make_pod(labels={"a": "-bad-"})
    assert 'metadata.labels: Invalid value: "-bad-"' in message("Pod", new, make_pod())


# -- other kinds -----------------------------------------------------------------------------


def node(**spec) -> dict:
    return {"metadata": {"name": "n1", "resourceVersion": "1"}, "spec": spec}


@pytest.mark.parametrize(
    ("name", "new", "old", "expected"),
    [
        ("taints may change", node(taints=[{"key": "a", "effect": "NoSchedule"}]), node(), ""),
        ("unschedulable may change", node(unschedulable=True), node(), ""),
        (
            "podCIDRs are fixed once set",
            node(podCIDRs=["10.0.1.0/24"]),
            node(podCIDRs=["10.0.0.0/24"]),
            'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
        ),
        ("podCIDRs may be set once", node(podCIDRs=["10.0.0.0/24"]), node(), ""),
        (
            "providerID is fixed once set",
            node(providerID="b"),
            node(providerID="a"),
            'spec.providerID: Forbidden: node updates may not change providerID except from "" '
            "to valid",
        ),
    ],
)
def test_validate_node_update(name, new, old, expected):
    assert message("Node", new, old) == expected


def priority_class(value=100, policy=None, default=False) -> dict:
    manifest = {"metadata": {"name": "high", "resourceVersion": "1"}, "value": value}
    if policy is not None:
        manifest["preemptionPolicy"] = policy
    if default:
        manifest["globalDefault"] = True
    return manifest


def test_validate_priority_class_update():
    assert message("PriorityClass", priority_class(default=True), priority_class()) == ""
    assert message("PriorityClass", priority_class(200), priority_class()) == (
        "value: Forbidden: may not be changed in an update."
    )
    assert message("PriorityClass", priority_class(policy="Never"), priority_class()) == (
        'preemptionPolicy: Invalid value: "Never": field is immutable'
    )


def storage_class(**fields) -> dict:
    base = {
        "metadata": {"name": "fast", "resourceVersion": "1"},
        "provisioner": "kubernetes.io/foo",
    }
    return {**base, **fields}


def test_validate_storage_class_update():
    assert message("StorageClass", storage_class(allowVolumeExpansion=True), storage_class()) == ""
    assert message(
        "StorageClass",
        storage_class(volumeBindingMode="WaitForFirstConsumer"),
        storage_class(volumeBindingMode="Immediate"),
    ) == ('volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable')
    assert (
        message(
            "StorageClass",
            storage_class(parameters={"kind": "bar"}),
            storage_class(parameters={"kind": "foo"}),
        )
        == 'parameters: Invalid value: {"kind":"bar"}: field is immutable'
    )


def claim(storage="1Gi", phase=None, **spec) -> dict:
    manifest = {
        "metadata": {"name": "data", "namespace": "ns", "resourceVersion": "1"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": storage}},
            **spec,
        },
    }
    if phase:
        manifest["status"] = {"phase": phase, "capacity": {"storage": "1Gi"}}
    return manifest


@pytest.mark.parametrize(
    ("name", "new", "old", "expected"),
    [
        ("valid-update-volume-name-only", claim(volumeName="volume"), claim(), ""),
        ("valid-no-op-update", claim(), claim(), ""),
        (
            "invalid-update-change-resources-on-bound-claim",
            claim("2Gi", "Bound"),
            claim("1Gi", "Bound"),
            "",
        ),
        (
            "invalid-update-change-access-modes-on-bound-claim",
            claim(accessModes=["ReadOnlyMany"]),
            claim(),
            "spec: Forbidden: spec is immutable after creation except resources.requests and "
            "volumeAttributesClassName for bound claims",
        ),
        (
            "invalid-decrease-storage-size-to-status-capacity",
            claim("1Gi", "Bound"),
            claim("2Gi", "Bound"),
            "spec.resources.requests.storage: Forbidden: field can not be less than "
            "status.capacity",
        ),
    ],
)
def test_validate_persistent_volume_claim_update(name, new, old, expected):
    found = message("PersistentVolumeClaim", new, old)
    assert found.startswith(expected) if expected else found == ""


def test_a_persistent_volumes_source_is_immutable():
    old = {
        "metadata": {"name": "pv", "resourceVersion": "1"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/a"},
        },
    }
    new = copy.deepcopy(old)
    new["spec"]["hostPath"]["path"] = "/b"
    assert message("PersistentVolume", new, old) == (
        "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after "
        "creation\n@@ -1,5 +1,5 @@\n"
        ' {\n  "hostPath": {\n-  "path": "/a"\n+  "path": "/b"\n  }\n }\n'
    )
    new = copy.deepcopy(old)
    new["spec"]["capacity"]["storage"] = "2Gi"
    assert message("PersistentVolume", new, old) == ""


def dra_claim(count=1) -> dict:
    return {
        "metadata": {"name": "c", "namespace": "ns", "resourceVersion": "1"},
        "spec": {
            "devices": {
                "requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "count": count}}]
            }
        },
    }


def test_a_resource_claims_spec_is_immutable():
    changed = message("ResourceClaim", dra_claim(2), dra_claim(1))
    assert changed.startswith('spec: Invalid value: {"devices":')
    assert changed.endswith(": field is immutable")
    labelled = dra_claim()
    labelled["metadata"]["labels"] = {"a": "b"}
    assert message("ResourceClaim", labelled, dra_claim()) == ""


def resource_slice(**spec) -> dict:
    base = {
        "driver": "dra.example.com",
        "nodeName": "worker",
        "pool": {"name": "worker", "resourceSliceCount": 1},
        "devices": [{"name": "d0"}],
    }
    return {"metadata": {"name": "s", "resourceVersion": "1"}, "spec": {**base, **spec}}


def test_a_resource_slices_driver_pool_and_node_are_immutable():
    assert (
        message("ResourceSlice", resource_slice(devices=[{"name": "d1"}]), resource_slice()) == ""
    )
    assert message(
        "ResourceSlice",
        resource_slice(driver="other.example.com", pool={"name": "p", "resourceSliceCount": 1}),
        resource_slice(),
    ) == (
        '[spec.pool.name: Invalid value: "p": field is immutable, '
        'spec.driver: Invalid value: "other.example.com": field is immutable]'
    )


def test_parse_updated_object_refuses_with_every_problem_and_names_the_object():
    old = {"apiVersion": "v1", "kind": "Pod", **make_pod()}
    new = copy.deepcopy(old)
    new["spec"]["nodeName"] = "elsewhere"
    new["metadata"]["uid"] = "uid-2"
    with pytest.raises(InvalidObjectError) as refused:
        parse_updated_object(new, old)
    assert str(refused.value).startswith(
        'Pod "ns/foo" is invalid: [metadata.uid: Invalid value: "uid-2": field is immutable, '
        "spec: Forbidden: pod updates may not change fields other than"
    )
    allowed = copy.deepcopy(old)
    allowed["spec"]["containers"][0]["image"] = "image:v2"
    del allowed["metadata"]["uid"]
    assert parse_updated_object(allowed, old).uid == "uid-1"


def device_class(parameter_bytes: int | None = None) -> dict:
    manifest = {"metadata": {"name": "foo", "resourceVersion": "1"}, "spec": {}}
    if parameter_bytes is not None:
        # {"str":"..."} is 10 bytes of JSON around the text (compact, as kubectl sends it).
        parameters = {"str": "x" * (parameter_bytes - 10)}
        manifest["spec"]["config"] = [{"opaque": {"driver": "foo", "parameters": parameters}}]
    return manifest


TOO_LARGE = "spec.config[0].opaque.parameters: Too long: may not be more than 10240 bytes"


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(device_class(), device_class(), "", id="valid-no-op-update"),
        pytest.param(device_class(10240), device_class(), "", id="valid-config-large"),
        pytest.param(device_class(10241), device_class(), TOO_LARGE, id="invalid-config-too-large"),
        pytest.param(
            device_class(10241), device_class(10241), "", id="too-large-config-valid-if-stored"
        ),
    ],
)
def test_validate_class_update(new, old, expected):
    assert message("DeviceClass", new, old) == expected


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(lambda s: None, "", id="valid-no-op-update"),
        pytest.param(
            lambda s: s["metadata"].update(name="s-update"),
            'metadata.name: Invalid value: "s-update": field is immutable',
            id="invalid-name-update",
        ),
        pytest.param(
            lambda s: s["spec"].update(nodeName="worker-updated"),
            'spec.nodeName: Invalid value: "worker-updated": field is immutable',
            id="invalid-update-nodename",
        ),
        pytest.param(
            lambda s: s["spec"].update(driver="dra.example.com-updated"),
            'spec.driver: Invalid value: "dra.example.com-updated": field is immutable',
            id="invalid-update-drivername",
        ),
        pytest.param(
            lambda s: s["spec"]["pool"].update(name="worker-updated"),
            'spec.pool.name: Invalid value: "worker-updated": field is immutable',
            id="invalid-update-pool",
        ),
    ],
)
def test_validate_resource_slice_update(change, expected):
    old = resource_slice()
    new = copy.deepcopy(old)
    change(new)
    assert message("ResourceSlice", new, old) == expected
