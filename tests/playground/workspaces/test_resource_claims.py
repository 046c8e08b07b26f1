"""The ResourceClaim controller's work applied when the playground stores a new pod."""

from __future__ import annotations

from framework.api.loader import load_objects
from framework.cluster.memory import InMemoryCluster
from framework.cluster.resource_claim_controller import ResourceClaimController
from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.metrics import Metrics
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.feature import Features
from framework.util.clock import FakeClock

OBJECTS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  containers: [{name: c, image: trainer}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
"""


def claim_names(pod) -> list[tuple[str, str | None]]:
    return [(s.name, s.resource_claim_name) for s in pod.status.resource_claim_statuses]


def test_a_new_pod_is_stored_with_its_claims_as_simulate_makes_them(cluster):
    stored = cluster.add_many(load_objects(OBJECTS))
    assert [o.kind for o in stored] == ["ResourceClaimTemplate", "Pod"]
    pod = cluster.get("Pod", "trainer", "default")
    [(name, claim_name)] = claim_names(pod)
    claim = cluster.get("ResourceClaim", claim_name, "default")
    assert claim.metadata.controller_ref().uid == pod.uid

    in_memory = InMemoryCluster(load_objects(OBJECTS))
    ResourceClaimController(in_memory).start()
    assert claim_names(in_memory.get("Pod", "trainer", "default")) == [(name, claim_name)]


def test_the_claim_is_created_before_the_pod_and_only_once(cluster):
    template, pod = load_objects(OBJECTS)
    cluster.add(template)
    cluster.add(pod)
    first = claim_names(cluster.get("Pod", "trainer", "default"))
    # Storing the pod again replaces it: the controller does not run for existing pods.
    cluster.add(cluster.get("Pod", "trainer", "default"))
    assert claim_names(cluster.get("Pod", "trainer", "default")) == first
    assert len(cluster.list("ResourceClaim")) == 1
    kinds = [change.new.kind for change in cluster.changes_since(0)]
    assert kinds.index("ResourceClaim") < kinds.index("Pod")


def test_a_pod_stored_before_its_template_gets_its_claim_when_the_template_is_stored(cluster):
    template, pod = load_objects(OBJECTS)
    cluster.create(pod)
    assert claim_names(cluster.get("Pod", "trainer", "default")) == []
    before = cluster.latest_change_id()
    assert cluster.create(template).kind == "ResourceClaimTemplate"
    stored = cluster.get("Pod", "trainer", "default")
    [(pod_claim, claim_name)] = claim_names(stored)
    assert pod_claim == "gpu"
    claim = cluster.get("ResourceClaim", claim_name, "default")
    assert claim.metadata.controller_ref().uid == stored.uid
    changes = [(c.event_type, c.new.kind) for c in cluster.changes_since(before)]
    assert changes == [
        ("ADDED", "ResourceClaimTemplate"),
        ("ADDED", "ResourceClaim"),
        ("MODIFIED", "Pod"),
    ]
    # Storing the template again makes nothing more.
    cluster.add(cluster.get("ResourceClaimTemplate", "one-gpu", "default"))
    assert len(cluster.list("ResourceClaim")) == 1


def test_a_deleted_pods_claims_are_released_as_the_controller_releases_them(cluster, workspace):
    """Its generated claim goes, and a shared claim it held is no longer reserved for it (and,
    used by nobody, deallocated): otherwise its devices would stay taken for good."""
    shared = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": "shared",
            "namespace": "default",
            "finalizers": ["resource.kubernetes.io/delete-protection"],
        },
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "g"}}]}},
    }
    cluster.add_many([*load_objects(OBJECTS), shared])
    pod = cluster.get("Pod", "trainer", "default")
    [(_, generated)] = claim_names(pod)
    claim = cluster.get("ResourceClaim", "shared", "default").to_dict()
    claim["status"] = {
        "allocation": {"devices": {"results": []}},
        "reservedFor": [{"resource": "pods", "name": "trainer", "uid": pod.uid}],
    }
    cluster.update(claim)

    cluster.delete(pod)

    assert [c.name for c in cluster.list("ResourceClaim")] == ["shared"]
    released = cluster.get("ResourceClaim", "shared", "default")
    assert released.status.reserved_for == [] and released.status.allocation is None
    assert generated != "shared"


def test_pods_deleted_in_bulk_release_their_claims_too(cluster):
    cluster.add_many(load_objects(OBJECTS))
    pod = cluster.get("Pod", "trainer", "default")
    assert cluster.delete_many("Pod", [pod.uid]) == 1
    assert cluster.list("ResourceClaim") == []


EXTENDED_RESOURCE_OBJECTS = """\
apiVersion: v1
kind: Node
metadata: {name: dra-node}
status: {allocatable: {cpu: "4", pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {extendedResourceName: example.com/gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: dra-node-gpus}
spec:
  driver: gpu.example.com
  nodeName: dra-node
  pool: {name: dra-node, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  containers:
  - name: c
    image: trainer
    resources: {requests: {example.com/gpu: "1"}, limits: {example.com/gpu: "1"}}
"""


class _Handle:
    def __init__(self, cluster) -> None:
        self._cluster = cluster
        self.clock = FakeClock(1_767_225_600.0)
        self.metrics = Metrics()

    def cluster(self):
        return self._cluster


def test_the_store_takes_the_claim_dynamic_resources_creates_for_extended_resources(cluster):
    """PreBind creates the claim and writes the pod's extendedResourceClaimStatus through the
    store, as it does through simulate's in-memory cluster."""
    cluster.add_many(load_objects(EXTENDED_RESOURCE_OBJECTS))
    pod = cluster.get("Pod", "trainer", "default")
    node_info = NodeInfo()
    node_info.set_node(cluster.get("Node", "dra-node"))
    plugin = DynamicResources(DynamicResourcesArgs(), _Handle(cluster), Features.from_gates())
    state = CycleState()
    assert plugin.pre_filter(state, pod, [node_info])[1] is None
    assert plugin.filter(state, pod, node_info) is None
    assert plugin.reserve(state, pod, "dra-node") is None
    assert plugin.pre_bind(state, pod, "dra-node") is None

    [claim] = cluster.list("ResourceClaim")
    assert claim.name.startswith("trainer-extended-resources-")
    assert claim.metadata.controller_ref().uid == pod.uid
    assert [r.device for r in claim.status.allocation.results] == ["gpu-0"]
    assert [ref.uid for ref in claim.status.reserved_for] == [pod.uid]
    status = cluster.get("Pod", "trainer", "default").to_dict()["status"]
    assert status["extendedResourceClaimStatus"] == {
        "requestMappings": [
            {
                "containerName": "c",
                "resourceName": "example.com/gpu",
                "requestName": "container-0-request-0",
            }
        ],
        "resourceClaimName": claim.name,
    }


def test_a_deleted_pods_extended_resource_claim_goes_with_it(cluster):
    """The claim PreBind made for a pod's extended resources is owned by the pod: deleting
    the pod deletes it, so its devices are free again."""
    cluster.add_many(load_objects(EXTENDED_RESOURCE_OBJECTS))
    pod = cluster.get("Pod", "trainer", "default")
    node_info = NodeInfo()
    node_info.set_node(cluster.get("Node", "dra-node"))
    plugin = DynamicResources(DynamicResourcesArgs(), _Handle(cluster), Features.from_gates())
    state = CycleState()
    plugin.pre_filter(state, pod, [node_info])
    plugin.filter(state, pod, node_info)
    plugin.reserve(state, pod, "dra-node")
    assert plugin.pre_bind(state, pod, "dra-node") is None
    assert len(cluster.list("ResourceClaim")) == 1

    cluster.delete(cluster.get("Pod", "trainer", "default"))

    assert cluster.list("ResourceClaim") == []
