"""Which equal pods become victims when none has a start time.

Upstream reads the clock for each pod without ``status.startTime`` inside the comparison, so
the first pod of a comparison always looks older, and Go's insertion sort then reverses pods of
equal priority. The real kube-scheduler v1.36.2 in the preemption-basic oracle scenario shows
it: of ``batch-w3-0`` and ``batch-w3-1`` it keeps the second and evicts the first.
"""

from __future__ import annotations

from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.preemption.builders import node, pod
from tests.framework.preemption.helpers import (
    default_preemption_args,
    fit,
    new_framework,
    run_pre_filter,
)

NODE = {"cpu": "4", "memory": "8Gi", "pods": "110"}
BATCH = {"cpu": "1800m", "memory": "3Gi"}


def preempt_on_w3(preemptor_request: dict[str, str], start_times: tuple[int | None, ...]) -> list:
    batch = [
        pod(f"batch-w3-{i}", node="w3", priority=10, req=BATCH, start=start)
        for i, start in enumerate(start_times)
    ]
    preemptor = pod("svc-0", priority=2000, req=preemptor_request)
    fwk = new_framework(batch, [node("w3", NODE)], [fit()], objects=[preemptor])
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features.from_gates())
    plugin.evaluator.preempt(
        run_pre_filter(fwk, preemptor), preemptor, NodeToStatus({"w3": Status(Code.UNSCHEDULABLE)})
    )
    return fwk.cluster().deleted()


def test_of_two_pods_without_start_times_the_first_listed_is_evicted() -> None:
    assert preempt_on_w3({"cpu": "2", "memory": "2Gi"}, (None, None)) == ["batch-w3-0"]


def test_with_start_times_the_pod_that_started_later_is_evicted() -> None:
    assert preempt_on_w3({"cpu": "2", "memory": "2Gi"}, (1, 2)) == ["batch-w3-1"]


def test_when_both_must_go_the_victims_are_deleted_in_their_sorted_order() -> None:
    assert preempt_on_w3({"cpu": "3", "memory": "2Gi"}, (None, None)) == [
        "batch-w3-1",
        "batch-w3-0",
    ]
