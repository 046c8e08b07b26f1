"""A workspace whose revision turns on GenericWorkload and GangScheduling runs the pod-group
cycle in its scheduler service: a gang's members bound through binding tasks, the PodGroup's
PodGroupScheduled condition written to the workspace's store, and a failed gang's endless
retries (upstream retries it without pause) stored as a few rows with repeat counts."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from playground.scheduling.service import SchedulerService
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, SchedulingAttempt
from playground.workspaces.services import demo_workspace
from tests.playground.scheduling.manifests import node_manifest, pod_group_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db

MINIMAL = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
GANG_GATES = "GangScheduling=true,GenericWorkload=true"
GANG_WAITS = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or "
    "more plugins asked to wait and no plugin rejected pod"
)


def member(name: str, group: str, cpu: str) -> dict:
    return pod_manifest(name, cpu=cpu, schedulingGroup={"podGroupName": group})


@pytest.fixture
def gang_workspace(workspace):
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text=MINIMAL, feature_gates=GANG_GATES
    )
    return workspace


def gang(cluster, size: int, cpu: str, workers: int) -> None:
    """``workers`` nodes of 4 CPUs, a gang of ``size`` pods asking ``cpu`` each."""
    for index in range(workers):
        cluster.add(node_manifest(f"w{index}", cpu="4"))
    cluster.add(pod_group_manifest("trainer", size))
    for index in range(size):
        cluster.add(member(f"trainer-{index}", "trainer", cpu))


def started_with_gang(make_service, cluster, size: int, cpu: str):
    """A started service of a workspace with two workers and the gang."""
    gang(cluster, size, cpu, workers=2)
    service = make_service()
    service.start()
    return service


def nodes_of(cluster, gang: str, size: int, namespace: str = "default") -> list[str]:
    """The nodes the gang's members are bound to ("" for one not bound)."""
    return [cluster.get("Pod", f"{gang}-{i}", namespace).spec.node_name for i in range(size)]


def scheduled_condition(cluster) -> dict:
    group = cluster.get("PodGroup", "trainer", "default")
    (condition,) = group.manifest["status"]["conditions"]
    return {key: condition[key] for key in ("type", "status", "reason", "message")}


def tick(service, binding_tasks, times: int) -> None:
    for _ in range(times):
        assert service.tick()
        binding_tasks.run_all()


def test_a_gang_that_fits_is_bound_whole_and_its_group_scheduled(
    make_service, gang_workspace, cluster, binding_tasks
):
    service = started_with_gang(make_service, cluster, 4, "2")

    settle(service, binding_tasks)

    assert sorted(nodes_of(cluster, "trainer", 4)) == ["w0", "w0", "w1", "w1"]
    assert len(binding_tasks.batches) >= 1
    assert scheduled_condition(cluster) == {
        "type": "PodGroupScheduled",
        "status": "True",
        "reason": "Scheduled",
        "message": "",
    }
    results = SchedulingAttempt.objects.values_list("result", flat=True)
    assert sorted(results) == ["Scheduled"] * 4


def test_a_gang_one_pod_short_binds_nothing_and_its_group_is_unschedulable(
    make_service, gang_workspace, cluster, binding_tasks
):
    service = started_with_gang(make_service, cluster, 3, "3")

    tick(service, binding_tasks, 5)

    assert nodes_of(cluster, "trainer", 3) == ["", "", ""]
    assert binding_tasks.batches == []
    assert scheduled_condition(cluster) == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "pod group is unschedulable",
    }
    messages = set(SchedulingAttempt.objects.values_list("message", flat=True))
    assert GANG_WAITS in messages
    assert any(m.startswith("0/2 nodes are available: 2 Insufficient cpu.") for m in messages)


def test_a_failed_gang_retried_without_pause_stores_a_bounded_number_of_rows(
    make_service, gang_workspace, cluster, binding_tasks
):
    service = started_with_gang(make_service, cluster, 3, "3")

    tick(service, binding_tasks, 150)  # a gang's retry a tick: they are paced
    assert not service.busy  # ticks that only repeat attempts let the service rest between them
    service.stop()  # writes the latest repeat counts (written at most once a second before)

    rows = SchedulingAttempt.objects.all()
    made = rows.aggregate(made=Sum("repeats"))["made"]
    assert made > 300  # the gang was retried over and over...
    assert rows.count() <= 6  # ...and each member's outcomes stored once or twice
    folded = rows.filter(repeats__gt=1).first()
    assert folded.last_attempted >= folded.created


def test_the_demo_shows_a_gang_bound_whole_and_a_gang_one_pod_short(
    user, clock, sent, binding_tasks
):
    demo = demo_workspace(user)
    service = SchedulerService(
        demo.pk,
        "worker-a",
        clock=clock,
        dispatch=binding_tasks,
        status_interval=0.0,
        background_writes=False,
    )
    service.start()

    tick(service, binding_tasks, 30)  # never idle: the bert gang is retried for ever
    bert_rows = SchedulingAttempt.objects.filter(workspace=demo, pod_key__startswith="training/b")
    stored = bert_rows.count()
    tick(service, binding_tasks, 30)
    service.stop()

    cluster = DatabaseCluster(demo)
    resnet = nodes_of(cluster, "resnet", 4, "training")
    assert sorted(resnet) == ["t-train-1", "t-train-1", "t-train-2", "t-train-2"]
    assert nodes_of(cluster, "bert", 3, "training") == ["", "", ""]
    conditions = {
        name: cluster.get("PodGroup", name, "training").condition("PodGroupScheduled")
        for name in ("resnet", "bert")
    }
    assert (conditions["resnet"].status, conditions["resnet"].reason) == ("True", "Scheduled")
    assert (conditions["bert"].status, conditions["bert"].reason) == ("False", "Unschedulable")
    # The rest of the demo is placed as before (the gangs' nodes are tainted for them).
    checkout = cluster.get("Node", cluster.get("Pod", "checkout", "shop").spec.node_name)
    assert checkout.labels["topology.kubernetes.io/zone"] == "zone-b"
    # Retried many times more, stored as the same rows.
    assert bert_rows.count() == stored
    assert sum(bert_rows.values_list("repeats", flat=True)) > 2 * stored


def test_pods_outside_groups_retried_together_keep_the_ticks_full_pace(
    make_service, gang_workspace, cluster, clock, binding_tasks
):
    """Only a pod group's repeats are paced: pods sent back to the queue together (here the
    queue's flush of pods unschedulable for 5 minutes), failing as before, are all tried in
    the one tick."""
    cluster.add(node_manifest("w0", cpu="4"))
    for index in range(3):
        cluster.add(pod_manifest(f"big-{index}", cpu="8"))
    service = make_service()
    service.start()
    tick(service, binding_tasks, 2)
    assert set(SchedulingAttempt.objects.values_list("result", flat=True)) == {"Unschedulable"}

    clock.step(301.0)  # podMaxInUnschedulablePodsDuration: all three back in the queue
    before = service.cycles
    assert service.tick()

    assert service.cycles - before == 3
    assert SchedulingAttempt.objects.count() == 3, "the repeats were folded"
