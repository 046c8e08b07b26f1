"""The pod-group points PlacementGenerate and PlacementScore: construction and run methods
(the facts of upstream's TestNewFramework / TestNewFrameworkMultiPointExpansion cases for them,
TestRunPlacementGeneratePlugins and TestRunPlacementScorePlugins)."""

from __future__ import annotations

import pytest

from framework.config.defaults import default_configuration
from framework.features import FeatureGates
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.interface.placement import Placement, PodGroupAssignments
from framework.interface.pod_group_info import PodGroupInfo
from framework.interface.status import Code, Status
from framework.interface.types import PluginScore
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework, FrameworkError
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import (
    AllPointsPlugin,
    FakeBind,
    FakePlacementGenerate,
    FakePlacementScore,
    FakeQueueSort,
    FakeScore,
)
from tests.framework.builders import make_node
from tests.framework.runtime.helpers import (
    framework_of,
    minimal,
    plugin_set,
    profile,
    registry_with,
)

GROUP = PodGroupInfo("default", "pg")


def multi_point_registry() -> Registry:
    return registry_with(
        AllPointsPlugin("TestPlugin"),
        FakeScore("ScorePlugin1"),
        FakePlacementGenerate("PlacementGenerate1"),
        FakePlacementScore("PlacementScore1"),
        FakePlacementScore("PlacementScore2"),
        FakeQueueSort("QS"),
        FakeBind("Binder"),
    )


def node_infos(*names: str) -> list[NodeInfo]:
    infos = []
    for name in names:
        info = NodeInfo()
        info.set_node(make_node(name))
        infos.append(info)
    return infos


# -- construction -----------------------------------------------------------------------------


def test_a_profile_takes_at_most_one_placement_generate_plugin():
    registry = registry_with(
        FakePlacementGenerate("A"),
        FakePlacementGenerate("B"),
        FakeQueueSort("QS"),
        FakeBind("Binder"),
    )
    with pytest.raises(FrameworkError) as raised:
        Framework(registry, profile(**minimal(placement_generate=["A", "B"])))
    assert str(raised.value) == (
        "at most one placement generate plugin is allowed for profile with scheduler name "
        '"default-scheduler"'
    )


def test_a_plugin_without_the_interface_is_refused_at_a_placement_point():
    with pytest.raises(FrameworkError) as raised:
        Framework(multi_point_registry(), profile(**minimal(placement_score=["ScorePlugin1"])))
    assert str(raised.value) == 'plugin "ScorePlugin1" does not extend PlacementScorePlugin plugin'


@pytest.mark.parametrize(
    ("points", "want"),
    [
        (
            {"multi_point": ["PlacementGenerate1", "PlacementScore1", "ScorePlugin1"]},
            {
                "placementGenerate": [("PlacementGenerate1", None)],
                "placementScore": [("PlacementScore1", 1)],
                "score": [("ScorePlugin1", 1)],
            },
        ),
        (
            {
                "multi_point": ["PlacementScore1", "PlacementScore2"],
                "placement_score": plugin_set(disabled=["PlacementScore1"]),
            },
            {"placementScore": [("PlacementScore2", 1)]},
        ),
        (
            {
                "multi_point": ["PlacementScore1"],
                "placement_score": [("PlacementScore1", 2), ("PlacementScore2", 6)],
            },
            {"placementScore": [("PlacementScore1", 2), ("PlacementScore2", 6)]},
        ),
        (
            {"placement_score": [("PlacementScore1", 0)]},
            {"placementScore": [("PlacementScore1", 1)]},
        ),
    ],
    ids=[
        "multiPoint plugins reach the placement points, placement scores weighted 1",
        "a placement score plugin disabled at the point is left out",
        "weights at the point override multiPoint",
        "a zero placement score weight counts as one",
    ],
)
def test_placement_plugins_expand_and_weigh_as_score_plugins_do(points, want):
    framework = Framework(multi_point_registry(), profile(**minimal(**points)))
    listed = framework.list_plugins()
    assert {k: v for k, v in listed.items() if k not in ("queueSort", "bind", "preScore")} == want


def test_placement_score_weights_are_checked_for_overflow():
    big = (1 << 63) // 100
    points = {"placement_score": [("PlacementScore1", big), ("PlacementScore2", big)]}
    with pytest.raises(FrameworkError) as raised:
        Framework(multi_point_registry(), profile(**minimal(**points)))
    assert str(raised.value) == (
        "placement score plugins: total score of Score plugins could overflow"
    )


# -- RunPlacementGeneratePlugins --------------------------------------------------------------


def test_without_a_generator_every_node_is_the_one_placement():
    nodes = node_infos("node1", "node2", "node3")
    framework = framework_of([], points={})
    placements, status = framework.run_placement_generate_plugins(CycleState(), GROUP, nodes)
    assert status is None
    assert [(p.name, p.nodes) for p in placements] == [("", nodes)]


def test_the_generator_s_placements_are_returned_as_they_are():
    nodes = node_infos("node1", "node2", "node3")
    foo, bar = Placement("foo", nodes[:2]), Placement("bar", nodes[1:])
    plugin = FakePlacementGenerate("gen", [foo, bar])
    framework = framework_of([plugin], points={"placement_generate": ["gen"]})
    placements, status = framework.run_placement_generate_plugins(CycleState(), GROUP, nodes)
    assert status is None
    assert placements == [foo, bar]


def test_a_failing_generator_fails_with_its_status_and_name():
    plugin = FakePlacementGenerate("gen", code=Code.ERROR)
    framework = framework_of([plugin], points={"placement_generate": ["gen"]})
    placements, status = framework.run_placement_generate_plugins(
        CycleState(), GROUP, node_infos("node1")
    )
    assert placements is None
    assert (status.code, status.plugin) == (Code.ERROR, "gen")


def test_no_placement_generated_is_unschedulable():
    plugin = FakePlacementGenerate("gen", [])
    framework = framework_of([plugin], points={"placement_generate": ["gen"]})
    placements, status = framework.run_placement_generate_plugins(
        CycleState(), GROUP, node_infos("node1")
    )
    assert placements is None
    assert (status.code, status.message(), status.plugin) == (
        Code.UNSCHEDULABLE,
        "no feasible placements found",
        "gen",
    )


# -- RunPlacementScorePlugins -----------------------------------------------------------------

PLACEMENTS = [Placement(), Placement(), Placement()]


def scored(name: str, scores: list[int], errors: dict[int, Status] | None = None, **kw):
    errors = errors or {}
    results = [
        (p, s, errors.get(i)) for i, (p, s) in enumerate(zip(PLACEMENTS, scores, strict=True))
    ]
    return FakePlacementScore(name, results, **kw)


def run_scores(plugins_and_weights):
    plugins = [plugin for plugin, _ in plugins_and_weights]
    points = {"placement_score": [(p.name, w) for p, w in plugins_and_weights]}
    framework = framework_of(plugins, points=points)
    assignments = [PodGroupAssignments(p) for p in PLACEMENTS]
    return framework.run_placement_score_plugins(CycleState(), GROUP, assignments)


def totals(scores):
    return [(s.placement, s.scores, s.total_score) for s in scores]


def scale_to_third(scores):
    for score in scores:
        score.score = int(score.score / scores[2].score * 100)


def test_placement_scores_are_weighted_and_totalled():
    scores, status = run_scores(
        [(scored("plugin1", [0, 50, 100]), 1), (scored("plugin2", [0, 50, 0]), 2)]
    )
    assert status is None
    assert totals(scores) == [
        (PLACEMENTS[0], [PluginScore("plugin1", 0), PluginScore("plugin2", 0)], 0),
        (PLACEMENTS[1], [PluginScore("plugin1", 50), PluginScore("plugin2", 100)], 150),
        (PLACEMENTS[2], [PluginScore("plugin1", 100), PluginScore("plugin2", 0)], 100),
    ]


def test_any_plugin_error_fails_the_scoring():
    failing = scored("plugin2", [0, 50, 0], {1: Status(Code.ERROR, "error for test")})
    scores, status = run_scores([(scored("plugin1", [0, 50, 100]), 1), (failing, 2)])
    assert scores is None
    assert status.code == Code.ERROR
    assert status.message() == (
        'running PlacementScore plugins: plugin "plugin2" failed with: error for test'
    )


def test_without_plugins_every_placement_scores_nothing():
    scores, status = run_scores([])
    assert status is None
    assert totals(scores) == [(p, [], 0) for p in PLACEMENTS]


def test_normalized_scores_are_the_ones_weighted():
    normalizing = scored("plugin2", [100, 200, 400], normalize=scale_to_third)
    scores, status = run_scores([(scored("plugin1", [0, 50, 100]), 1), (normalizing, 2)])
    assert status is None
    assert totals(scores) == [
        (PLACEMENTS[0], [PluginScore("plugin1", 0), PluginScore("plugin2", 50)], 50),
        (PLACEMENTS[1], [PluginScore("plugin1", 50), PluginScore("plugin2", 100)], 150),
        (PLACEMENTS[2], [PluginScore("plugin1", 100), PluginScore("plugin2", 200)], 300),
    ]


def test_a_failing_normalization_fails_the_scoring():
    failing = scored(
        "plugin2", [0, 50, 100], normalize=lambda scores: Status(Code.ERROR, "error for test")
    )
    scores, status = run_scores([(scored("plugin1", [0, 50, 100]), 1), (failing, 2)])
    assert scores is None
    assert status.message() == (
        "running NormalizePlacementScore on PlacementScore plugins: "
        'plugin "plugin2" failed with: error for test'
    )


@pytest.mark.parametrize("bad", [101, -1], ids=["greater than max score", "less than min score"])
def test_a_score_out_of_range_after_normalizing_fails_the_scoring(bad):
    scores, status = run_scores([(scored("plugin1", [0, bad, 100]), 1)])
    assert scores is None
    assert status.message() == (
        'applying score defaultWeights on PlacementScore plugins: plugin "plugin1" returns an '
        f"invalid score {bad}, it should in the range of [0, 100] after normalizing"
    )


def test_the_default_profile_with_the_gate_generates_by_topology_and_scores_with_fit_and_count():
    gates = FeatureGates({"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True})
    cfg = default_configuration(gates)
    listed = Framework(in_tree_registry(gates), cfg.profiles[0]).list_plugins()
    assert listed["placementGenerate"] == [("TopologyPlacementGenerator", None)]
    assert listed["placementScore"] == [("NodeResourcesFit", 1), ("PodGroupPodsCount", 1)]


def test_without_the_gate_only_fit_is_a_placement_score_plugin_as_its_type_says():
    # Upstream expands multiPoint plugins by the interfaces their types implement, gate or not.
    listed = Framework(in_tree_registry(), default_configuration().profiles[0]).list_plugins()
    assert "placementGenerate" not in listed
    assert listed["placementScore"] == [("NodeResourcesFit", 1)]
