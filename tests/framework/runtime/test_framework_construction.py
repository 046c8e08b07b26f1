"""Building a Framework from a profile: NewFramework's rules, errors and multiPoint order."""

from __future__ import annotations

import pytest

from framework.config.defaults import default_configuration
from framework.config.types import Plugin as ConfigPlugin
from framework.interface.events import unroll_wildcard_resource
from framework.interface.plugins import FilterPlugin
from framework.plugins.registry import in_tree_registry
from framework.runtime.construction import EXTENSION_POINTS, camel, implemented_points
from framework.runtime.framework import Framework, FrameworkError
from framework.runtime.registry import Registry, plugin_type
from framework.testing.fake_plugins import (
    AllPointsPlugin,
    FakeBind,
    FakeFilter,
    FakeQueueSort,
    FakeScore,
)
from tests.framework.runtime.helpers import minimal, plugin_set, profile, registry_with


def standard_registry() -> Registry:
    """Upstream's multiPoint test plugins: one that implements everything, and score plugins."""
    return registry_with(
        AllPointsPlugin("TestPlugin"),
        FakeScore("ScorePlugin1"),
        FakeScore("ScoreWithNormalizePlugin1", normalize=lambda scores: None),
        FakeQueueSort("QS"),
        FakeBind("Binder"),
        FakeFilter("Filter1"),
    )


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (
            minimal(filter=["Missing"]),
            'FilterPlugin "Missing" does not exist',
        ),
        (
            minimal(filter=["ScorePlugin1"]),
            'plugin "ScorePlugin1" does not extend FilterPlugin plugin',
        ),
        (
            minimal(filter=["Filter1", "Filter1"]),
            'plugin "Filter1" already registered as "FilterPlugin"',
        ),
        (
            {"bind": ["Binder"]},
            "only one queue sort plugin required for profile with scheduler name "
            '"default-scheduler", but got 0',
        ),
        (
            {"queue_sort": ["QS", "TestPlugin"], "bind": ["Binder"]},
            "only one queue sort plugin required for profile with scheduler name "
            '"default-scheduler", but got 2',
        ),
        (
            {"queue_sort": ["QS"]},
            "at least one bind plugin is needed for profile with scheduler name "
            '"default-scheduler"',
        ),
        (
            minimal(multi_point=["TestPlugin", "Missing"]),
            'PreFilterPlugin "Missing" does not exist',
        ),
        (
            minimal(multi_point=["Filter1", "Filter1"]),
            'plugin "Filter1" already registered as "FilterPlugin"',
        ),
        (
            minimal(score=[("ScorePlugin1", 1 << 62), ("ScoreWithNormalizePlugin1", 1 << 62)]),
            "score plugins: total score of Score plugins could overflow",
        ),
    ],
    ids=[
        "an unknown plugin is rejected",
        "a plugin that does not implement the extension point is rejected",
        "a plugin enabled twice at one point is rejected",
        "a profile without queue sort plugin is rejected",
        "a profile with two queue sort plugins is rejected",
        "a profile without bind plugin is rejected",
        "an unknown multiPoint plugin is rejected",
        "a plugin enabled twice in multiPoint is rejected",
        "score weights whose total could overflow are rejected",
    ],
)
def test_it_rejects_invalid_profiles_with_upstream_messages(points, message):
    with pytest.raises(FrameworkError) as error:
        Framework(standard_registry(), profile(**points))
    assert str(error.value) == message


def test_it_rejects_repeated_plugin_config():
    config = profile(**minimal())
    config.plugin_config = (
        config.plugin_config + profile(plugin_config={"QS": None}).plugin_config * 2
    )
    with pytest.raises(FrameworkError) as error:
        Framework(standard_registry(), config)
    assert str(error.value) == "repeated config for plugin QS"


def test_it_wraps_errors_of_plugin_factories_with_the_plugin_name():
    def broken(args, handle):
        raise ValueError("bad args")

    registry = standard_registry()
    registry.register("Broken", broken)
    with pytest.raises(FrameworkError) as error:
        Framework(registry, profile(**minimal(filter=["Broken"])))
    assert str(error.value) == 'initializing plugin "Broken": bad args'


def test_it_passes_each_plugin_its_configured_args_and_itself_as_handle():
    received = {}

    def factory(args, handle):
        received["args"], received["handle"] = args, handle
        return FakeFilter("WithArgs")

    registry = standard_registry()
    registry.register("WithArgs", factory)
    framework = Framework(
        registry,
        profile(plugin_config={"WithArgs": {"threshold": 3}}, **minimal(filter=["WithArgs"])),
    )
    assert received == {"args": {"threshold": 3}, "handle": framework}


def test_it_only_instantiates_plugins_the_profile_uses():
    built = []
    registry = standard_registry()
    registry.register("Unused", lambda args, handle: built.append("Unused"))
    Framework(registry, profile(**minimal()))
    assert built == []


def test_a_zero_score_weight_counts_as_one():
    framework = Framework(standard_registry(), profile(**minimal(score=[("ScorePlugin1", 0)])))
    assert framework.score_plugin_weight == {"ScorePlugin1": 1}


@pytest.mark.parametrize(
    ("points", "want"),
    [
        (
            {"multi_point": [("TestPlugin", 5)]},
            {
                "queueSort": [("TestPlugin", None)],
                "preEnqueue": [("TestPlugin", None)],
                "preFilter": [("TestPlugin", None)],
                "filter": [("TestPlugin", None)],
                "postFilter": [("TestPlugin", None)],
                "preScore": [("TestPlugin", None)],
                "score": [("TestPlugin", 5)],
                "reserve": [("TestPlugin", None)],
                "permit": [("TestPlugin", None)],
                "preBind": [("TestPlugin", None)],
                "bind": [("TestPlugin", None)],
                "postBind": [("TestPlugin", None)],
            },
        ),
        (
            {
                "multi_point": ["TestPlugin"],
                "pre_score": plugin_set(disabled=["TestPlugin"]),
                "score": plugin_set(disabled=["TestPlugin"]),
                "pre_enqueue": plugin_set(disabled=["TestPlugin"]),
            },
            {
                "queueSort": [("TestPlugin", None)],
                "preFilter": [("TestPlugin", None)],
                "filter": [("TestPlugin", None)],
                "postFilter": [("TestPlugin", None)],
                "reserve": [("TestPlugin", None)],
                "permit": [("TestPlugin", None)],
                "preBind": [("TestPlugin", None)],
                "bind": [("TestPlugin", None)],
                "postBind": [("TestPlugin", None)],
            },
        ),
        (
            {
                "multi_point": ["TestPlugin", "ScorePlugin1"],
                "score": plugin_set(disabled=["*"]),
            },
            {"score": []},
        ),
        (
            {
                "multi_point": ["ScoreWithNormalizePlugin1", "TestPlugin", "ScorePlugin1"],
                "score": ["ScorePlugin1", "TestPlugin"],
            },
            {"score": [("ScorePlugin1", 1), ("TestPlugin", 1), ("ScoreWithNormalizePlugin1", 1)]},
        ),
        (
            {
                "multi_point": ["TestPlugin", "ScorePlugin1"],
                "score": ["ScoreWithNormalizePlugin1", "ScorePlugin1", "TestPlugin"],
            },
            {"score": [("ScorePlugin1", 1), ("TestPlugin", 1), ("ScoreWithNormalizePlugin1", 1)]},
        ),
        (
            {
                "multi_point": [("TestPlugin", 2), "ScorePlugin1"],
                "score": [("ScorePlugin1", 5), ("TestPlugin", 3)],
            },
            {"score": [("ScorePlugin1", 5), ("TestPlugin", 3)]},
        ),
        (
            {"multi_point": ["TestPlugin"], "filter": ["Filter1"]},
            {"filter": [("TestPlugin", None), ("Filter1", None)]},
        ),
    ],
    ids=[
        "a multiPoint plugin is expanded to every point it implements",
        "a multiPoint plugin can be disabled at specific points",
        "disabling all plugins at a point skips multiPoint expansion there",
        "a point's explicit plugins come first in their own order",
        "explicit order only applies to plugins that are also in multiPoint",
        "explicit weights override multiPoint weights",
        "a point's own plugins follow the multiPoint ones",
    ],
)
def test_multi_point_expansion_follows_upstream_precedence(points, want):
    framework = Framework(standard_registry(), profile(**points))
    got = framework.list_plugins()
    for point, plugins in want.items():
        assert got.get(point, []) == plugins, point
    if "queueSort" in want and "preEnqueue" not in want:
        assert "preEnqueue" not in got


class PlainFilter(FilterPlugin):
    """A filter without EnqueueExtensions."""

    name = "Plain"

    def filter(self, state, pod, node_info):
        return None


def test_plugins_without_enqueue_extensions_requeue_on_every_event():
    registry = standard_registry()
    registry.register("Plain", lambda args, handle: PlainFilter())
    framework = Framework(registry, profile(**minimal(filter=["Plain", "Filter1"])))
    by_name = {ext.name: ext for ext in framework.enqueue_extensions}
    assert set(by_name) == {"Plain", "Filter1"}
    assert by_name["Plain"].events_to_register() == unroll_wildcard_resource()
    assert by_name["Filter1"].events_to_register() == []


def test_only_requeueable_plugin_kinds_contribute_enqueue_extensions():
    framework = Framework(standard_registry(), profile(**minimal(score=["ScorePlugin1"])))
    assert framework.enqueue_extensions == []


# ----------------------------------------------------------------------------------------------
# Which points a plugin may be enabled at


@pytest.mark.parametrize(
    ("plugin", "points"),
    [
        ("ImageLocality", ["score"]),
        ("PrioritySort", ["queueSort"]),
        ("DefaultPreemption", ["postFilter", "preEnqueue"]),
        ("NodeResourcesFit", ["preFilter", "filter", "preScore", "score", "placementScore"]),
        ("TopologyPlacementGenerator", ["placementGenerate"]),
        ("PodGroupPodsCount", ["placementScore"]),
        ("DefaultBinder", ["bind"]),
    ],
)
def test_the_points_a_plugin_implements_are_known_from_its_class(plugin, points):
    assert implemented_points(plugin_type(in_tree_registry()[plugin])) == points


def test_construction_refuses_an_in_tree_plugin_exactly_where_it_does_not_implement_the_point():
    """``implemented_points`` and construction agree, for every in-tree plugin and point: the
    profile form offers a plugin only where the framework will take it."""
    registry = in_tree_registry()
    for name, factory in registry.items():
        implemented = implemented_points(plugin_type(factory))
        for attr, _, kind_name in EXTENSION_POINTS:
            profile = default_configuration().profiles[0]
            point = getattr(profile.plugins, attr)
            point.enabled = [entry for entry in point.enabled if entry.name != name]
            point.enabled.append(ConfigPlugin(name=name, weight=1 if attr == "score" else None))
            refusal = f'plugin "{name}" does not extend {kind_name} plugin'
            try:
                Framework(registry, profile)
            except FrameworkError as err:
                assert camel(attr) not in implemented and str(err) == refusal, (name, attr, err)
            else:
                assert camel(attr) in implemented, (name, attr)
