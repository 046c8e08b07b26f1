"""Loading and dumping manifests, and the smaller kinds scheduling reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from framework.api.apps import ReplicaSet, StatefulSet
from framework.api.core import (
    Namespace,
    PersistentVolume,
    PersistentVolumeClaim,
    ReplicationController,
    Service,
)
from framework.api.errors import ObjectError
from framework.api.loader import dump_objects, load_objects, parse_object
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.policy import PodDisruptionBudget
from framework.api.quantity import Quantity
from framework.api.runtime_class import RuntimeClass
from framework.api.scheduling import PriorityClass
from framework.api.storage import CSINode, StorageClass

MULTI_DOC = """
apiVersion: v1
kind: Node
metadata: {name: n1}
---
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: team}
spec:
  containers: [{name: c, image: nginx}]
"""

ORACLE = Path(__file__).resolve().parents[2] / "fixtures" / "oracle"


def test_it_loads_multi_document_yaml_in_order_skipping_empty_documents():
    objects = load_objects(MULTI_DOC)
    assert [(type(o), o.key) for o in objects] == [(Node, "n1"), (Pod, "team/p1")]


def test_it_loads_a_json_list():
    text = json.dumps(
        [{"kind": "Node", "metadata": {"name": "a"}}, {"kind": "Node", "metadata": {"name": "b"}}]
    )
    assert [o.name for o in load_objects(text)] == ["a", "b"]


@pytest.mark.parametrize("list_kind", ["List", "NodeList"], ids=["a kubectl List", "a typed list"])
def test_it_loads_a_list_object_with_items(list_kind):
    text = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": list_kind,
            "items": [{"kind": "Node", "metadata": {"name": "a"}}],
        }
    )
    assert [o.name for o in load_objects(text)] == ["a"]


def test_an_unknown_kind_is_named_in_the_error():
    with pytest.raises(ObjectError) as excinfo:
        parse_object({"kind": "Deployment", "metadata": {"name": "d"}})
    assert str(excinfo.value).startswith("Deployment \"d\": kind: unsupported kind 'Deployment'")


def test_a_manifest_without_kind_is_refused():
    with pytest.raises(ObjectError, match='object "x": kind: Required value'):
        parse_object({"metadata": {"name": "x"}})


def test_invalid_yaml_is_reported():
    with pytest.raises(ObjectError, match="invalid YAML"):
        load_objects("kind: [unclosed")


def test_dump_then_load_gives_the_same_objects():
    objects = load_objects(MULTI_DOC)
    objects[1].spec.node_name = "n1"
    again = load_objects(dump_objects(objects))
    assert [o.to_dict() for o in again] == [o.to_dict() for o in objects]
    assert again[1].spec.node_name == "n1"


def test_the_oracle_scenarios_load():
    paths = sorted(ORACLE.glob("*/objects.yaml"))
    assert len(paths) == 3
    for path in paths:
        objects = load_objects(path.read_text())
        assert {o.kind for o in objects} <= {"Node", "Pod", "PriorityClass"}


def test_priority_class():
    pc = parse_object(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
            "globalDefault": True,
        }
    )
    assert isinstance(pc, PriorityClass)
    assert (pc.value, pc.global_default, pc.preemption_policy) == (
        1000,
        True,
        "PreemptLowerPriority",
    )
    assert pc.namespace == ""


def test_namespace_keeps_its_labels():
    ns = parse_object(
        {"kind": "Namespace", "metadata": {"name": "team", "labels": {"env": "prod"}}}
    )
    assert isinstance(ns, Namespace)
    assert ns.labels == {"env": "prod"}


def test_persistent_volume():
    pv = parse_object(
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1"},
            "spec": {
                "capacity": {"storage": "10Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "fast",
                "claimRef": {"namespace": "default", "name": "data"},
                "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["a"]}
                                ]
                            }
                        ]
                    }
                },
            },
            "status": {"phase": "Bound"},
        }
    )
    assert isinstance(pv, PersistentVolume)
    assert pv.spec.capacity["storage"] == Quantity.parse("10Gi")
    assert pv.spec.claim_ref.name == "data"
    assert pv.spec.csi_driver == "ebs.csi.aws.com"
    assert pv.spec.source_kind == "csi"
    assert pv.spec.volume_mode == "Filesystem"
    assert pv.phase == "Bound"
    assert pv.spec.node_affinity.node_selector_terms[0].match_expressions[0].key == "zone"


def test_persistent_volume_claim_distinguishes_no_class_from_empty_class():
    def claim(spec):
        return parse_object(
            {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": spec}
        )

    assert claim({}).spec.storage_class_name is None
    assert claim({"storageClassName": ""}).spec.storage_class_name == ""
    full = claim(
        {
            "storageClassName": "fast",
            "volumeName": "pv1",
            "resources": {"requests": {"storage": "1Gi"}},
        }
    )
    assert isinstance(full, PersistentVolumeClaim)
    assert full.spec.requests == {"storage": Quantity.parse("1Gi")}
    assert (full.spec.volume_name, full.phase, full.namespace) == ("pv1", "Pending", "default")


def test_storage_class_defaults_to_immediate_binding():
    sc = parse_object(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "fast"},
            "provisioner": "p",
            "allowedTopologies": [
                {"matchLabelExpressions": [{"key": "zone", "values": ["a", "b"]}]}
            ],
        }
    )
    assert isinstance(sc, StorageClass)
    assert sc.volume_binding_mode == "Immediate"
    assert sc.allowed_topologies[0].match_label_expressions[0].values == ("a", "b")


def test_csi_node_drivers():
    node = parse_object(
        {
            "kind": "CSINode",
            "metadata": {"name": "n1"},
            "spec": {
                "drivers": [
                    {
                        "name": "d",
                        "nodeID": "i-1",
                        "topologyKeys": ["zone"],
                        "allocatable": {"count": 25},
                    },
                    {"name": "e", "nodeID": "i-1"},
                ]
            },
        }
    )
    assert isinstance(node, CSINode)
    assert [(d.name, d.allocatable_count) for d in node.drivers] == [("d", 25), ("e", None)]
    assert node.drivers[0].topology_keys == ["zone"]


def test_pod_disruption_budget():
    pdb = parse_object(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "b", "namespace": "team"},
            "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}},
            "status": {"disruptionsAllowed": 1, "disruptedPods": {"p1": "2025-01-01T00:00:00Z"}},
        }
    )
    assert isinstance(pdb, PodDisruptionBudget)
    assert (pdb.min_available, pdb.max_unavailable, pdb.disruptions_allowed) == ("50%", None, 1)
    assert pdb.selector.matches({"app": "web"})
    assert list(pdb.disrupted_pods) == ["p1"]


@pytest.mark.parametrize("kind", ["ReplicaSet", "StatefulSet"], ids=["replica set", "stateful set"])
def test_apps_workloads_have_a_selector_and_default_one_replica(kind):
    obj = parse_object(
        {
            "apiVersion": "apps/v1",
            "kind": kind,
            "metadata": {"name": "w"},
            "spec": {"selector": {"matchLabels": {"app": "w"}}},
        }
    )
    assert isinstance(obj, ReplicaSet | StatefulSet)
    assert obj.replicas == 1
    assert obj.selector.match_labels == {"app": "w"}


def test_service_selector():
    svc = parse_object(
        {"kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"app": "web"}}}
    )
    assert isinstance(svc, Service)
    assert svc.selector == {"app": "web"}


def test_replication_controller_selector_defaults_to_template_labels():
    rc = parse_object(
        {
            "kind": "ReplicationController",
            "metadata": {"name": "rc"},
            "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "x"}}}},
        }
    )
    assert isinstance(rc, ReplicationController)
    assert (rc.selector, rc.replicas) == ({"app": "x"}, 3)


def test_runtime_class_overhead_and_scheduling():
    rc = parse_object(
        {
            "apiVersion": "node.k8s.io/v1",
            "kind": "RuntimeClass",
            "metadata": {"name": "kata"},
            "handler": "kata",
            "overhead": {"podFixed": {"cpu": "250m"}},
            "scheduling": {
                "nodeSelector": {"runtime": "kata"},
                "tolerations": [{"key": "kata", "operator": "Exists"}],
            },
        }
    )
    assert isinstance(rc, RuntimeClass)
    assert rc.overhead == {"cpu": Quantity.parse("250m")}
    assert rc.node_selector == {"runtime": "kata"}
    assert rc.tolerations[0].key == "kata"
