"""Pods and nodes read from manifests: fields, API server defaults, and what to_dict writes."""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from framework.api.errors import ObjectError
from framework.api.meta import ObjectMeta, stable_uid
from framework.api.node import Node
from framework.api.pod import Pod, PodCondition
from framework.api.quantity import Quantity
from framework.api.taints import Taint, Toleration

WEB = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web", "track": "stable"}},
    "spec": {
        "containers": [
            {
                "name": "app",
                "image": "nginx:1.27",
                "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}},
                "ports": [{"containerPort": 80, "hostPort": 8080}],
            }
        ],
        "initContainers": [
            {"name": "setup", "resources": {"requests": {"cpu": 1}}},
            {"name": "proxy", "restartPolicy": "Always"},
        ],
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                    ]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 5,
                        "preference": {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": ["n1"]}
                            ]
                        },
                    }
                ],
            },
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {"app": "web"}},
                        "topologyKey": "kubernetes.io/hostname",
                        "matchLabelKeys": ["track"],
                    }
                ]
            },
        },
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}},
                "minDomains": 2,
            }
        ],
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
            {"name": "tmp", "emptyDir": {}},
        ],
        "overhead": {"cpu": "10m"},
        "schedulingGates": [{"name": "example.com/wait"}],
        "os": {"name": "linux"},
        "runtimeClassName": "kata",
    },
}


def pod(data=None) -> Pod:
    return Pod.from_dict(copy.deepcopy(data if data is not None else WEB))


def test_a_pod_without_namespace_lands_in_default():
    assert pod().namespace == "default"
    assert pod().key == "default/web"


def test_absent_fields_get_the_api_server_defaults():
    spec = pod({"kind": "Pod", "metadata": {"name": "p"}, "spec": {}}).spec
    assert spec.scheduler_name == "default-scheduler"
    assert spec.preemption_policy == "PreemptLowerPriority"
    assert spec.priority == 0
    assert spec.node_name == ""
    assert spec.affinity is None
    assert spec.resources is None


def test_uids_are_stable_per_kind_namespace_and_name():
    assert pod().uid == pod().uid == stable_uid("Pod", "default", "web")
    other = copy.deepcopy(WEB)
    other["metadata"]["name"] = "web-2"
    assert pod(other).uid != pod().uid


def test_an_explicit_uid_is_kept():
    data = copy.deepcopy(WEB)
    data["metadata"]["uid"] = "1234"
    assert pod(data).uid == "1234"


def test_it_reads_containers_ports_and_sidecars():
    spec = pod().spec
    app = spec.containers[0]
    assert app.resources.requests == {
        "cpu": Quantity.parse("250m"),
        "memory": Quantity.parse("64Mi"),
    }
    assert app.ports[0].host_port == 8080
    assert app.ports[0].protocol == "TCP"
    assert [c.is_restartable_init_container for c in spec.init_containers] == [False, True]
    assert spec.init_containers[0].resources.requests["cpu"] == Quantity.parse("1")


def test_limits_stand_for_the_requests_a_container_does_not_give():
    limits = {"cpu": "2", "memory": "1Gi"}
    manifest = {
        "kind": "Pod",
        "metadata": {"name": "capped"},
        "spec": {
            "initContainers": [{"name": "i", "resources": {"limits": limits}}],
            "containers": [
                {"name": "c", "resources": {"requests": {"cpu": "500m"}, "limits": limits}}
            ],
        },
    }
    spec = Pod.from_dict(manifest).spec
    assert spec.containers[0].resources.requests == {
        "cpu": Quantity.parse("500m"),
        "memory": Quantity.parse("1Gi"),
    }
    assert spec.init_containers[0].resources.requests == {
        "cpu": Quantity.parse("2"),
        "memory": Quantity.parse("1Gi"),
    }


def test_on_the_host_network_container_ports_default_to_host_ports():
    manifest = {
        "kind": "Pod",
        "metadata": {"name": "agent"},
        "spec": {
            "hostNetwork": True,
            "initContainers": [{"name": "i", "ports": [{"containerPort": 9000}]}],
            "containers": [
                {
                    "name": "c",
                    "ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 81}],
                }
            ],
        },
    }
    spec = Pod.from_dict(manifest).spec
    assert [p.host_port for p in spec.containers[0].ports] == [80, 81]
    assert [p.host_port for p in spec.init_containers[0].ports] == [9000]
    manifest["spec"]["hostNetwork"] = False
    assert [p.host_port for p in Pod.from_dict(manifest).spec.containers[0].ports] == [0, 81]


def test_it_reads_scheduling_fields():
    spec = pod().spec
    assert spec.tolerations == [Toleration(key="gpu", operator="Exists", effect="NoSchedule")]
    assert spec.scheduling_gates == ["example.com/wait"]
    assert spec.os_name == "linux"
    assert spec.runtime_class_name == "kata"
    assert spec.overhead == {"cpu": Quantity.parse("10m")}
    assert spec.volumes[0].persistent_volume_claim.claim_name == "web-data"
    assert spec.volumes[1].source_kind == "emptyDir"
    constraint = spec.topology_spread_constraints[0]
    assert (constraint.max_skew, constraint.min_domains) == (1, 2)
    assert constraint.node_affinity_policy is None
    assert constraint.label_selector.match_labels == {"app": "web"}


def test_it_reads_node_and_pod_affinity():
    affinity = pod().spec.affinity
    required = affinity.node_affinity.required.node_selector_terms[0]
    assert required.match_expressions[0].values == ("a",)
    assert affinity.node_affinity.preferred[0].weight == 5
    assert affinity.pod_affinity is None
    term = affinity.pod_anti_affinity.required[0]
    assert term.topology_key == "kubernetes.io/hostname"


def test_match_label_keys_are_merged_into_the_selector_as_the_api_server_does():
    term = pod().spec.affinity.pod_anti_affinity.required[0]
    assert [(e.key, e.operator, e.values) for e in term.label_selector.match_expressions] == [
        ("track", "In", ("stable",))
    ]
    assert term.label_selector.matches({"app": "web", "track": "stable"})
    assert not term.label_selector.matches({"app": "web", "track": "canary"})


def test_to_dict_writes_what_the_scheduler_sets_and_leaves_the_manifest_alone():
    original = copy.deepcopy(WEB)
    p = pod(original)
    p.spec.node_name = "n1"
    p.status.nominated_node_name = "n2"
    p.status.conditions.append(
        PodCondition(
            "PodScheduled",
            "False",
            "Unschedulable",
            "0/1 nodes are available",
            last_transition_time=dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
        )
    )
    data = p.to_dict()
    assert data["spec"]["nodeName"] == "n1"
    assert data["status"]["nominatedNodeName"] == "n2"
    assert data["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": "0/1 nodes are available",
            "lastTransitionTime": "2025-01-02T03:04:05Z",
        }
    ]
    assert original == WEB
    assert "nodeName" not in p.manifest["spec"]


def test_a_pod_built_in_code_serialises_its_metadata():
    p = Pod(ObjectMeta(name="p", labels={"a": "b"}))
    assert p.namespace == "default"
    assert p.to_dict()["metadata"] == {
        "name": "p",
        "namespace": "default",
        "uid": p.uid,
        "labels": {"a": "b"},
    }


def test_deep_copy_is_independent():
    p = pod()
    q = p.deep_copy()
    q.spec.node_name = "elsewhere"
    assert p.spec.node_name == ""
    assert q.uid == p.uid


def test_deep_copy_equals_the_original():
    data = copy.deepcopy(WEB)
    data["status"] = {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False"}],
    }
    p = pod(data)
    q = p.deep_copy()
    assert type(q) is Pod
    assert (q.metadata, q.spec, q.status) == (p.metadata, p.spec, p.status)
    assert (q.manifest, q.api_version, q.to_dict()) == (p.manifest, p.api_version, p.to_dict())


def test_writes_to_a_deep_copy_never_reach_the_original():
    """Every field anyone writes after copying a pod (grep for deep_copy in framework/ and
    playground/): the cluster's bind and status patches, the scheduler's assume, what-if."""
    p = pod()
    before = p.to_dict()
    before_parsed = copy.deepcopy((p.metadata, p.spec, p.status))
    q = p.deep_copy()
    q.spec.node_name = "elsewhere"
    q.spec.scheduler_name = "other-scheduler"
    q.status.nominated_node_name = "nominated"
    q.status.phase = "Running"
    q.status.conditions.append(PodCondition("PodScheduled", "True"))
    q.metadata.resource_version = "42"
    q.metadata.labels["added"] = "x"
    q.metadata.annotations["added"] = "x"
    q.spec.tolerations.append(Toleration(key="k", operator="Exists"))
    q.spec.scheduling_gates.append("gate")
    q.spec.node_selector["added"] = "x"
    assert p.to_dict() == before
    assert (p.metadata, p.spec, p.status) == before_parsed
    assert q.manifest == p.manifest


def test_a_replaced_condition_in_a_copy_leaves_the_original_condition():
    data = copy.deepcopy(WEB)
    data["status"] = {"conditions": [{"type": "PodScheduled", "status": "False"}]}
    p = pod(data)
    q = p.deep_copy()
    q.status.conditions[0] = PodCondition("PodScheduled", "True")
    assert p.status.conditions == [PodCondition("PodScheduled", "False")]


def test_manifest_reads_back_as_given_and_cannot_be_changed_through_a_read():
    data = copy.deepcopy(WEB)
    p = pod(data)
    assert p.manifest == data
    p.manifest["spec"]["nodeName"] = "changed"
    assert "nodeName" not in p.manifest["spec"]
    assert p.to_dict()["spec"] == data["spec"]


def test_manifest_marshal_cannot_pack_is_kept_as_given():
    data = copy.deepcopy(WEB)
    data["metadata"]["creationTimestamp"] = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    p = Pod.from_dict(data)
    assert p.manifest is data
    assert p.to_dict()["metadata"]["creationTimestamp"] == data["metadata"]["creationTimestamp"]


def test_status_reads_container_resources_for_in_place_resize():
    data = copy.deepcopy(WEB)
    data["status"] = {
        "phase": "Running",
        "startTime": "2025-01-01T00:00:00Z",
        "containerStatuses": [
            {
                "name": "app",
                "allocatedResources": {"cpu": "500m"},
                "resources": {"requests": {"cpu": "400m"}},
            }
        ],
        "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
    }
    status = pod(data).status
    assert status.phase == "Running"
    assert status.start_time == dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    assert status.container_statuses[0].allocated_resources == {"cpu": Quantity.parse("500m")}
    assert status.container_statuses[0].resources.requests == {"cpu": Quantity.parse("400m")}
    assert status.condition("PodResizePending").reason == "Infeasible"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ("spec", "containers", 0, "resources", "requests", "cpu"),
            "one",
            'Pod "default/web": spec.containers[0].resources.requests.cpu: quantities must match '
            "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            ("metadata", "labels", "tier"),
            1,
            'Pod "default/web": metadata.labels.tier: expected a string, got number',
        ),
        (
            ("spec", "priority"),
            "high",
            'Pod "default/web": spec.priority: expected an integer, got string',
        ),
        (
            ("spec", "tolerations"),
            {"key": "a"},
            'Pod "default/web": spec.tolerations: expected a list, got object',
        ),
        (
            ("spec", "containers", 0, "ports", 0, "hostPort"),
            True,
            'Pod "default/web": spec.containers[0].ports[0].hostPort: '
            "expected an integer, got boolean",
        ),
    ],
    ids=[
        "a bad quantity",
        "a label that is not a string",
        "a priority that is not an integer",
        "tolerations that are not a list",
        "a host port that is a boolean",
    ],
)
def test_malformed_fields_name_the_object_and_the_field(path, value, message):
    data = copy.deepcopy(WEB)
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    with pytest.raises(ObjectError) as excinfo:
        Pod.from_dict(data)
    assert str(excinfo.value) == message


def test_a_pod_without_a_name_is_rejected():
    with pytest.raises(ObjectError, match=r"metadata\.name: Required value"):
        Pod.from_dict({"kind": "Pod", "metadata": {}})


def test_blanks_around_quantity_strings_are_trimmed_as_json_decoding_does():
    data = copy.deepcopy(WEB)
    data["spec"]["containers"][0]["resources"]["requests"]["cpu"] = " 1 "
    assert pod(data).spec.containers[0].resources.requests["cpu"] == Quantity.parse("1")


NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1", "namespace": "ignored", "labels": {"zone": "a"}},
    "spec": {
        "unschedulable": True,
        "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}],
        "providerID": "fake://n1",
    },
    "status": {
        "capacity": {"cpu": "4", "memory": "16Gi", "pods": 110},
        "images": [{"names": ["app:v1", "app@sha256:abc"], "sizeBytes": 30000000}],
        "conditions": [{"type": "Ready", "status": "True"}],
        "declaredFeatures": ["FeatureA"],
    },
}


def test_a_node_is_cluster_scoped():
    node = Node.from_dict(NODE)
    assert node.namespace == ""
    assert node.key == "n1"
    assert node.uid == stable_uid("Node", "", "n1")


def test_node_allocatable_defaults_to_capacity():
    status = Node.from_dict(NODE).status
    assert status.allocatable == status.capacity
    assert status.allocatable["pods"].value() == 110


def test_node_allocatable_is_read_when_present():
    data = copy.deepcopy(NODE)
    data["status"]["allocatable"] = {"cpu": "3500m"}
    assert Node.from_dict(data).status.allocatable == {"cpu": Quantity.parse("3.5")}


def test_it_reads_node_spec_and_status():
    node = Node.from_dict(NODE)
    assert node.spec.unschedulable
    assert node.spec.taints == [Taint("dedicated", "db", "NoSchedule")]
    assert node.spec.provider_id == "fake://n1"
    assert node.status.images[0].names == ("app:v1", "app@sha256:abc")
    assert node.status.images[0].size_bytes == 30000000
    assert node.status.condition("Ready").status == "True"
    assert node.status.declared_features == ["FeatureA"]


def test_a_manifest_of_another_kind_is_refused():
    with pytest.raises(ObjectError, match="expected 'Node', got 'Pod'"):
        Node.from_dict(WEB)
