"""PodGroupScheduled as kube-scheduler sets it: the facts of upstream's
TestUpdatePodGroupCondition (schedule_one_podgroup_test.go), lastTransitionTime aside (not
kept here, docs/fidelity.md)."""

from __future__ import annotations

import pytest

from framework.api.pod_group import POD_GROUP_SCHEDULED, Condition, PodGroup
from framework.cluster.memory import InMemoryCluster
from framework.interface.pod_group_info import QueuedPodGroupInfo
from framework.scheduler.schedule_one_podgroup import ScheduleOnePodGroup


def scheduled(status: str, reason: str, message: str) -> Condition:
    return Condition(POD_GROUP_SCHEDULED, status, reason, message)


TRUE = scheduled("True", "Scheduled", "All required pods have been successfully scheduled")
UNSCHEDULABLE = scheduled("False", "Unschedulable", "0/3 nodes are available: insufficient cpu")
ERROR = scheduled("False", "SchedulerError", "Internal scheduling error")


def pod_group(*conditions: Condition, generation: int = 0) -> PodGroup:
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "ns1", "generation": generation},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
            "status": {
                "conditions": [
                    {"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}
                    for c in conditions
                ]
            },
        }
    )


@pytest.mark.parametrize(
    ("existing", "condition", "want"),
    [
        (None, TRUE, TRUE),
        (None, UNSCHEDULABLE, UNSCHEDULABLE),
        (None, ERROR, ERROR),
        (UNSCHEDULABLE, TRUE, TRUE),
        (ERROR, TRUE, TRUE),
        (TRUE, UNSCHEDULABLE, TRUE),
        (TRUE, ERROR, TRUE),
        (UNSCHEDULABLE, ERROR, ERROR),
        (ERROR, UNSCHEDULABLE, UNSCHEDULABLE),
        (TRUE, TRUE, TRUE),
    ],
    ids=[
        "set Scheduled condition to True on empty status",
        "set Scheduled condition to False with Unschedulable reason",
        "set Scheduled condition to False with SchedulerError reason",
        "transition from Unschedulable to Scheduled",
        "transition from SchedulerError to Scheduled",
        "do not regress Scheduled to Unschedulable",
        "do not regress Scheduled to SchedulerError",
        "transition from Unschedulable to SchedulerError",
        "transition from SchedulerError to Unschedulable",
        "Scheduled to Scheduled",
    ],
)
def test_the_condition_kube_scheduler_leaves(existing, condition, want):
    group = pod_group(*([existing] if existing else []))
    updated = group.with_condition(condition)
    assert (updated or group).condition(POD_GROUP_SCHEDULED) == want
    assert (updated is None) == (want == existing)  # no write when nothing changes


def test_observed_generation_is_the_pod_groups_generation():
    updated = pod_group(generation=7).with_condition(TRUE)
    (written,) = updated.to_dict()["status"]["conditions"]
    assert written["observedGeneration"] == 7


class _Writer(ScheduleOnePodGroup):
    def __init__(self, cluster: InMemoryCluster) -> None:
        self.cluster = cluster


def test_a_pod_group_gone_is_left_alone():
    cluster = InMemoryCluster([pod_group()])
    _Writer(cluster)._update_pod_group_condition(QueuedPodGroupInfo("ns1", "nonexistent"), TRUE)
    _Writer(cluster)._update_pod_group_condition(QueuedPodGroupInfo("ns1", "pg"), TRUE)
    assert cluster.get("PodGroup", "pg", "ns1").condition(POD_GROUP_SCHEDULED) == TRUE
    assert cluster.get("PodGroup", "nonexistent", "ns1") is None
