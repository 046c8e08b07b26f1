"""The pods/status patches the second scheduler sends: what upstream's PatchPodStatus
(CreateTwoWayMergePatch of the old and new status) sends for the same change."""

from __future__ import annotations

import pytest

from playground.clusters.live_writes import status_patch

NOW = 1_800_000_000.0
NOW_TEXT = "2027-01-15T08:00:00Z"
EARLIER = "2027-01-15T07:00:00Z"
UNSCHEDULABLE = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "Unschedulable",
    "message": "0/1 nodes are available: 1 Insufficient cpu.",
}


def condition(**fields) -> dict:
    return {**UNSCHEDULABLE, "lastProbeTime": None, "lastTransitionTime": EARLIER, **fields}


@pytest.mark.parametrize(
    ("status", "new_condition", "nominated", "want"),
    [
        pytest.param(
            {"phase": "Pending"},
            UNSCHEDULABLE,
            None,
            {
                "status": {
                    "$setElementOrder/conditions": [{"type": "PodScheduled"}],
                    "conditions": [
                        {
                            "lastProbeTime": None,
                            "lastTransitionTime": NOW_TEXT,
                            "message": UNSCHEDULABLE["message"],
                            "reason": "Unschedulable",
                            "status": "False",
                            "type": "PodScheduled",
                        }
                    ],
                }
            },
            id="a new condition is sent whole",
        ),
        pytest.param(
            {"conditions": [condition()]},
            UNSCHEDULABLE,
            None,
            None,
            id="an unchanged condition sends nothing",
        ),
        pytest.param(
            {"conditions": [{"type": "Ready", "status": "False"}, condition(message="old")]},
            UNSCHEDULABLE,
            None,
            {
                "status": {
                    "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "PodScheduled"}],
                    "conditions": [{"type": "PodScheduled", "message": UNSCHEDULABLE["message"]}],
                }
            },
            id="a new message keeps the transition time",
        ),
        pytest.param(
            {"conditions": [condition(status="True", reason="", message="")]},
            UNSCHEDULABLE,
            None,
            {
                "status": {
                    "$setElementOrder/conditions": [{"type": "PodScheduled"}],
                    "conditions": [
                        {
                            "type": "PodScheduled",
                            "lastTransitionTime": NOW_TEXT,
                            "message": UNSCHEDULABLE["message"],
                            "reason": "Unschedulable",
                            "status": "False",
                        }
                    ],
                }
            },
            id="a new status moves the transition time",
        ),
        pytest.param(
            {"nominatedNodeName": "n1"},
            None,
            "",
            {"status": {"nominatedNodeName": None}},
            id="clearing the nominated node sends null",
        ),
        pytest.param({}, None, "n2", {"status": {"nominatedNodeName": "n2"}}, id="nominating"),
        pytest.param({"nominatedNodeName": "n2"}, None, "n2", None, id="the same nomination"),
    ],
)
def test_the_patch_holds_only_what_changed(status, new_condition, nominated, want):
    assert status_patch(status, new_condition, nominated, NOW) == want
