"""Cluster events: labels and upstream's matching rules."""

import pytest

from framework.interface.events import ActionType, ClusterEvent, EventResource

A = ActionType


def test_labels_use_upstream_spelling():
    assert ClusterEvent(EventResource.NODE, A.ADD).label() == "NodeAdd"
    assert ClusterEvent(EventResource.POD, A.UPDATE_POD_LABEL).label() == "PodUpdatePodLabel"
    assert ClusterEvent(EventResource.NODE, A.ALL, "UnschedulableTimeout").label() == (
        "UnschedulableTimeout"
    )


def test_update_covers_every_sub_update_and_nothing_else():
    assert A.UPDATE & A.UPDATE_NODE_TAINT
    assert not A.UPDATE & A.ADD
    assert not A.UPDATE & A.DELETE
    assert A.ALL == A.ADD | A.DELETE | A.UPDATE


@pytest.mark.parametrize(
    ("registered", "incoming", "matches"),
    [
        (ClusterEvent("*", A.ALL), ClusterEvent(EventResource.NODE, A.ADD), True),
        (ClusterEvent(EventResource.NODE, A.ADD), ClusterEvent(EventResource.NODE, A.ADD), True),
        (
            ClusterEvent(EventResource.NODE, A.ADD),
            ClusterEvent(EventResource.NODE, A.DELETE),
            False,
        ),
        (
            ClusterEvent(EventResource.NODE, A.UPDATE),
            ClusterEvent(EventResource.NODE, A.UPDATE_NODE_LABEL),
            True,
        ),
        (
            ClusterEvent(EventResource.NODE, A.UPDATE_NODE_LABEL),
            ClusterEvent(EventResource.NODE, A.UPDATE_NODE_LABEL | A.UPDATE_NODE_TAINT),
            False,
        ),
        (
            ClusterEvent(EventResource.POD, A.ADD),
            ClusterEvent(EventResource.ASSIGNED_POD, A.ADD),
            True,
        ),
        (
            ClusterEvent(EventResource.ASSIGNED_POD, A.ADD),
            ClusterEvent(EventResource.POD, A.ADD),
            False,
        ),
        (ClusterEvent("*", A.ADD), ClusterEvent(EventResource.PERSISTENT_VOLUME, A.ADD), True),
    ],
    ids=[
        "the wildcard matches everything",
        "the same resource and action match",
        "another action does not match",
        "Update matches a specific sub-update",
        "a specific sub-update does not match a wider incoming update",
        "Pod matches assigned pods",
        "AssignedPod does not match every pod",
        "a wildcard resource matches any resource with that action",
    ],
)
def test_registered_events_match_incoming_events_as_upstream(registered, incoming, matches):
    assert registered.matches(incoming) is matches
