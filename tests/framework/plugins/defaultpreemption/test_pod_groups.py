"""DefaultPreemption and pod groups: members refused at PostFilter, PodGroupPostFilter for the
group, PreEnqueue while a group's victims go (upstream TestPostFilter's and TestPreEnqueue's
pod-group rows, and the pod-group rows of TestPrepareCandidate)."""

from __future__ import annotations

import pytest

from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus, NominatingInfo, NominatingMode
from framework.metrics import PREEMPTION_ATTEMPTS_TOTAL, Metrics
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    LOW_PRIORITY,
    ONE_POD,
    member,
    node,
    pod,
    pod_group,
)
from tests.framework.preemption.helpers import (
    default_preemption_args,
    fit,
    new_framework,
    run_pre_filter,
)

TAS = Features(enable_topology_aware_workload_scheduling=True)
WAP = Features(enable_workload_aware_preemption=True)
TAS_WAP = Features(
    enable_topology_aware_workload_scheduling=True, enable_workload_aware_preemption=True
)
WORKLOAD_AWARE = "preemption: not eligible due to workload aware preemption enabled"
PLACEMENT_BASED = "preemption: not eligible due to placement-based pod group scheduling limitation"


def topology_group(name: str):
    group = pod_group(name)
    group.spec.topology_keys = ["rack"]
    return group


@pytest.mark.parametrize(
    ("features", "groups", "want"),
    [
        (TAS, [topology_group("foo")], Status(Code.UNSCHEDULABLE, PLACEMENT_BASED)),
        (TAS_WAP, [topology_group("foo")], Status(Code.UNSCHEDULABLE, PLACEMENT_BASED)),
        (TAS, [pod_group("foo")], Status(Code.SUCCESS)),
        (TAS_WAP, [pod_group("foo")], Status(Code.UNSCHEDULABLE, WORKLOAD_AWARE)),
        (WAP, [], Status(Code.UNSCHEDULABLE, WORKLOAD_AWARE)),
        (Features(), [], Status(Code.SUCCESS)),
        (TAS, [], Status(Code.UNSCHEDULABLE, "preemption: pod group for pod not found")),
    ],
    ids=[
        "with TAS a group with a scheduling constraint does not preempt",
        "with TAS a group with a scheduling constraint does not preempt, WAP or not",
        "with TAS a group without scheduling constraint preempts",
        "with TAS and WAP a group without scheduling constraint leaves it to the group",
        "with WAP a member does not preempt",
        "without TAS and WAP a member preempts as any pod",
        "with TAS a member of a missing group does not preempt",
    ],
)
def test_post_filter_for_a_pod_group_member(features, groups, want):
    preemptor = member("p-with-podgroup", "foo", priority=HIGH_PRIORITY)
    fwk = new_framework(
        [pod("p1", node="node1")], [node("node1", ONE_POD)], [fit()], objects=[preemptor, *groups]
    )
    plugin = DefaultPreemption(default_preemption_args(), fwk, features)

    result, status = plugin.post_filter(
        run_pre_filter(fwk, preemptor),
        preemptor,
        NodeToStatus(
            {"node1": Status(Code.UNSCHEDULABLE)}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        ),
    )

    assert (status.code, status.message()) == (want.code, want.message())
    if want.is_success():
        assert result.nominating_info == NominatingInfo("node1", NominatingMode.OVERRIDE)
        assert fwk.cluster().deleted() == ["p1"]
    else:
        assert result is None
        assert fwk.cluster().deleted() == []


def test_every_post_filter_counts_as_a_preemption_attempt():
    preemptor = member("p", "foo", priority=HIGH_PRIORITY)
    fwk = new_framework([], [node("node1", ONE_POD)], [fit()], objects=[preemptor])
    fwk.metrics = Metrics()
    plugin = DefaultPreemption(default_preemption_args(), fwk, WAP)

    for _ in range(2):
        plugin.post_filter(run_pre_filter(fwk, preemptor), preemptor, NodeToStatus({}))

    assert fwk.metrics.value(PREEMPTION_ATTEMPTS_TOTAL) == 2


WAITING_FOR_GROUP = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "waiting for the preemption for this pod group to be finished",
)


@pytest.mark.parametrize(
    ("features", "groups", "to_check", "want"),
    [
        (
            Features(enable_async_preemption=True, enable_workload_aware_preemption=True),
            ["pg1"],
            member("p_other", "pg1", priority=HIGH_PRIORITY),
            WAITING_FOR_GROUP,
        ),
        (
            Features(enable_async_preemption=True),
            ["pg1"],
            member("p_other", "pg1", priority=HIGH_PRIORITY),
            None,
        ),
        (
            Features(enable_async_preemption=True, enable_workload_aware_preemption=True),
            ["pg1", "pg2"],
            member("p_other", "pg2", priority=HIGH_PRIORITY),
            None,
        ),
        (
            Features(enable_async_preemption=True, enable_workload_aware_preemption=True),
            ["pg1"],
            member("p_other", "pg_missing", priority=HIGH_PRIORITY),
            None,
        ),
    ],
    ids=[
        "WAP enabled, pod in same PodGroup, returns UnschedulableAndUnresolvable",
        "WAP disabled, pod in same PodGroup, returns nil",
        "WAP enabled, pod in different PodGroup, returns nil",
        "WAP enabled, pod group not found, returns nil",
    ],
)
def test_pre_enqueue_while_a_group_preempts(features, groups, to_check, want):
    trigger = member("p", "pg1", priority=HIGH_PRIORITY)
    objects = [pod_group(name, priority=HIGH_PRIORITY) for name in groups]
    fwk = new_framework(
        [pod("p1", node="node1")], [node("node1", ONE_POD)], [fit()], objects=[trigger, *objects]
    )
    plugin = DefaultPreemption(default_preemption_args(), fwk, features)
    seen: list[Status | None] = []
    # Ask PreEnqueue from inside the eviction, where upstream's test blocks its goroutine.
    plugin.executor.preempt_pod = lambda candidate, preemptor, victim, name: seen.append(
        plugin.pre_enqueue(to_check)
    )

    if features.enable_workload_aware_preemption:
        node1 = fwk.snapshot_shared_lister().node_infos().get("node1")
        status = plugin.pod_group_post_filter(
            objects[0],
            [trigger],
            lambda: None if not node1.pods else Status(Code.UNSCHEDULABLE, "need to preempt"),
        )
        assert status is None
    else:
        plugin.post_filter(
            run_pre_filter(fwk, trigger),
            trigger,
            NodeToStatus({"node1": Status(Code.UNSCHEDULABLE)}),
        )

    assert seen == [want]
    assert plugin.pre_enqueue(to_check) is None


def test_a_groups_victims_are_marked_deleted_and_told_who_preempted_them():
    group = pod_group("pg1", priority=HIGH_PRIORITY)
    trigger = member("p", "pg1", priority=HIGH_PRIORITY)
    victim = pod("victim1", node="node1", priority=LOW_PRIORITY)
    fwk = new_framework([victim], [node("node1", ONE_POD)], [fit()], objects=[group, trigger])
    plugin = DefaultPreemption(default_preemption_args(), fwk, WAP)
    node1 = fwk.snapshot_shared_lister().node_infos().get("node1")

    status = plugin.pod_group_post_filter(
        group, [trigger], lambda: None if not node1.pods else Status(Code.UNSCHEDULABLE)
    )

    assert status is None
    cluster = fwk.cluster()
    assert cluster.writes == [
        (
            "patch",
            "victim1",
            {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": "PreemptionByScheduler",
                "message": "default-scheduler: preempting to accommodate a higher priority "
                "podgroup",
            },
        ),
        ("delete", "victim1", None),
    ]
    (event,) = [e for e in cluster.events if e["reason"] == "Preempted"]
    assert event["note"] == "Preempted by podgroup pg1 on node cluster"
    assert (event["regarding"]["name"], event["related"]["kind"]) == ("victim1", "PodGroup")
    # The evaluator took the victim out of the snapshot: the caller restores its backup.
    assert node1.pods == []


def test_pod_group_post_filter_needs_the_gate():
    fwk = new_framework([], [node("node1")])
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features())
    with pytest.raises(RuntimeError):
        plugin.pod_group_post_filter(pod_group("pg1"), [], lambda: None)
