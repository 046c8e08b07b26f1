"""The runtime's batch path: many nodes per plugin call, the same verdicts and scores as one
node at a time, and one ``pluginBatch`` trace event per call that expands to per-node events."""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.interface.plugins import BatchFilterPlugin, BatchScorePlugin
from framework.interface.status import Code, Status
from framework.interface.types import NodePluginScores, PluginScore, ScoredNodes
from framework.runtime.nominated_pods import NodesWithNominatedPods
from framework.testing.fake_plugins import FakeFilter, FakePreFilter, FakeScore
from framework.trace import PLUGIN, PLUGIN_BATCH, Recorder, per_node_events
from tests.framework.builders import make_node_info, make_pod
from tests.framework.runtime.helpers import framework_of

NODE_NAMES = ("n1", "n2", "n3", "n4", "n5")


class BatchFilter(FakeFilter, BatchFilterPlugin):
    """A fake filter with a batch form; it keeps the node names of every batch it gets."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.batches: list[list[str]] = []

    def filter_nodes(self, state: Any, pod: Any, node_infos: Any) -> list[Status | None]:
        self.batches.append([n.node_name for n in node_infos])
        return [self.filter(state, pod, n) for n in node_infos]


class BatchScore(FakeScore, BatchScorePlugin):
    def score_nodes(self, state: Any, pod: Any, node_infos: Any) -> tuple[list[int], Any]:
        results = [self.score(state, pod, n) for n in node_infos]
        failed = next((s for _, s in results if s is not None and not s.is_success()), None)
        return [score for score, _ in results], failed


def nodes() -> list[Any]:
    return [make_node_info(name) for name in NODE_NAMES]


def verdicts(statuses: list[Status | None]) -> list[Any]:
    return [None if s is None else (s.code, s.plugin, s.all_reasons()) for s in statuses]


def mixed_filters() -> list[Any]:
    return [
        BatchFilter("A", code=Code.UNSCHEDULABLE, message="a", fail_nodes={"n2"}),
        FakeFilter("B", code=Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message="b", fail_nodes={"n3"}),
        BatchFilter("C", code=Code.ERROR, message="c", fail_nodes={"n2", "n4"}),
        BatchFilter("D", code=Code.UNSCHEDULABLE, message="d"),
    ]


def test_batch_filtering_gives_each_node_the_status_of_filtering_it_alone():
    plugins = mixed_filters()
    framework = framework_of(plugins, points={"filter": ["A", "B", "C", "D"]})
    pod = make_pod("web")
    one_by_one = [framework.run_filter_plugins(CycleState(), pod, n) for n in nodes()]
    batched = framework.run_filter_plugins_on_nodes(CycleState(), pod, nodes())
    assert verdicts(batched) == verdicts(one_by_one)
    assert verdicts(batched)[:3] == [
        (Code.UNSCHEDULABLE, "D", ["d"]),
        (Code.UNSCHEDULABLE, "A", ["a"]),
        (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "B", ["b"]),
    ]
    assert verdicts(batched)[3] == (Code.ERROR, "C", ['running "C" filter plugin: c'])


def test_each_plugin_sees_only_the_nodes_the_plugins_before_it_passed():
    plugins = mixed_filters()
    framework = framework_of(plugins, points={"filter": ["A", "B", "C", "D"]})
    framework.run_filter_plugins_on_nodes(CycleState(), make_pod("web"), nodes())
    assert [p.batches for p in (plugins[0], plugins[2], plugins[3])] == [
        [list(NODE_NAMES)],
        [["n1", "n4", "n5"]],
        [["n1", "n5"]],
    ]


def test_plugins_skipped_at_pre_filter_are_not_called_on_the_batch():
    skipped = BatchFilter("A", code=Code.UNSCHEDULABLE)
    framework = framework_of([skipped], points={"filter": ["A"]})
    state = CycleState()
    state.skip_filter_plugins = {"A"}
    assert framework.run_filter_plugins_on_nodes(state, make_pod(), nodes()) == [None] * 5
    assert skipped.batches == []


class Nominator:
    def __init__(self, by_node: dict[str, list[PodInfo]]) -> None:
        self.by_node = by_node

    def nominated_pods_for_node(self, name: str) -> list[PodInfo]:
        return self.by_node.get(name, [])


class ListingNominator(Nominator):
    def nominated_node_names(self) -> frozenset[str]:
        return frozenset(self.by_node)


@pytest.mark.parametrize(
    ("nominator", "extensions", "fail", "batched"),
    [
        (ListingNominator, False, True, ["n1", "n3", "n4", "n5"]),
        (Nominator, False, True, ["n1", "n3", "n4", "n5"]),
        (ListingNominator, False, False, ["n1", "n3", "n4", "n5"]),
        (ListingNominator, True, True, ["n1", "n3", "n4", "n5"]),
        (Nominator, True, True, []),
    ],
    ids=[
        "nodes with nominated pods are filtered apart from the others, in a batch of their own",
        "a nominator that cannot list its nodes is asked about every node, still in batches",
        "a node that passes with its nominated pods is filtered again without them",
        "with a PreFilter extension running, nodes with nominated pods go one by one",
        "with a PreFilter extension running and a nominator that cannot list, every node does",
    ],
)
def test_nodes_with_nominated_pods_get_the_one_by_one_verdicts(
    nominator, extensions, fail, batched
):
    big = PodInfo(make_pod("big", priority=10, cpu="3"))
    plugin = BatchFilter(
        "A", code=Code.UNSCHEDULABLE, message="full", fail_nodes=None if fail else set()
    )
    pre_filter = FakePreFilter("P", with_extensions=extensions)
    framework = framework_of(
        [plugin, pre_filter],
        points={"filter": ["A"], "pre_filter": ["P"]},
        pod_nominator=nominator({"n2": [big]}),
    )
    pod = make_pod("web", priority=0)
    got = framework.run_filter_plugins_with_nominated_pods_on_nodes(CycleState(), pod, nodes())
    want = [framework.run_filter_plugins_with_nominated_pods(CycleState(), pod, n) for n in nodes()]
    assert verdicts(got) == verdicts(want)
    assert [name for batch in plugin.batches for name in batch if len(batch) > 1] == batched


def test_a_batch_is_traced_as_one_event_that_expands_to_the_per_node_events():
    per_node, batched = Recorder(), Recorder()
    pod = make_pod("web")
    one = framework_of(mixed_filters()[:2], points={"filter": ["A", "B"]}, observer=per_node)
    for node_info in nodes():
        one.run_filter_plugins(CycleState(), pod, node_info)
    many = framework_of(mixed_filters()[:2], points={"filter": ["A", "B"]}, observer=batched)
    many.run_filter_plugins_on_nodes(CycleState(), pod, nodes())

    assert [(e.kind, e.plugin) for e in batched.events] == [(PLUGIN_BATCH, "A")] + [
        (PLUGIN, "B")
    ] * 4
    [batch] = batched.of(PLUGIN_BATCH)
    assert (batch.code, batch.data) == (
        "Unschedulable",
        {"nodes": list(NODE_NAMES), "failed": {"n2": {"code": "Unschedulable", "reasons": ["a"]}}},
    )

    def calls(events):
        expanded = [e for event in events for e in per_node_events(event)]
        return sorted((e.node, e.plugin, e.code, tuple(e.reasons)) for e in expanded)

    assert calls(batched.events) == calls(per_node.events)


def test_batch_scores_are_traced_with_their_raw_scores():
    recorder = Recorder()
    framework = framework_of(
        [BatchScore("S", scores={"n1": 5, "n2": 10})],
        points={"score": [("S", 2)]},
        observer=recorder,
    )
    framework.run_score_plugins(CycleState(), make_pod(), nodes()[:2])
    [batch] = recorder.of(PLUGIN_BATCH, "score")
    assert batch.data == {"nodes": ["n1", "n2"], "scores": [5, 10]}
    assert [(e.node, e.score) for e in per_node_events(batch)] == [("n1", 5), ("n2", 10)]


def test_a_failed_score_batch_stays_one_event():
    recorder = Recorder()
    framework = framework_of(
        [BatchScore("S", code=Code.ERROR)], points={"score": ["S"]}, observer=recorder
    )
    _, status = framework.run_score_plugins(CycleState(), make_pod(), nodes()[:2])
    assert status == Status.error('running Score plugins: plugin "S" failed with: injected')
    [batch] = recorder.of(PLUGIN_BATCH, "score")
    assert (batch.code, batch.reasons) == ("Error", ["injected"])
    assert per_node_events(batch) == [batch]


def test_batch_and_per_node_score_plugins_add_up_the_same():
    def table(plugins):
        framework = framework_of(plugins, points={"score": [("A", 3), ("B", 2)]})
        result, status = framework.run_score_plugins(CycleState(), make_pod(), nodes()[:3])
        assert status is None
        return [(n.name, [(s.name, s.score) for s in n.scores], n.total_score) for n in result]

    scores_a, scores_b = {"n1": 10, "n2": 40, "n3": 0}, {"n1": 100, "n2": 50, "n3": 7}
    assert table([BatchScore("A", scores=scores_a), FakeScore("B", scores=scores_b)]) == table(
        [FakeScore("A", scores=scores_a), FakeScore("B", scores=scores_b)]
    )


def test_node_plugin_scores_build_their_plugin_scores_when_read():
    lazy = NodePluginScores.of_weighted("n1", ("A", "B"), (30, 12))
    assert lazy.total_score == 42
    assert lazy == NodePluginScores("n1", [PluginScore("A", 30), PluginScore("B", 12)], 42)
    lazy.scores.append(PluginScore("Extender", 5))
    assert [s.name for s in lazy.scores] == ["A", "B", "Extender"]


def test_scored_nodes_keep_columns_and_build_each_node_once_when_read():
    scored = ScoredNodes.of_weighted_columns(["n1", "n2"], ("A", "B"), [[30, 0], [12, 7]])
    assert (scored.names, scored.totals, len(scored)) == (["n1", "n2"], [42, 7], 2)
    assert scored == [
        NodePluginScores("n1", [PluginScore("A", 30), PluginScore("B", 12)], 42),
        NodePluginScores("n2", [PluginScore("A", 0), PluginScore("B", 7)], 7),
    ]
    assert scored[1] is scored[1] and scored[-1] is scored[1]
    assert [n.name for n in scored[:1]] == ["n1"]

    changed = list(scored)  # what the scheduler does before adding extender scores
    changed[0].total_score += 5
    assert (scored[0].total_score, scored.totals[0]) == (47, 42), "totals are the runtime's"


def test_scored_nodes_of_no_plugin_total_zero():
    assert ScoredNodes.of_weighted_columns(["n1", "n2"], (), []).totals == [0, 0]


def test_a_node_with_nominated_pods_is_copied_again_only_when_something_changed():
    memo = NodesWithNominatedPods()
    node_info = make_node_info("n1")
    nominated = [PodInfo(make_pod("a")), PodInfo(make_pod("b"))]
    copy = memo.with_pods(node_info, nominated, keep=True)
    assert [p.pod.name for p in copy.pods] == ["a", "b"] and not node_info.pods
    assert memo.with_pods(node_info, list(nominated), keep=True) is copy, "nothing changed"
    assert memo.with_pods(node_info, nominated[:1], keep=True) is not copy, "other pods"
    node_info.add_pod(make_pod("c"))
    again = memo.with_pods(node_info, nominated, keep=True)
    assert [p.pod.name for p in again.pods] == ["c", "a", "b"], "the node changed"
    assert memo.with_pods(node_info, nominated, keep=False) is not again, "a dry run's copy"
