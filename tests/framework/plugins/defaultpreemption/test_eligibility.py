"""Who may preempt (upstream TestPodEligibleToPreemptOthers), with the reasons it gives."""

from __future__ import annotations

import pytest

from framework.interface.status import Code, Status
from framework.plugins.defaultpreemption.default_preemption import (
    DefaultPreemption,
    pod_terminating_by_preemption,
)
from framework.plugins.feature import Features
from tests.framework.preemption.builders import HIGH_PRIORITY, LOW_PRIORITY, node, pod
from tests.framework.preemption.helpers import default_preemption_args, new_framework

BY_SCHEDULER = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
UNTOLERATED = "node(s) had untolerated taint(s)"

CASES = [
    (
        "a pod whose nominated node is unschedulable and unresolvable may preempt again",
        pod("p_with_nominated_node", uid="p", priority=HIGH_PRIORITY, nominated_node="node1"),
        [pod("p1", priority=LOW_PRIORITY, node="node1", terminating=True)],
        ["node1"],
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, UNTOLERATED),
        (True, ""),
    ),
    (
        "a pod without a nominated node may preempt",
        pod("p_without_nominated_node", uid="p", priority=HIGH_PRIORITY),
        [],
        [],
        None,
        (True, ""),
    ),
    (
        "a pod with preemptionPolicy Never may not preempt",
        pod(
            "p_with_preempt_never_policy",
            uid="p",
            priority=HIGH_PRIORITY,
            preemption_policy="Never",
        ),
        [],
        [],
        None,
        (False, "not eligible due to preemptionPolicy=Never."),
    ),
    (
        "a pod waits while a victim it preempted on its nominated node terminates",
        pod("p_with_nominated_node", uid="p", priority=HIGH_PRIORITY, nominated_node="node1"),
        [
            pod(
                "p1",
                priority=LOW_PRIORITY,
                node="node1",
                terminating=True,
                conditions=BY_SCHEDULER,
            )
        ],
        ["node1"],
        None,
        (False, "not eligible due to a terminating pod on the nominated node."),
    ),
    (
        "terminating pods that were not preempted by the scheduler do not hold it back",
        pod("p_with_nominated_node", uid="p", priority=HIGH_PRIORITY, nominated_node="node1"),
        [pod("p1", priority=LOW_PRIORITY, node="node1", terminating=True)],
        ["node1"],
        None,
        (True, ""),
    ),
    (
        "a nominated node that no longer exists does not hold it back",
        pod("p_with_nominated_node", uid="p", priority=HIGH_PRIORITY, nominated_node="gone"),
        [],
        ["node1"],
        None,
        (True, ""),
    ),
]


@pytest.mark.parametrize(
    ("preemptor", "pods", "node_names", "nominated_status", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_eligibility_to_preempt_others(
    preemptor, pods, node_names, nominated_status, expected
) -> None:
    fwk = new_framework(pods, [node(n) for n in node_names])
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features())

    assert plugin.pod_eligible_to_preempt_others(preemptor, nominated_status) == expected


@pytest.mark.parametrize(
    ("victim", "expected"),
    [
        (pod("v", terminating=True, conditions=BY_SCHEDULER), True),
        (pod("v", conditions=BY_SCHEDULER), False),
        (pod("v", terminating=True), False),
        (
            pod(
                "v",
                terminating=True,
                conditions=[{**BY_SCHEDULER[0], "reason": "EvictionByEvictionAPI"}],
            ),
            False,
        ),
        (pod("v", terminating=True, conditions=[{**BY_SCHEDULER[0], "status": "False"}]), False),
    ],
    ids=[
        "terminating with the scheduler's DisruptionTarget condition",
        "the condition without a deletion",
        "a deletion without the condition",
        "a DisruptionTarget for another reason",
        "a DisruptionTarget that is not true",
    ],
)
def test_only_pods_the_scheduler_preempted_count_as_terminating_by_preemption(
    victim, expected
) -> None:
    assert pod_terminating_by_preemption(victim) is expected
