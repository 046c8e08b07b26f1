"""DefaultPreemption's PostFilter: results and messages from upstream's TestPostFilter table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.interface.status import Code, Status
from framework.interface.types import (
    NodeToStatus,
    NominatingInfo,
    NominatingMode,
    PostFilterResult,
)
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    LARGE,
    LOW_PRIORITY,
    MEDIUM,
    MID_PRIORITY,
    ONE_POD,
    VERY_HIGH_PRIORITY,
    node,
    pdb,
    pod,
)
from tests.framework.preemption.helpers import (
    ErrorOnLabelPlugin,
    FakeExtender,
    default_preemption_args,
    fit,
    instance,
    new_framework,
    node1_predicate,
    run_pre_filter,
)

NODE_RES = {"cpu": "200m", "memory": "400"}
VIOLATING = {"test.kubernetes.io/is-violating-pdb": "violating"}
NON_VIOLATING = {"test.kubernetes.io/is-violating-pdb": "non-violating"}
MAX_INT32 = (1 << 31) - 1


def nominated(node_name: str) -> PostFilterResult:
    return PostFilterResult(NominatingInfo(node_name, NominatingMode.OVERRIDE))


def unschedulable(*names: str) -> dict[str, Status]:
    return {n: Status(Code.UNSCHEDULABLE) for n in names}


@dataclass
class Case:
    id: str
    pod: Any
    pods: list[Any]
    nodes: list[Any]
    statuses: dict[str, Status]
    want_result: PostFilterResult | None
    want_code: Code
    want_message: str = ""
    pdbs: list[Any] = field(default_factory=list)
    extender: Any = None


CASES = [
    Case(
        "a pod with higher priority can be made schedulable",
        pod("p", priority=HIGH_PRIORITY),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        unschedulable("node1"),
        nominated("node1"),
        Code.SUCCESS,
    ),
    Case(
        "a pod with tied priority is still unschedulable",
        pod("p"),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        unschedulable("node1"),
        nominated(""),
        Code.UNSCHEDULABLE,
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
    ),
    Case(
        "preemption respects the filtered nodes' statuses",
        pod("p", priority=HIGH_PRIORITY),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        {"node1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)},
        nominated(""),
        Code.UNSCHEDULABLE,
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    ),
    Case(
        "a node absent from the statuses counts as unschedulable and unresolvable",
        pod("p", priority=HIGH_PRIORITY),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        {},
        nominated(""),
        Code.UNSCHEDULABLE,
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    ),
    Case(
        "a pod can be made schedulable on one node",
        pod("p", priority=MID_PRIORITY),
        [
            pod("p1", priority=HIGH_PRIORITY, node="node1"),
            pod("p2", priority=LOW_PRIORITY, node="node2"),
        ],
        [node("node1", ONE_POD), node("node2", ONE_POD)],
        unschedulable("node1", "node2"),
        nominated("node2"),
        Code.SUCCESS,
    ),
    Case(
        "a pod can be made schedulable on the node whose highest victim priority is lowest",
        pod("p", priority=VERY_HIGH_PRIORITY),
        [
            pod("p1", labels=NON_VIOLATING, priority=HIGH_PRIORITY, node="node1"),
            pod("p2", labels=VIOLATING, priority=LOW_PRIORITY, node="node1"),
            pod("p3", labels=VIOLATING, priority=MID_PRIORITY, node="node2"),
        ],
        [node("node1", ONE_POD), node("node2", ONE_POD)],
        unschedulable("node1", "node2"),
        nominated("node2"),
        Code.SUCCESS,
        pdbs=[
            pdb("violating-pdb", match_labels=VIOLATING),
            pdb("non-violating-pdb", match_labels=NON_VIOLATING, disruptions_allowed=MAX_INT32),
        ],
    ),
    Case(
        "an extender can filter out the preemption result",
        pod("p", priority=HIGH_PRIORITY),
        [pod("p1", node="node1"), pod("p2", node="node2")],
        [node("node1", ONE_POD), node("node2", ONE_POD)],
        unschedulable("node1", "node2"),
        nominated("node1"),
        Code.SUCCESS,
        extender=FakeExtender("FakeExtender1", [node1_predicate]),
    ),
    Case(
        "no candidate is found when the pod does not fit even without lower-priority pods",
        pod("p", priority=HIGH_PRIORITY, req=LARGE),
        [pod("p1", node="node1"), pod("p2", node="node2")],
        [node("node1", NODE_RES), node("node2", NODE_RES)],
        unschedulable("node1", "node2"),
        nominated(""),
        Code.UNSCHEDULABLE,
        "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
    ),
    Case(
        "no candidate is found for mixed reasons: no lower-priority pod, not enough cpu",
        pod("p", priority=HIGH_PRIORITY, req=LARGE),
        [
            pod("p1", node="node1", priority=HIGH_PRIORITY),
            pod("p2", node="node2"),
            pod("p3", node="node3", priority=HIGH_PRIORITY),
        ],
        [node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)],
        unschedulable("node1", "node2", "node3"),
        nominated(""),
        Code.UNSCHEDULABLE,
        "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
        "2 No preemption victims found for incoming pod.",
    ),
    Case(
        "no candidate is found for mixed reasons: two unresolvable nodes, two without cpu",
        pod("p", priority=HIGH_PRIORITY, req=LARGE),
        [pod("p1", node="node1"), pod("p2", node="node2")],
        [node(n, NODE_RES) for n in ("node1", "node2", "node3", "node4")],
        {
            **unschedulable("node1", "node2"),
            "node4": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
        },
        nominated(""),
        Code.UNSCHEDULABLE,
        "preemption: 0/4 nodes are available: 2 Insufficient cpu, "
        "2 Preemption is not helpful for scheduling.",
    ),
    Case(
        "an error from a PreFilter extension on the only node is returned",
        pod("p", priority=HIGH_PRIORITY, req=LARGE),
        [pod("p1", node="node1")],
        [node("node1", LARGE, labels={"error": "true"})],
        unschedulable("node1"),
        None,
        Code.ERROR,
        'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p',
    ),
    Case(
        "an error on one node does not stop another node from being nominated",
        pod("p", priority=HIGH_PRIORITY, req=LARGE),
        [pod("p1", node="node1"), pod("p2", node="node2", req=MEDIUM)],
        [node("node1", LARGE, labels={"error": "true"}), node("node2", LARGE)],
        unschedulable("node1", "node2"),
        nominated("node2"),
        Code.SUCCESS,
    ),
]


@pytest.mark.parametrize("async_preemption", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_post_filter_nominates_or_explains(case: Case, async_preemption: bool) -> None:
    fwk = new_framework(
        case.pods,
        case.nodes,
        [fit(), instance(ErrorOnLabelPlugin(), "pre_filter")],
        objects=[case.pod, *case.pdbs],
        extenders=[case.extender] if case.extender else [],
    )
    plugin = DefaultPreemption(
        default_preemption_args(), fwk, Features(enable_async_preemption=async_preemption)
    )
    state = run_pre_filter(fwk, case.pod)
    statuses = NodeToStatus(dict(case.statuses))

    result, status = plugin.post_filter(state, case.pod, statuses)

    assert (status.code, status.message()) == (case.want_code, case.want_message)
    assert result == case.want_result


def test_success_carries_no_message_and_victims_are_gone() -> None:
    preemptor = pod("p", priority=HIGH_PRIORITY)
    fwk = new_framework([pod("p1", node="node1")], [node("node1", ONE_POD)], [fit()])
    fwk.cluster().add(preemptor)
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features())

    result, status = plugin.post_filter(
        run_pre_filter(fwk, preemptor), preemptor, NodeToStatus(unschedulable("node1"))
    )

    assert status == Status(Code.SUCCESS)
    assert result == nominated("node1")
    assert fwk.cluster().get("Pod", "p1", "default") is None
