"""DynamicResources run by the framework: a pod without claims, as in every default profile, and
a simulation of DRA extended resources."""

from __future__ import annotations

from pathlib import Path

from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.interface.types import NodeToStatus
from framework.plugins import names
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.simulator import Simulation
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.builders import StaticLister, make_node_info, make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import minimal, profile
from tests.framework.storage.builders import WritableCluster

NODES = [make_node_info("node-a"), make_node_info("node-b")]


def framework() -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.DYNAMIC_RESOURCES, InTree(DynamicResources).factory())
    point = [names.DYNAMIC_RESOURCES]
    points = minimal(
        pre_enqueue=point,
        pre_filter=point,
        filter=point,
        post_filter=point,
        score=[(names.DYNAMIC_RESOURCES, 1)],
        reserve=point,
        pre_bind=point,
    )
    return Framework(
        registry,
        profile(plugin_config={names.DYNAMIC_RESOURCES: DynamicResourcesArgs()}, **points),
        snapshot_shared_lister=StaticLister(NODES),
        cluster=WritableCluster(),
    )


def test_a_pod_without_claims_passes_through_with_zero_scores():
    fwk = framework()
    pod = make_pod("web")
    state = CycleState()
    assert fwk.run_pre_enqueue_plugins(pod) is None
    _, status, _ = fwk.run_pre_filter_plugins(state, pod)
    assert status is None or status.is_success()
    assert names.DYNAMIC_RESOURCES in state.skip_filter_plugins
    scores = fwk.run_score_plugins(state, pod, NODES)
    assert [node.total_score for node in scores[0]] == [0, 0]
    assert fwk.run_pre_bind_pre_flights(state, pod, "node-a").is_skip()


def test_post_filter_adds_no_new_claims_to_deallocate_to_the_failure():
    fwk = framework()
    pod = make_pod("web")
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    _, status = fwk.run_post_filter_plugins(state, pod, NodeToStatus())
    assert status.code == Code.UNSCHEDULABLE
    assert status.reasons == ["no new claims to deallocate"]


def test_simulate_creates_the_extended_resource_claims_of_the_example():
    """examples/dra-extended-resources: the claims PreBind created and the pods' statuses."""
    directory = Path(__file__).resolve().parents[4] / "examples" / "dra-extended-resources"
    simulation = Simulation(
        str(directory / "config.yaml"), (directory / "objects.yaml").read_text()
    )
    simulation.run()
    cluster = simulation.cluster
    claims = {c.name: c for c in cluster.list("ResourceClaim")}
    assert sorted(claims) == [
        "implicit-extended-resources-h5zn6",
        "two-gpus-extended-resources-5ffkp",
    ]
    two_gpus = claims["two-gpus-extended-resources-5ffkp"]
    assert [(r.request, r.device) for r in two_gpus.status.allocation.results] == [
        ("container-0-request-1", "gpu-0"),
        ("container-0-request-1", "gpu-1"),
    ]
    pod = cluster.get("Pod", "two-gpus", "default")
    assert two_gpus.metadata.controller_ref().uid == pod.uid
    assert pod.to_dict()["status"]["extendedResourceClaimStatus"] == {
        "requestMappings": [
            {
                "containerName": "train",
                "resourceName": "example.com/gpu",
                "requestName": "container-0-request-1",
            }
        ],
        "resourceClaimName": "two-gpus-extended-resources-5ffkp",
    }
    assert "extendedResourceClaimStatus" not in (
        cluster.get("Pod", "one-gpu", "default").to_dict().get("status") or {}
    )


BINDING_CONDITIONS_OBJECTS = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: fabric}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-fabric}
spec:
  driver: fabric.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices:
  - name: dev-0
    bindsToNode: true
    bindingConditions: [attached]
    bindingFailureConditions: [failed]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: fabric}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: r, resourceClaimName: c}]
"""


def test_a_simulation_does_not_wait_for_binding_conditions_no_driver_sets():
    """PreBind ends at once with upstream's timeout error; the wait does not move the clock."""
    config = Path(__file__).resolve().parents[4] / "examples" / "dra-gpus" / "config.yaml"
    simulation = Simulation(str(config), BINDING_CONDITIONS_OBJECTS)
    start = simulation.clock.now()
    [report] = simulation.run()
    assert report.to_dict()["message"] == (
        'running PreBind plugin "DynamicResources": device binding timeout: context deadline '
        "exceeded"
    )
    assert [e["reason"] for e in simulation.cluster.events] == [
        "BindingConditionsPending",
        "FailedScheduling",
    ]
    # The simulator's own step of a millisecond per cycle, not the 600 seconds of the wait.
    assert simulation.clock.now() < start + 1
    allocation = simulation.cluster.get("ResourceClaim", "c", "default").status.allocation
    assert [r.binding_conditions for r in allocation.results] == [["attached"]]
