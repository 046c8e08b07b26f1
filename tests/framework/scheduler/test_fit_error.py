"""The FitError message, from upstream's ``TestFitError_Error`` table, and with alike nodes
sharing one Status object (as NodeResourcesFit's remembered failures do)."""

from __future__ import annotations

import pytest

from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus
from framework.scheduler.fit_error import Diagnosis, FitError

PRE_FILTER = "Node(s) failed PreFilter plugin FalsePreFilter"
FILTER_1 = "Node(s) failed Filter plugin FalseFilter-1"
FILTER_2 = "Node(s) failed Filter plugin FalseFilter-2"
POST_FILTER = "Error running PostFilter plugin FailedPostFilter"


def _statuses(reasons: dict[str, str]) -> NodeToStatus:
    return NodeToStatus(
        {node: Status(Code.UNSCHEDULABLE, reason) for node, reason in reasons.items()}
    )


ALL_THREE = {"node1": PRE_FILTER, "node2": PRE_FILTER, "node3": PRE_FILTER}
ONE_FILTER = {"node1": FILTER_1, "node2": FILTER_1, "node3": FILTER_1}
TWO_FILTERS = {"node1": FILTER_1, "node2": FILTER_1, "node3": FILTER_2}

CASES = [
    (
        "nodes failed Prefilter plugin",
        3,
        Diagnosis(_statuses(ALL_THREE), pre_filter_msg=PRE_FILTER),
        f"0/3 nodes are available: {PRE_FILTER}.",
    ),
    (
        "nodes failed Prefilter plugin and the preemption also failed",
        3,
        Diagnosis(_statuses(ALL_THREE), pre_filter_msg=PRE_FILTER, post_filter_msg=POST_FILTER),
        f"0/3 nodes are available: {PRE_FILTER}. {POST_FILTER}",
    ),
    (
        "nodes failed one Filter plugin with an empty PostFilterMsg",
        3,
        Diagnosis(_statuses(ONE_FILTER)),
        f"0/3 nodes are available: 3 {FILTER_1}.",
    ),
    (
        "nodes failed one Filter plugin with a non-empty PostFilterMsg",
        3,
        Diagnosis(_statuses(ONE_FILTER), post_filter_msg=POST_FILTER),
        f"0/3 nodes are available: 3 {FILTER_1}. {POST_FILTER}",
    ),
    (
        "nodes failed two Filter plugins with an empty PostFilterMsg",
        3,
        Diagnosis(_statuses(TWO_FILTERS)),
        f"0/3 nodes are available: 1 {FILTER_2}, 2 {FILTER_1}.",
    ),
    (
        "nodes failed two Filter plugins with a non-empty PostFilterMsg",
        3,
        Diagnosis(_statuses(TWO_FILTERS), post_filter_msg=POST_FILTER),
        f"0/3 nodes are available: 1 {FILTER_2}, 2 {FILTER_1}. {POST_FILTER}",
    ),
    (
        "failed to Permit on node",
        1,
        Diagnosis(_statuses({"node1": "Node failed Permit plugin Permit-1"})),
        "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
    ),
    (
        "failed to Reserve on node",
        1,
        Diagnosis(_statuses({"node1": "Node failed Reserve plugin Reserve-1"})),
        "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
    ),
]


@pytest.mark.parametrize(
    ("num_all_nodes", "diagnosis", "want"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_message_is_upstreams(num_all_nodes, diagnosis, want):
    assert str(FitError(None, num_all_nodes, diagnosis)) == want


def test_nodes_sharing_one_status_are_each_counted():
    full = Status(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory")
    tainted = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")
    statuses = NodeToStatus({"a": full, "b": full, "c": tainted, "d": full})
    message = str(FitError(None, 6, Diagnosis(statuses)))
    # Two nodes were never evaluated: the absent nodes' status (no reasons) counts nothing.
    assert message == (
        "0/6 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu, "
        "3 Insufficient memory."
    )


def test_absent_nodes_count_with_their_shared_status():
    statuses = NodeToStatus(
        {"a": Status(Code.UNSCHEDULABLE, FILTER_1)},
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, FILTER_2),
    )
    assert str(FitError(None, 4, Diagnosis(statuses))) == (
        f"0/4 nodes are available: 1 {FILTER_1}, 3 {FILTER_2}."
    )
