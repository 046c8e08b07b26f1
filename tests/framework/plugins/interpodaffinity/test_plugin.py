"""Construction, registered events, queueing hints and namespace handling of InterPodAffinity.

Hint cases are ported from upstream's Test_isSchedulableAfterPodChange and
Test_isSchedulableAfterNodeChange (interpodaffinity/plugin_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.cluster.memory import InMemoryCluster
from framework.config.types import PodTopologySpreadArgs
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import PodInfo
from framework.plugins.feature import Features
from framework.plugins.interpodaffinity.filtering import get_pre_filter_state
from framework.plugins.interpodaffinity.namespaces import (
    get_namespace_labels_snapshot,
    merge_affinity_term_namespaces_if_not_empty,
)
from framework.plugins.interpodaffinity.plugin import InterPodAffinity
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from tests.framework.plugins.interpodaffinity.helpers import (
    NAMESPACES,
    expressions,
    new_plugin,
    node,
    term,
)
from tests.framework.plugins.wrappers import PodAffinityKind, make_node, make_pod

REQUIRED = PodAffinityKind.REQUIRED
QUEUE = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP
SCAN_OR_VALUE2 = ["securityscan", "value2"]


def target(**kw: Any) -> Any:
    wrapper = make_pod().uid("p").name("p")
    if kw.get("affinity_in"):
        wrapper.pod_affinity_in("service", "region", SCAN_OR_VALUE2, REQUIRED)
    if kw.get("anti_affinity_in"):
        wrapper.pod_anti_affinity_in("service", "region", SCAN_OR_VALUE2, REQUIRED)
    for key in kw.get("affinity_exists", ()):
        wrapper.pod_affinity_exists(key, "hostname", REQUIRED)
    return wrapper.labels(kw.get("labels", {})).obj()


def other(labels: dict[str, str] | None = None, **kw: Any) -> Any:
    wrapper = make_pod().uid(kw.get("uid", "other")).name(kw.get("uid", "other"))
    wrapper.labels(labels or {})
    if kw.get("node"):
        wrapper.node("fake-node")
    if kw.get("nominated"):
        wrapper.nominated_node_name("fake-node")
    if kw.get("anti_affinity_in"):
        wrapper.pod_anti_affinity_in("service", "region", SCAN_OR_VALUE2, REQUIRED)
    return wrapper.obj()


SCAN = {"service": "securityscan"}

POD_HINTS = [
    pytest.param(
        target(affinity_in=True),
        None,
        other(SCAN, node=True),
        QUEUE,
        id="a scheduled pod matching the affinity is added",
    ),
    pytest.param(
        target(affinity_in=True), None, other(SCAN), SKIP, id="an unscheduled pod is added"
    ),
    pytest.param(
        target(affinity_in=True),
        None,
        other({"aaa": "a"}, node=True),
        SKIP,
        id="a scheduled pod not matching the affinity is added",
    ),
    pytest.param(
        target(affinity_in=True),
        other({"aaa": "a"}, node=True),
        other(SCAN, node=True),
        QUEUE,
        id="a scheduled pod starts matching the affinity",
    ),
    pytest.param(
        target(affinity_in=True),
        other({"service": "value2"}, node=True),
        other(SCAN, node=True),
        SKIP,
        id="a scheduled pod matches the affinity before and after",
    ),
    pytest.param(
        target(affinity_in=True),
        other({"aaa": "a"}),
        other(SCAN),
        SKIP,
        id="an unscheduled pod is updated",
    ),
    pytest.param(
        target(affinity_in=True),
        other(SCAN, node=True),
        other({"aaa": "a"}, node=True),
        SKIP,
        id="a scheduled pod stops matching the affinity",
    ),
    pytest.param(
        target(affinity_exists=("aaa", "bbb")),
        other({"aaa": "a"}, node=True),
        other(SCAN, node=True),
        SKIP,
        id="a pod stops matching one of several affinity terms",
    ),
    pytest.param(
        target(affinity_exists=("aaa", "bbb")),
        other({"aaa": "a"}, node=True),
        other({"aaa": "", "bbb": ""}, node=True),
        QUEUE,
        id="a pod starts matching all affinity terms",
    ),
    pytest.param(
        target(labels={"foo": "baz"}),
        other({"foo": "bar"}, uid="p"),
        other({"foo": "baz"}, uid="p"),
        QUEUE,
        id="the target pod itself changes its labels",
    ),
    pytest.param(
        target(anti_affinity_in=True),
        other(SCAN, node=True),
        other({"service": "aaaa"}, node=True),
        QUEUE,
        id="a scheduled pod stops matching the anti-affinity",
    ),
    pytest.param(
        target(anti_affinity_in=True),
        other({"service": "bbb"}, node=True),
        other(SCAN, node=True),
        SKIP,
        id="a scheduled pod starts matching the anti-affinity",
    ),
    pytest.param(
        target(anti_affinity_in=True),
        other({"aaa": "a"}, node=True),
        None,
        SKIP,
        id="a deleted pod did not match the anti-affinity",
    ),
    pytest.param(
        target(anti_affinity_in=True),
        other(SCAN, node=True),
        None,
        QUEUE,
        id="a deleted pod matched the anti-affinity",
    ),
    pytest.param(
        target(labels=SCAN),
        other(node=True, anti_affinity_in=True),
        None,
        QUEUE,
        id="a deleted pod's anti-affinity matched the target pod",
    ),
    pytest.param(
        target(labels={"service": "foo"}),
        other(node=True, anti_affinity_in=True),
        None,
        SKIP,
        id="a deleted pod's anti-affinity did not match the target pod",
    ),
    pytest.param(
        target(anti_affinity_in=True, labels={"service": "foo"}),
        other({"service": "foo"}, node=True, anti_affinity_in=True),
        None,
        SKIP,
        id="neither the deleted pod nor the target pod matched the other",
    ),
    pytest.param(
        target(anti_affinity_in=True),
        other({"aaa": "a"}, nominated=True),
        None,
        SKIP,
        id="a deleted nominated pod did not match the anti-affinity",
    ),
    pytest.param(
        target(anti_affinity_in=True),
        other(SCAN, nominated=True),
        None,
        QUEUE,
        id="a deleted nominated pod matched the anti-affinity",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), POD_HINTS)
def test_pod_events_queue_only_when_affinity_may_now_hold(
    pod: Any, old: Any, new: Any, want: QueueingHint
) -> None:
    assert new_plugin().is_schedulable_after_pod_change(pod, old, new) == want


def affinity_pod(topology_key: str = "zone") -> Any:
    return (
        make_pod()
        .name("p")
        .pod_affinity_in("service", topology_key, SCAN_OR_VALUE2, REQUIRED)
        .obj()
    )


def anti_affinity_pod() -> Any:
    return (
        make_pod()
        .name("p")
        .pod_anti_affinity("zone", {"matchLabels": {"another": "label"}}, REQUIRED)
        .obj()
    )


def node_a(**labels: str) -> Any:
    return make_node().name("node-a").labels(labels).obj()


NODE_HINTS = [
    pytest.param(
        affinity_pod(),
        None,
        node_a(zone="zone1"),
        QUEUE,
        id="a new node has the affinity topology key",
    ),
    pytest.param(
        affinity_pod("region"),
        None,
        node_a(zone="zone1"),
        SKIP,
        id="a new node lacks the affinity topology key",
    ),
    pytest.param(
        affinity_pod(),
        node_a(aaa="a"),
        node_a(aaa="b"),
        SKIP,
        id="a label other than the topology key changes",
    ),
    pytest.param(
        affinity_pod(),
        node_a(zone="zone1"),
        node_a(zone="zone1", **{"unrelated-label": "unrelated"}),
        SKIP,
        id="an unrelated label is added to a domain node",
    ),
    pytest.param(
        affinity_pod(),
        node_a(zone="zone1"),
        node_a(zone="zone2"),
        QUEUE,
        id="a node moves to another affinity domain",
    ),
    pytest.param(
        affinity_pod(),
        node_a(aaa="a"),
        node_a(zone="zone1"),
        QUEUE,
        id="a node gains the affinity topology key",
    ),
    pytest.param(
        anti_affinity_pod(),
        None,
        node_a(zone="zone1"),
        QUEUE,
        id="a new node with the anti-affinity topology key",
    ),
    pytest.param(
        anti_affinity_pod(),
        None,
        node_a(),
        QUEUE,
        id="any new node may help a pod with anti-affinity",
    ),
    pytest.param(
        anti_affinity_pod(),
        node_a(zone="zone1"),
        node_a(zone="zone1", **{"unrelated-label": "unrelated"}),
        SKIP,
        id="an unrelated label change with anti-affinity",
    ),
    pytest.param(
        anti_affinity_pod(),
        node_a(zone="zone1"),
        node_a(zone="zone2"),
        QUEUE,
        id="a node moves to another anti-affinity domain",
    ),
    pytest.param(
        anti_affinity_pod(),
        node_a(aaa="a"),
        node_a(zone="zone1"),
        SKIP,
        id="gaining the anti-affinity topology key cannot help",
    ),
    pytest.param(
        anti_affinity_pod(),
        node_a(zone="zone1"),
        node_a(aaa="a"),
        QUEUE,
        id="losing the anti-affinity topology key may help",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), NODE_HINTS)
def test_node_events_queue_only_when_topology_may_now_fit(
    pod: Any, old: Any, new: Any, want: QueueingHint
) -> None:
    assert new_plugin().is_schedulable_after_node_change(pod, old, new) == want


def test_a_hint_for_a_pod_with_an_invalid_selector_raises_so_the_pod_is_queued() -> None:
    pod = make_pod().name("p").pod_affinity_in("service", "zone", ["{{bad}}"], REQUIRED).obj()

    with pytest.raises(ValueError):
        new_plugin().is_schedulable_after_node_change(pod, None, node_a(zone="z"))


@pytest.mark.parametrize(
    ("queueing_hints", "node_actions"),
    [
        pytest.param(
            False,
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
            id="without queueing hints node taint updates are registered too",
        ),
        pytest.param(
            True,
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL,
            id="with queueing hints only node adds and label updates",
        ),
    ],
)
def test_events_to_register(queueing_hints: bool, node_actions: ActionType) -> None:
    plugin = new_plugin(enable_scheduling_queue_hint=queueing_hints)

    assert [registered.event for registered in plugin.events_to_register()] == [
        ClusterEvent(
            EventResource.POD,
            ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
        ),
        ClusterEvent(EventResource.NODE, node_actions),
    ]


def test_construction_rejects_args_of_another_plugin() -> None:
    with pytest.raises(ValueError) as raised:
        InterPodAffinity(PodTopologySpreadArgs(), Framework(Registry(), None), Features())

    assert str(raised.value) == (
        "want args to be of type InterPodAffinityArgs, got PodTopologySpreadArgs"
    )


# ---------------------------------------------------------------------------------------------
# Namespaces


def test_a_namespace_selector_adds_the_selected_namespaces() -> None:
    pod = (
        make_pod()
        .namespace("subteam1.team1")
        .pod_affinity_terms(
            "podAffinity",
            required=[
                term(
                    expressions(("a", "Exists", None)),
                    "zone",
                    ["x"],
                    expressions(("team", "In", ["team1"])),
                )
            ],
        )
        .obj()
    )
    (affinity_term,) = PodInfo(pod).required_affinity_terms

    merged = merge_affinity_term_namespaces_if_not_empty(affinity_term, InMemoryCluster(NAMESPACES))

    assert merged.namespaces == {"x", "subteam1.team1", "subteam2.team1"}


def test_an_empty_namespace_selector_is_left_to_match_everything() -> None:
    pod = (
        make_pod()
        .pod_affinity_terms(
            "podAffinity", required=[term(expressions(("a", "Exists", None)), "zone", None, {})]
        )
        .obj()
    )
    (affinity_term,) = PodInfo(pod).required_affinity_terms

    merged = merge_affinity_term_namespaces_if_not_empty(affinity_term, InMemoryCluster(NAMESPACES))

    assert merged is affinity_term
    assert merged.matches(make_pod().namespace("anywhere").label("a", "").obj(), None)


def test_a_not_in_namespace_selector_still_matches_unlisted_namespaces_as_upstream() -> None:
    # Upstream resets the merged selector on a copy of the term only, so a selector that
    # matches empty labels keeps matching pods of every namespace.
    selector = expressions(("team", "NotIn", ["team1"]))
    pod = (
        make_pod()
        .namespace("subteam1.team2")
        .pod_affinity_terms(
            "podAntiAffinity",
            required=[term(expressions(("a", "Exists", None)), "zone", None, selector)],
        )
        .obj()
    )
    existing = make_pod().namespace("subteam1.team1").label("a", "").node("n").obj()
    plugin = new_plugin([existing], [node("n", {"zone": "z"})])
    state = CycleState()

    plugin.pre_filter(state, pod, plugin.handle.snapshot_shared_lister().list())

    (anti_term,) = get_pre_filter_state(state).anti_affinity_terms
    assert anti_term.namespaces == {"subteam1.team2", "subteam2.team2"}
    assert get_pre_filter_state(state).anti_affinity_counts == {("zone", "z"): 1}


def test_namespace_labels_are_read_from_the_namespace_object() -> None:
    cluster = InMemoryCluster(NAMESPACES)

    assert get_namespace_labels_snapshot("subteam1.team1", cluster) == {"team": "team1"}
    assert get_namespace_labels_snapshot("missing", cluster) == {}
    assert get_namespace_labels_snapshot("subteam1.team1", None) == {}
