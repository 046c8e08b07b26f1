"""The demo workspace: its cluster, and what the scheduler makes of it."""

from __future__ import annotations

import pytest

from framework.config.defaults import default_configuration
from framework.features import FeatureGates
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.simulator import SIMULATION_EPOCH
from framework.util.clock import FakeClock
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.demo import FEATURE_GATES
from playground.workspaces.services import demo_workspace

FAILED_GANG_CYCLES = 60
"""Enough for every other pod (their 20 attempts are all made within 40 cycles, as within 300):
a gang one pod short is retried without pause, for ever, and each of its cycles writes to the
database (300 cycles made this fixture take 10-40 s, for each of the tests that use it)."""


@pytest.fixture
def demo(user):
    return demo_workspace(user)


@pytest.fixture
def scheduled(demo):
    """Every attempt of a scheduler started on the demo, by pod."""
    cluster = DatabaseCluster(demo)
    attempts = {}
    features = FeatureGates.from_string(FEATURE_GATES)
    scheduler = Scheduler.from_configuration(
        default_configuration(features),
        cluster,
        in_tree_registry(),
        clock=FakeClock(SIMULATION_EPOCH),
        seed=0,
        on_attempt=lambda a: attempts.setdefault(a.pod, []).append(a),
        features=features,
    )
    with cluster.consistent_read():
        scheduler.start()
    scheduler.run_until_idle(max_cycles=FAILED_GANG_CYCLES)  # the bert gang is never idle
    return cluster, attempts


def test_the_demo_has_three_zones_of_mixed_nodes(demo):
    nodes = DatabaseCluster(demo).list("Node")
    zones = {n.labels["topology.kubernetes.io/zone"] for n in nodes}
    sizes = {n.labels["node.kubernetes.io/instance-type"] for n in nodes}
    assert zones == {"zone-a", "zone-b", "zone-c"}
    assert sizes == {"small", "medium", "large", "gpu", "train"}
    assert sum(bool(n.spec.taints) for n in nodes) == 7


def test_the_demo_describes_a_gpu_pool_with_resource_slices(demo):
    """One GPU node counts its GPUs with a device plugin, the other publishes them for DRA."""
    cluster = DatabaseCluster(demo)
    assert cluster.get("Node", "c-gpu-1").status.allocatable["nvidia.com/gpu"].value() == 4
    assert "nvidia.com/gpu" not in cluster.get("Node", "c-gpu-2").status.allocatable
    [pool] = cluster.list("ResourceSlice")
    assert (pool.spec.node_name, pool.spec.driver) == ("c-gpu-2", "gpu.nvidia.com")
    assert [d.name for d in pool.spec.devices] == ["gpu-0", "gpu-1", "gpu-2"]
    assert [c.name for c in cluster.list("DeviceClass")] == ["gpu.nvidia.com"]
    [claim] = cluster.list("ResourceClaim", "default")
    assert claim.name.startswith("finetune-gpu-")
    assert claim.status.allocation is None


def test_the_demo_has_running_and_pending_pods_a_service_and_priority_classes(demo):
    cluster = DatabaseCluster(demo)
    pods = cluster.list("Pod")
    running = [p for p in pods if p.spec.node_name]
    assert len(running) == 5
    assert len(pods) - len(running) == 18
    assert [s.name for s in cluster.list("Service")] == ["web"]
    assert {c.name: c.value for c in cluster.list("PriorityClass")} == {
        "production": 1000,
        "batch": 100,
    }
    assert cluster.get("Pod", "coredns-1", "kube-system").spec.priority == 2000000000


def test_the_demo_is_created_once(user):
    first = demo_workspace(user)
    assert demo_workspace(user) == first
    assert len(DatabaseCluster(first).list("Node")) == 14


def test_the_scheduler_spreads_the_web_pods_over_the_zones(scheduled):
    cluster, _ = scheduled
    nodes = [cluster.get("Pod", f"web-{i}", "shop").spec.node_name for i in range(4)]
    zones = {cluster.get("Node", n).labels["topology.kubernetes.io/zone"] for n in nodes}
    assert zones == {"zone-a", "zone-b", "zone-c"}


@pytest.mark.parametrize(
    ("pod", "outcome"),
    [
        ("shop/checkout", "zone-b"),
        ("default/trainer", "c-gpu-1"),
        ("default/finetune", "c-gpu-2"),
        ("default/render", "c-gpu-2"),
        ("shop/urgent", "c-medium-1"),
        ("batch/huge", "Unschedulable"),
    ],
    ids=[
        "a pod pinned to a zone lands there",
        "the gpu pod lands on the tainted gpu node",
        "the pod claiming an h100 lands on the node whose slice has one",
        "the pod asking for a gpu only dra serves lands on the dra node",
        "the urgent pod preempts a batch pod",
        "a pod too big for any node stays pending",
    ],
)
def test_each_pending_pod_shows_off_something(scheduled, pod, outcome):
    cluster, attempts = scheduled
    namespace, name = pod.split("/")
    node = cluster.get("Pod", name, namespace).spec.node_name
    if outcome == "Unschedulable":
        assert node == ""
        assert attempts[pod][-1].result == "Unschedulable"
    elif outcome.startswith("zone-"):
        assert cluster.get("Node", node).labels["topology.kubernetes.io/zone"] == outcome
    else:
        assert node == outcome


def test_the_h100_claim_is_allocated_and_reserved_for_its_pod(scheduled):
    cluster, _ = scheduled
    [claim] = [c for c in cluster.list("ResourceClaim", "default") if "finetune" in c.name]
    [result] = claim.status.allocation.results
    assert (result.driver, result.pool, result.device) == ("gpu.nvidia.com", "c-gpu-2", "gpu-2")
    finetune = cluster.get("Pod", "finetune", "default")
    assert [ref.name for ref in claim.status.reserved_for] == ["finetune"]
    assert [s.resource_claim_name for s in finetune.status.resource_claim_statuses] == [claim.name]


def test_the_extended_resource_claim_holds_an_a100_for_the_render_pod(scheduled):
    """No device plugin reports the class's implicit resource name: the scheduler made a
    claim for it in PreBind and recorded it in the pod's status."""
    cluster, _ = scheduled
    render = cluster.get("Pod", "render", "default")
    status = render.to_dict()["status"]["extendedResourceClaimStatus"]
    claim = cluster.get("ResourceClaim", status["resourceClaimName"], "default")
    assert claim.name.startswith("render-extended-resources-")
    [result] = claim.status.allocation.results
    assert (result.pool, result.device) == ("c-gpu-2", "gpu-0")
    assert [m["resourceName"] for m in status["requestMappings"]] == [
        "deviceclass.resource.kubernetes.io/gpu.nvidia.com"
    ]


def test_the_preempted_batch_pod_is_gone_and_the_gated_pod_never_tried(scheduled):
    cluster, attempts = scheduled
    assert cluster.get("Pod", "report-2", "batch") is None
    assert "batch/nightly" not in attempts
    assert cluster.get("Pod", "nightly", "batch").spec.node_name == ""


def test_the_demo_runs_with_the_gang_gates_and_holds_two_gangs(demo):
    assert demo.current_configuration().feature_gates == "GangScheduling=true,GenericWorkload=true"
    assert "name: GangScheduling" in demo.current_configuration().text
    groups = DatabaseCluster(demo).list("PodGroup", "training")
    assert {g.name: g.spec.scheduling_policy.min_count for g in groups} == {"resnet": 4, "bert": 3}


def test_the_gang_that_fits_is_bound_whole_and_the_one_short_not_at_all(scheduled):
    cluster, attempts = scheduled
    resnet = [cluster.get("Pod", f"resnet-{i}", "training").spec.node_name for i in range(4)]
    bert = [cluster.get("Pod", f"bert-{i}", "training").spec.node_name for i in range(3)]
    assert sorted(resnet) == ["t-train-1", "t-train-1", "t-train-2", "t-train-2"]
    assert bert == ["", "", ""]
    assert len(attempts["training/bert-0"]) > 10  # retried over and over
