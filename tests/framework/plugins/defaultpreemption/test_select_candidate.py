"""Choosing the node to preempt on (upstream TestSelectBestCandidate, TestCustomSelection and
TestCustomOrdering)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from framework.api.pod import Pod
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    LARGE,
    LOW_PRIORITY,
    MEDIUM,
    MID_PRIORITY,
    NEG_PRIORITY,
    SMALL,
    VERY_HIGH_PRIORITY,
    VERY_LARGE,
    node,
    pod,
)
from tests.framework.preemption.helpers import (
    default_preemption_args,
    fit,
    new_framework,
    run_pre_filter,
)


def on(node_name: str, *specs: tuple[int, dict[str, str], int]) -> list[Pod]:
    """Pods ``p<i>.<j>`` on node ``node<i>`` from (priority, request, start) triples."""
    index = node_name.removeprefix("node")
    return [
        pod(f"p{index}.{j}", node=node_name, priority=prio, req=req, start=start)
        for j, (prio, req, start) in enumerate(specs, 1)
    ]


def plugin_over(pods: list[Pod], node_names: list[str], preemptor: Pod) -> Any:
    fwk = new_framework(pods, [node(n, VERY_LARGE) for n in node_names], [fit()])
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features())
    plugin.get_offset_rand = lambda n: 0
    return fwk, plugin


def dry_run(fwk: Any, plugin: DefaultPreemption, preemptor: Pod) -> list[Any]:
    node_infos = fwk.snapshot_shared_lister().list()
    offset, num = plugin.get_offset_and_num_candidates(len(node_infos))
    candidates, _, _ = plugin.evaluator.dry_run_preemption(
        run_pre_filter(fwk, preemptor), preemptor, node_infos, [], offset, num
    )
    return candidates


BEST_CANDIDATE_CASES = [
    (
        "either node when both need the same preemption",
        ["node1", "node2"],
        pod("p", priority=HIGH_PRIORITY, req=LARGE),
        on("node1", (MID_PRIORITY, LARGE, 0)) + on("node2", (MID_PRIORITY, LARGE, 0)),
        {"node1", "node2"},
    ),
    (
        "the node whose highest-priority victim is lowest",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (MID_PRIORITY, MEDIUM, 0), (MID_PRIORITY, LARGE, 0))
        + on("node2", (MID_PRIORITY, MEDIUM, 0), (LOW_PRIORITY, MEDIUM, 0))
        + on("node3", (LOW_PRIORITY, MEDIUM, 0), (LOW_PRIORITY, MEDIUM, 0)),
        {"node3"},
    ),
    (
        "on equal highest priorities, the smallest sum of priorities",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (MID_PRIORITY, MEDIUM, 0), (MID_PRIORITY, LARGE, 0))
        + on("node2", (MID_PRIORITY, LARGE, 0), (LOW_PRIORITY, MEDIUM, 0))
        + on("node3", (MID_PRIORITY, MEDIUM, 0), (MID_PRIORITY, MEDIUM, 0)),
        {"node2"},
    ),
    (
        "on equal highest priority and sum, the fewest victims",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on(
            "node1",
            (MID_PRIORITY, SMALL, 0),
            (NEG_PRIORITY, SMALL, 0),
            (MID_PRIORITY, SMALL, 0),
            (NEG_PRIORITY, SMALL, 0),
        )
        + on("node2", (MID_PRIORITY, LARGE, 0), (NEG_PRIORITY, MEDIUM, 0))
        + on(
            "node3", (MID_PRIORITY, MEDIUM, 0), (NEG_PRIORITY, SMALL, 0), (LOW_PRIORITY, SMALL, 0)
        ),
        {"node2"},
    ),
    (
        "the sum shifts priorities so that negative ones are not preferred in bulk",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (MID_PRIORITY, SMALL, 0), (NEG_PRIORITY, SMALL, 0), (NEG_PRIORITY, SMALL, 0))
        + on("node2", (MID_PRIORITY, LARGE, 0), (NEG_PRIORITY, MEDIUM, 0))
        + on(
            "node3", (MID_PRIORITY, MEDIUM, 0), (NEG_PRIORITY, SMALL, 0), (LOW_PRIORITY, SMALL, 0)
        ),
        {"node2"},
    ),
    (
        "non-overlapping lowest high priority, sum of priorities and number of pods",
        ["node1", "node2", "node3", "node4"],
        pod("p", priority=VERY_HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (MID_PRIORITY, SMALL, 0), (LOW_PRIORITY, SMALL, 0), (LOW_PRIORITY, SMALL, 0))
        + on("node2", (HIGH_PRIORITY, LARGE, 0))
        + on(
            "node3",
            (MID_PRIORITY, MEDIUM, 0),
            (LOW_PRIORITY, SMALL, 0),
            (LOW_PRIORITY, SMALL, 0),
            (LOW_PRIORITY, MEDIUM, 0),
        )
        + on(
            "node4",
            (MID_PRIORITY, MEDIUM, 0),
            (MID_PRIORITY, SMALL, 0),
            (MID_PRIORITY, SMALL, 0),
            (NEG_PRIORITY, SMALL, 0),
        ),
        {"node1"},
    ),
    (
        "same priorities and counts: the node whose victims started last",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (MID_PRIORITY, MEDIUM, 2), (MID_PRIORITY, MEDIUM, 2))
        + on("node2", (MID_PRIORITY, MEDIUM, 3), (MID_PRIORITY, MEDIUM, 3))
        + on("node3", (MID_PRIORITY, MEDIUM, 1), (MID_PRIORITY, MEDIUM, 1)),
        {"node2"},
    ),
    (
        "same priorities and counts, every pod started at its own time",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (MID_PRIORITY, MEDIUM, 4), (MID_PRIORITY, MEDIUM, 2))
        + on("node2", (MID_PRIORITY, MEDIUM, 5), (MID_PRIORITY, MEDIUM, 1))
        + on("node3", (MID_PRIORITY, MEDIUM, 3), (MID_PRIORITY, MEDIUM, 6)),
        {"node3"},
    ),
    (
        "different priorities, same counts: start times of the highest-priority victims",
        ["node1", "node2", "node3"],
        pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE),
        on("node1", (LOW_PRIORITY, MEDIUM, 4), (MID_PRIORITY, MEDIUM, 2))
        + on("node2", (MID_PRIORITY, MEDIUM, 6), (LOW_PRIORITY, MEDIUM, 1))
        + on("node3", (LOW_PRIORITY, MEDIUM, 3), (MID_PRIORITY, MEDIUM, 5)),
        {"node2"},
    ),
]


@pytest.mark.parametrize(
    ("node_names", "preemptor", "pods", "expected"),
    [case[1:] for case in BEST_CANDIDATE_CASES],
    ids=[case[0] for case in BEST_CANDIDATE_CASES],
)
def test_the_best_candidate_is_picked_by_upstreams_criteria(
    node_names: list[str], preemptor: Pod, pods: list[Pod], expected: set[str]
) -> None:
    fwk, plugin = plugin_over(pods, node_names, preemptor)

    best = plugin.evaluator.select_candidate(dry_run(fwk, plugin, preemptor))

    assert best is not None and best.name in expected


# -- custom eligibility (upstream TestCustomSelection) -----------------------------------------


def label_is(key: str, value: str) -> Callable[..., bool]:
    return lambda node_info, victim, preemptor: victim.pod.labels.get(key) == value


def node_is(name: str) -> Callable[..., bool]:
    return lambda node_info, victim, preemptor: node_info.node_name == name


def preemptor_at_least(priority: int) -> Callable[..., bool]:
    return lambda node_info, victim, preemptor: preemptor.spec.priority >= priority


def victim_at_most(priority: int) -> Callable[..., bool]:
    return lambda node_info, victim, preemptor: victim.pod.spec.priority <= priority


def labelled_victims() -> list[Pod]:
    return [
        pod("v1", labels={"preemptible": "no"}, node="node1", priority=MID_PRIORITY, req=LARGE),
        pod("v2", labels={"preemptible": "yes"}, node="node2", priority=MID_PRIORITY, req=LARGE),
        pod("v3", labels={"preemptible": "yes"}, node="node3", priority=LOW_PRIORITY, req=LARGE),
        pod("v4", node="node4", priority=LOW_PRIORITY, req=LARGE),
    ]


def node1_victims(v1_req: dict[str, str]) -> list[Pod]:
    return [
        pod("v1", node="node1", priority=HIGH_PRIORITY, req=v1_req),
        pod("v2", node="node1", priority=MID_PRIORITY, req=SMALL),
        pod("v3", node="node1", priority=LOW_PRIORITY, req=SMALL),
        pod("v4", node="node2", priority=MID_PRIORITY, req=LARGE),
        pod("v5", node="node3", priority=LOW_PRIORITY, req=LARGE),
    ]


def one_per_node() -> list[Pod]:
    return [
        pod("v1", node="node1", priority=HIGH_PRIORITY, req=LARGE),
        pod("v2", node="node2", priority=MID_PRIORITY, req=LARGE),
        pod("v3", node="node3", priority=LOW_PRIORITY, req=LARGE),
    ]


FOUR = ["node1", "node2", "node3", "node4"]
THREE = ["node1", "node2", "node3"]

CUSTOM_SELECTION_CASES = [
    (
        "matching pod label, high priority preemptor",
        label_is("preemptible", "yes"),
        FOUR,
        HIGH_PRIORITY,
        labelled_victims(),
        {"node2": ["v2"], "node3": ["v3"]},
    ),
    (
        "matching pod label, mid priority preemptor",
        label_is("preemptible", "yes"),
        FOUR,
        MID_PRIORITY,
        labelled_victims(),
        {"node3": ["v3"]},
    ),
    (
        "matching pod label, low priority preemptor",
        label_is("preemptible", "yes"),
        FOUR,
        LOW_PRIORITY,
        labelled_victims(),
        {},
    ),
    (
        "matching victim node, high priority preemptor",
        node_is("node1"),
        THREE,
        HIGH_PRIORITY,
        node1_victims(MEDIUM),
        {"node1": ["v2", "v3"]},
    ),
    (
        "matching victim node, mid priority preemptor",
        node_is("node1"),
        THREE,
        MID_PRIORITY,
        node1_victims(SMALL),
        {"node1": ["v3"]},
    ),
    (
        "matching victim node, low priority preemptor",
        node_is("node1"),
        THREE,
        LOW_PRIORITY,
        node1_victims(SMALL),
        {},
    ),
    (
        "only preemptors at or above a priority preempt: a high one does",
        preemptor_at_least(HIGH_PRIORITY),
        THREE,
        HIGH_PRIORITY,
        one_per_node(),
        {"node2": ["v2"], "node3": ["v3"]},
    ),
    (
        "only preemptors at or above a priority preempt: a mid one does not",
        preemptor_at_least(HIGH_PRIORITY),
        THREE,
        MID_PRIORITY,
        one_per_node(),
        {},
    ),
    (
        "only victims at or below a priority are preempted",
        victim_at_most(MID_PRIORITY),
        THREE,
        HIGH_PRIORITY,
        one_per_node(),
        {"node2": ["v2"], "node3": ["v3"]},
    ),
]


@pytest.mark.parametrize(
    ("eligible", "node_names", "priority", "pods", "expected"),
    [case[1:] for case in CUSTOM_SELECTION_CASES],
    ids=[case[0] for case in CUSTOM_SELECTION_CASES],
)
def test_a_custom_eligibility_limits_the_victims(
    eligible: Callable[..., bool],
    node_names: list[str],
    priority: int,
    pods: list[Pod],
    expected: dict[str, list[str]],
) -> None:
    preemptor = pod("p", priority=priority, req=LARGE)
    fwk, plugin = plugin_over(pods, node_names, preemptor)
    plugin.is_eligible_pod = eligible

    candidates = dry_run(fwk, plugin, preemptor)

    got = {}
    while candidates:
        selected = plugin.evaluator.select_candidate(candidates)
        got[selected.name] = [p.name for p in selected.victims.pods]
        candidates = [c for c in candidates if c.name != selected.name]
    assert got == expected


# -- custom ordering (upstream TestCustomOrdering) ---------------------------------------------


def test_a_custom_order_preempts_the_newest_pods_first() -> None:
    pods = [
        pod("v1", node="node1", priority=LOW_PRIORITY, req=MEDIUM, start=2),
        pod("v2", node="node1", priority=LOW_PRIORITY, req=MEDIUM, start=0),
        pod("v3", node="node1", priority=MID_PRIORITY, req=MEDIUM, start=1),
    ]
    preemptor = pod("p2", priority=HIGH_PRIORITY, req=LARGE)
    fwk, plugin = plugin_over(pods, ["node1"], preemptor)
    plugin.more_important_pod = lambda a, b: plugin.start_times.of(a) < plugin.start_times.of(b)

    (candidate,) = dry_run(fwk, plugin, preemptor)

    assert [p.name for p in candidate.victims.pods] == ["v3", "v1"]


def test_a_custom_order_preempts_the_alphabetically_last_pods_first() -> None:
    pods = [
        pod("foo", uid="v1", node="node1", priority=LOW_PRIORITY, req=MEDIUM, start=0),
        pod("bar", uid="v2", node="node1", priority=LOW_PRIORITY, req=MEDIUM, start=0),
        pod("baz", uid="v3", node="node1", priority=MID_PRIORITY, req=MEDIUM, start=0),
    ]
    preemptor = pod("p2", priority=HIGH_PRIORITY, req=LARGE)
    fwk, plugin = plugin_over(pods, ["node1"], preemptor)
    plugin.more_important_pod = lambda a, b: a.name < b.name

    (candidate,) = dry_run(fwk, plugin, preemptor)

    assert [p.name for p in candidate.victims.pods] == ["baz", "foo"]
