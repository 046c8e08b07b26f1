"""NodeAffinity, ported from upstream's node_affinity_test.go tables."""

from __future__ import annotations

import pytest

from framework.config.corev1 import PreferredSchedulingTerm
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.status import Code, Status
from framework.interface.types import NodeScore, PreFilterResult
from framework.plugins.feature import Features
from framework.plugins.nodeaffinity.node_affinity import NodeAffinity
from tests.framework.plugins.nodeaffinity.builders import (
    args,
    config_term,
    make_node,
    make_node_info,
    make_pod,
    requirement,
    term,
)

ERR_REASON_POD = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's node affinity/selector"
)
ERR_REASON_ENFORCED = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match scheduler-enforced node affinity"
)
ERR_REASON_CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "pod affinity terms conflict")
SKIP = Status(Code.SKIP)


def name_in(*names: str) -> dict:
    return requirement("metadata.name", "In", *names)


ADDED_NODE2 = args(required=[config_term(fields=[("metadata.name", "In", ["node2"])])])

FILTER_CASES = [
    # (name, pod, node name, labels, args, run PreFilter, PreFilter status, result, Filter)
    (
        "missing labels",
        make_pod(node_selector={"foo": "bar"}),
        "",
        {},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "same labels",
        make_pod(node_selector={"foo": "bar"}),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "node labels are superset",
        make_pod(node_selector={"foo": "bar"}),
        "",
        {"foo": "bar", "baz": "blah"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "node labels are subset",
        make_pod(node_selector={"foo": "bar", "baz": "blah"}),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with matchExpressions using In operator that matches the existing node",
        make_pod(required=[term([requirement("foo", "In", "bar", "value2")])]),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with matchExpressions using Gt operator that matches the existing node",
        make_pod(required=[term([requirement("kernel-version", "Gt", "0204")])]),
        "",
        {"kernel-version": "0206"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with matchExpressions using NotIn operator that matches the existing node",
        make_pod(required=[term([requirement("mem-type", "NotIn", "DDR", "DDR2")])]),
        "",
        {"mem-type": "DDR3"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with matchExpressions using Exists operator that matches the existing node",
        make_pod(required=[term([requirement("GPU", "Exists")])]),
        "",
        {"GPU": "NVIDIA-GRID-K1"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with affinity that don't match node's labels won't schedule onto the node",
        make_pod(required=[term([requirement("foo", "In", "value1", "value2")])]),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with empty MatchExpressions is not a valid value will match no objects and won't "
        "schedule onto the node",
        make_pod(required=[term()]),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with no Affinity will schedule onto a node",
        make_pod(),
        "",
        {"foo": "bar"},
        args(),
        True,
        SKIP,
        None,
        None,
    ),
    (
        "Pod with Affinity but nil NodeSelector will schedule onto a node",
        make_pod(node_affinity={}),
        "",
        {"foo": "bar"},
        args(),
        True,
        SKIP,
        None,
        None,
    ),
    (
        "Pod with multiple matchExpressions ANDed that matches the existing node",
        make_pod(
            required=[
                term([requirement("GPU", "Exists"), requirement("GPU", "NotIn", "AMD", "INTER")])
            ]
        ),
        "",
        {"GPU": "NVIDIA-GRID-K1"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        make_pod(
            required=[
                term([requirement("GPU", "Exists"), requirement("GPU", "In", "AMD", "INTER")])
            ]
        ),
        "",
        {"GPU": "NVIDIA-GRID-K1"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and "
        "will schedule onto the node",
        make_pod(
            required=[
                term([requirement("foo", "In", "bar", "value2")]),
                term([requirement("diffkey", "In", "wrong", "value2")]),
            ]
        ),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are "
        "deprecating) both are satisfied, will schedule onto the node",
        make_pod(node_selector={"foo": "bar"}, required=[term([requirement("foo", "Exists")])]),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing "
        "that we are deprecating) is not satisfied, won't schedule onto the node",
        make_pod(node_selector={"foo": "bar"}, required=[term([requirement("foo", "Exists")])]),
        "",
        {"foo": "barrrrrr"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with an invalid value in Affinity term won't be scheduled onto the node",
        make_pod(required=[term([requirement("foo", "NotIn", "invalid value: ___@#$%^")])]),
        "",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with matchFields using In operator that matches the existing node",
        make_pod(required=[term(fields=[name_in("node1")])]),
        "node1",
        {},
        args(),
        True,
        None,
        PreFilterResult({"node1"}),
        None,
    ),
    (
        "Pod with matchFields using In operator that does not match the existing node",
        make_pod(required=[term(fields=[name_in("node1")])]),
        "node2",
        {},
        args(),
        True,
        None,
        PreFilterResult({"node1"}),
        ERR_REASON_POD,
    ),
    (
        "Pod with two terms: matchFields does not match, but matchExpressions matches",
        make_pod(
            required=[
                term(fields=[name_in("node1"), name_in("node2")]),
                term([requirement("foo", "In", "bar")]),
            ]
        ),
        "node2",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        None,
    ),
    (
        "Pod with one term: matchFields does not match, but matchExpressions matches",
        make_pod(required=[term([requirement("foo", "In", "bar")], [name_in("node1")])]),
        "node2",
        {"foo": "bar"},
        args(),
        True,
        None,
        PreFilterResult({"node1"}),
        ERR_REASON_POD,
    ),
    (
        "Pod with one term: both matchFields and matchExpressions match",
        make_pod(required=[term([requirement("foo", "In", "bar")], [name_in("node1")])]),
        "node1",
        {"foo": "bar"},
        args(),
        True,
        None,
        PreFilterResult({"node1"}),
        None,
    ),
    (
        "Pod with two terms: both matchFields and matchExpressions do not match",
        make_pod(
            required=[
                term(fields=[name_in("node1")]),
                term([requirement("foo", "In", "not-match-to-bar")]),
            ]
        ),
        "node2",
        {"foo": "bar"},
        args(),
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Pod with two terms of node.Name affinity",
        make_pod(required=[term(fields=[name_in("node1")]), term(fields=[name_in("node2")])]),
        "node2",
        {},
        args(),
        True,
        None,
        PreFilterResult({"node1", "node2"}),
        None,
    ),
    (
        "Pod with two conflicting mach field requirements",
        make_pod(required=[term(fields=[name_in("node1"), name_in("node2")])]),
        "node2",
        {"foo": "bar"},
        args(),
        True,
        ERR_REASON_CONFLICT,
        None,
        ERR_REASON_POD,
    ),
    (
        "Matches added affinity and Pod's node affinity",
        make_pod(required=[term([requirement("zone", "In", "foo")])]),
        "node2",
        {"zone": "foo"},
        ADDED_NODE2,
        True,
        None,
        None,
        None,
    ),
    (
        "Matches added affinity but not Pod's node affinity",
        make_pod(required=[term([requirement("zone", "In", "bar")])]),
        "node2",
        {"zone": "foo"},
        ADDED_NODE2,
        True,
        None,
        None,
        ERR_REASON_POD,
    ),
    (
        "Doesn't match added affinity",
        make_pod(),
        "node2",
        {"zone": "foo"},
        args(required=[config_term([("zone", "In", ["bar"])])]),
        True,
        None,
        None,
        ERR_REASON_ENFORCED,
    ),
    (
        "Matches node selector correctly even if PreFilter is not called",
        make_pod(node_selector={"foo": "bar"}),
        "",
        {"foo": "bar", "baz": "blah"},
        args(),
        False,
        None,
        None,
        None,
    ),
    (
        "Matches node affinity correctly even if PreFilter is not called",
        make_pod(
            required=[
                term([requirement("GPU", "Exists"), requirement("GPU", "NotIn", "AMD", "INTER")])
            ]
        ),
        "",
        {"GPU": "NVIDIA-GRID-K1"},
        args(),
        False,
        None,
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    (
        "pod",
        "node_name",
        "labels",
        "plugin_args",
        "run_pre_filter",
        "want_pre_filter_status",
        "want_pre_filter_result",
        "want_status",
    ),
    [case[1:] for case in FILTER_CASES],
    ids=[case[0] for case in FILTER_CASES],
)
def test_it_filters_nodes_by_selector_and_required_affinity(
    pod,
    node_name,
    labels,
    plugin_args,
    run_pre_filter,
    want_pre_filter_status,
    want_pre_filter_result,
    want_status,
):
    node_info = make_node_info(node_name or "unnamed", labels)
    if not node_name:
        # Upstream's node has no name here; field terms then do not apply to it.
        node_info.node.metadata.name = ""
    plugin = NodeAffinity(plugin_args, None, Features())
    state = CycleState()

    if run_pre_filter:
        result, status = plugin.pre_filter(state, pod, [])
        assert status == want_pre_filter_status
        assert result == want_pre_filter_result
    assert plugin.filter(state, pod, node_info) == want_status


def test_it_narrows_to_no_node_and_says_why_when_every_term_names_none():
    pod = make_pod(required=[term(fields=[requirement("metadata.name", "In")])])

    result, status = NodeAffinity(args(), None, Features()).pre_filter(CycleState(), pod, [])

    assert (result, status) == (None, ERR_REASON_CONFLICT)


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}

AFFINITY1 = [(2, term([requirement("foo", "In", "bar")]))]
AFFINITY2 = [
    (2, term([requirement("foo", "In", "bar")])),
    (4, term([requirement("key", "In", "value")])),
    (
        5,
        term(
            [
                requirement("foo", "In", "bar"),
                requirement("key", "In", "value"),
                requirement("az", "In", "az1"),
            ]
        ),
    ),
]
ADDED_AFFINITY1 = args(
    preferred=[PreferredSchedulingTerm(2, config_term([("foo", "In", ["bar"])]))]
)
ADDED_KEY_VALUE = args(
    preferred=[PreferredSchedulingTerm(3, config_term([("key", "In", ["value"])]))]
)

PRIORITY_CASES = [
    (
        "all nodes are same priority as NodeAffinity is nil",
        make_pod(),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        args(),
        False,
        [("node1", 0), ("node2", 0), ("node3", 0)],
    ),
    (
        "no node matches preferred scheduling requirements in NodeAffinity of pod so all "
        "nodes' priority is zero",
        make_pod(preferred=AFFINITY1),
        [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
        args(),
        True,
        [("node1", 0), ("node2", 0), ("node3", 0)],
    ),
    (
        "only node1 matches the preferred scheduling requirements of pod",
        make_pod(preferred=AFFINITY1),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        args(),
        True,
        [("node1", 100), ("node2", 0), ("node3", 0)],
    ),
    (
        "all nodes matches the preferred scheduling requirements of pod but with different "
        "priorities",
        make_pod(preferred=AFFINITY2),
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        args(),
        True,
        [("node1", 18), ("node5", 100), ("node2", 36)],
    ),
    (
        "added affinity",
        make_pod(),
        [("node1", LABEL1), ("node2", LABEL2)],
        ADDED_AFFINITY1,
        True,
        [("node1", 100), ("node2", 0)],
    ),
    (
        "added affinity and pod has default affinity",
        make_pod(preferred=AFFINITY1),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
        ADDED_KEY_VALUE,
        True,
        [("node1", 40), ("node2", 60), ("node3", 100)],
    ),
    (
        "calculate the priorities correctly even if PreScore is not called",
        make_pod(preferred=AFFINITY2),
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        args(),
        False,
        [("node1", 18), ("node5", 100), ("node2", 36)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "plugin_args", "run_pre_score", "want"),
    [case[1:] for case in PRIORITY_CASES],
    ids=[case[0] for case in PRIORITY_CASES],
)
def test_it_scores_the_weights_of_matching_preferred_terms(
    pod, nodes, plugin_args, run_pre_score, want
):
    plugin = NodeAffinity(plugin_args, None, Features())
    node_infos = [make_node_info(name, labels) for name, labels in nodes]
    state = CycleState()
    if run_pre_score:
        assert plugin.pre_score(state, pod, node_infos) is None

    scores = []
    for node_info in node_infos:
        score, status = plugin.score(state, pod, node_info)
        assert status is None
        scores.append(NodeScore(node_info.node_name, score))
    assert plugin.score_extensions().normalize_score(state, pod, scores) is None

    assert [(s.name, s.score) for s in scores] == want


def test_it_skips_scoring_when_neither_pod_nor_profile_prefers_anything():
    plugin = NodeAffinity(args(), None, Features())

    status = plugin.pre_score(CycleState(), make_pod(), [make_node_info("node1", LABEL1)])

    assert status == SKIP


def test_it_reports_a_broken_preferred_term_at_pre_score():
    pod = make_pod(preferred=[(2, term([requirement("invalid key", "In", "bar")]))])
    plugin = NodeAffinity(args(), None, Features())

    status = plugin.pre_score(CycleState(), pod, [make_node_info("node1", LABEL1)])

    assert status.code == Code.ERROR
    assert status.message() == (
        '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    )


FOO_IN_BAR = [term([requirement("foo", "In", "bar")])]
ADDED_FOO_BAR = args(required=[config_term([("foo", "In", ["bar"])])])
QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP

HINT_CASES = [
    ("skip queue on add", args(), None, make_node(), QUEUE_SKIP),
    ("queue on add", args(), None, make_node(labels={"foo": "bar"}), QUEUE),
    ("skip unrelated changes", args(), make_node(), make_node(), QUEUE_SKIP),
    (
        "skip unrelated changes on labels",
        args(),
        make_node(),
        make_node(labels={"k": "v"}),
        QUEUE_SKIP,
    ),
    (
        "skip labels changes on node from suitable to unsuitable",
        args(),
        make_node(labels={"foo": "bar"}),
        make_node(labels={"k": "v"}),
        QUEUE_SKIP,
    ),
    (
        "queue on labels change makes pod schedulable",
        args(),
        make_node(),
        make_node(labels={"foo": "bar"}),
        QUEUE,
    ),
    (
        "skip unrelated change that keeps pod schedulable",
        args(),
        make_node(labels={"foo": "bar"}),
        make_node(labels={"foo": "bar"}),
        QUEUE_SKIP,
    ),
    (
        "skip queue on add scheduler enforced node affinity",
        ADDED_FOO_BAR,
        None,
        make_node(),
        QUEUE_SKIP,
    ),
    (
        "queue on add scheduler enforced node affinity",
        ADDED_FOO_BAR,
        None,
        make_node(labels={"foo": "bar"}),
        QUEUE,
    ),
]


@pytest.mark.parametrize(
    ("plugin_args", "old", "new", "want"),
    [case[1:] for case in HINT_CASES],
    ids=[case[0] for case in HINT_CASES],
)
def test_it_requeues_only_when_a_node_starts_to_match(plugin_args, old, new, want):
    plugin = NodeAffinity(plugin_args, None, Features())
    pod = make_pod(required=FOO_IN_BAR)

    assert plugin.is_schedulable_after_node_change(pod, old, new) == want


@pytest.mark.parametrize(
    ("old", "new"),
    [(None, "not-a-node"), ("not-a-node", make_node())],
    ids=["a wrong new object is an error", "a wrong old object is an error"],
)
def test_it_raises_on_node_events_that_carry_something_else(old, new):
    plugin = NodeAffinity(args(), None, Features())

    with pytest.raises(TypeError):
        plugin.is_schedulable_after_node_change(make_pod(required=FOO_IN_BAR), old, new)


@pytest.mark.parametrize(
    ("hints", "want"),
    [
        (True, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        (False, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
    ],
    ids=[
        "with queueing hints only added and relabelled nodes matter",
        "without queueing hints taint updates are registered too",
    ],
)
def test_it_registers_node_events(hints, want):
    plugin = NodeAffinity(args(), None, Features(enable_scheduling_queue_hint=hints))

    events = plugin.events_to_register()

    assert [e.event for e in events] == [ClusterEvent(EventResource.NODE, want)]


CONSTRUCTION_ERRORS = [
    (
        "args of another type",
        None,
        "args are not of type NodeAffinityArgs, got <nil>",
    ),
    (
        "an added required term with a bad operator",
        args(required=[config_term([("foo", "Unknown", ["bar"])])]),
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchExpressions[0].operator: Unsupported value: "Unknown": supported values: "In", '
        '"NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
    ),
]


@pytest.mark.parametrize(
    ("plugin_args", "message"),
    [case[1:] for case in CONSTRUCTION_ERRORS],
    ids=[case[0] for case in CONSTRUCTION_ERRORS],
)
def test_it_refuses_bad_args_when_built(plugin_args, message):
    with pytest.raises(ValueError) as raised:
        NodeAffinity(plugin_args, None, Features())

    assert str(raised.value) == message


def _filter_nodes(plugin: NodeAffinity, pod, node_infos) -> list[bool]:
    state = CycleState()
    plugin.pre_filter(state, pod, node_infos)
    return [status is None for status in plugin.filter_nodes(state, pod, node_infos)]


def test_remembered_matches_follow_a_replaced_node_and_each_affinity():
    # Filter answers are remembered per affinity and node object: a node updated with new
    # labels is a new object and is matched again; another affinity has answers of its own.
    plugin = NodeAffinity(args(), None, Features())
    wants_bar = [term([requirement("foo", "In", "bar")])]
    wants_baz = [term([requirement("foo", "In", "baz")])]
    node_info = make_node_info("node1", {"foo": "bar"})

    assert _filter_nodes(plugin, make_pod(required=wants_bar), [node_info]) == [True]
    assert _filter_nodes(plugin, make_pod(required=wants_bar), [node_info]) == [True]
    assert _filter_nodes(plugin, make_pod(required=wants_baz), [node_info]) == [False]

    node_info.set_node(make_node("node1", {"foo": "baz"}))
    assert _filter_nodes(plugin, make_pod(required=wants_bar), [node_info]) == [False]
    assert _filter_nodes(plugin, make_pod(required=wants_baz), [node_info]) == [True]
    assert _filter_nodes(plugin, make_pod(node_selector={"foo": "baz"}), [node_info]) == [True]
    assert _filter_nodes(plugin, make_pod(node_selector={"foo": "bar"}), [node_info]) == [False]
