"""The default plugin set and mergePlugins, from upstream's default_plugins_test.go tables."""

from __future__ import annotations

import pytest

from framework.config.default_plugins import default_plugins, merge_plugins, plugin_names
from framework.config.types import Plugin, Plugins, PluginSet
from framework.features import FeatureGates

BASE = [
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, [*BASE, ("NodeDeclaredFeatures", None)]),
        (
            {"NodeDeclaredFeatures": False, "InPlacePodLevelResourcesVerticalScaling": False},
            BASE,
        ),
        (
            {"GangScheduling": True, "GenericWorkload": True},
            [*BASE, ("NodeDeclaredFeatures", None), ("GangScheduling", None)],
        ),
        (
            {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True},
            [
                *BASE,
                ("NodeDeclaredFeatures", None),
                ("TopologyPlacementGenerator", None),
                ("PodGroupPodsCount", 1),
            ],
        ),
    ],
    ids=[
        "v1.36 defaults enable DynamicResources and NodeDeclaredFeatures",
        "NodeDeclaredFeatures disabled drops its plugin",
        "GangScheduling adds its plugin at the end",
        "TopologyAwareWorkloadScheduling adds the placement plugins",
    ],
)
def test_default_plugins_follow_the_feature_gates(overrides, expected) -> None:
    plugins = default_plugins(FeatureGates(overrides))

    assert [(p.name, p.weight) for p in plugins.multi_point.enabled] == expected
    assert plugins.multi_point.disabled == []
    assert plugins.filter == PluginSet()


def ps(enabled=(), disabled=()) -> PluginSet:
    def plugin(entry):
        return Plugin(*entry) if isinstance(entry, tuple) else Plugin(entry)

    return PluginSet(enabled=[plugin(e) for e in enabled], disabled=[plugin(d) for d in disabled])


MERGE_CASES = [
    (
        "a custom plugin is appended after the defaults",
        Plugins(filter=ps(["CustomPlugin"])),
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"])),
    ),
    (
        "a disabled default can be enabled again after a custom plugin",
        Plugins(filter=ps(["CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"])),
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(
            filter=ps(["DefaultPlugin1", "CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"])
        ),
    ),
    (
        "disabling everything puts custom plugins first",
        Plugins(filter=ps(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])),
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=ps(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])),
    ),
    (
        "defaults can be reordered by disabling all of them",
        Plugins(filter=ps(["DefaultPlugin2", "DefaultPlugin1"], ["*"])),
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=ps(["DefaultPlugin2", "DefaultPlugin1"], ["*"])),
    ),
    (
        "no custom plugins keeps the defaults",
        None,
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"])),
    ),
    (
        "a custom entry overrides a default's weight in place",
        Plugins(filter=ps([("Plugin1", 2), ("Plugin3", 3)])),
        Plugins(filter=ps(["Plugin1", "Plugin2", "Plugin3"])),
        Plugins(filter=ps([("Plugin1", 2), "Plugin2", ("Plugin3", 3)])),
    ),
    (
        "overriding keeps the default order",
        Plugins(filter=ps([("Plugin2", 2), ("Plugin1", 1)])),
        Plugins(filter=ps(["Plugin1", "Plugin2", "Plugin3"])),
        Plugins(filter=ps([("Plugin1", 1), ("Plugin2", 2), "Plugin3"])),
    ),
    (
        "a repeated custom plugin replaces the default with its last entry and keeps the other",
        Plugins(filter=ps(["Plugin1", ("Plugin2", 2), "Plugin3", ("Plugin2", 4)])),
        Plugins(filter=ps(["Plugin1", "Plugin2", "Plugin3"])),
        Plugins(filter=ps(["Plugin1", ("Plugin2", 4), "Plugin3", ("Plugin2", 2)])),
    ),
    (
        "a custom multiPoint plugin is appended",
        Plugins(multi_point=ps(["CustomPlugin"])),
        Plugins(multi_point=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(multi_point=ps(["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"])),
    ),
    (
        "disabled multiPoint defaults are dropped and other points keep their disabled lists",
        Plugins(
            multi_point=ps(["CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"]),
            score=ps(disabled=["CustomPlugin2"]),
        ),
        Plugins(multi_point=ps(["DefaultPlugin1", "DefaultPlugin2"])),
        Plugins(
            multi_point=ps(["DefaultPlugin1", "CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"]),
            score=ps(disabled=["CustomPlugin2"]),
        ),
    ),
    (
        "a default multiPoint plugin takes the custom weight",
        Plugins(multi_point=ps([("DefaultPlugin", 5)])),
        Plugins(multi_point=ps(["DefaultPlugin"])),
        Plugins(multi_point=ps([("DefaultPlugin", 5)])),
    ),
    (
        "the defaults' own disabled plugins are kept",
        Plugins(multi_point=ps(["CustomPlugin"])),
        Plugins(multi_point=ps(["DefaultPlugin"], ["DefaultPlugin2"])),
        Plugins(multi_point=ps(["DefaultPlugin", "CustomPlugin"], ["DefaultPlugin2"])),
    ),
    (
        "defaults disabled at a specific point stay disabled there",
        Plugins(multi_point=ps(["CustomPlugin"])),
        Plugins(multi_point=ps(["DefaultPlugin"]), score=ps(disabled=["DefaultPlugin2"])),
        Plugins(
            multi_point=ps(["DefaultPlugin", "CustomPlugin"]), score=ps(disabled=["DefaultPlugin2"])
        ),
    ),
    (
        "a multiPoint set with only disabled plugins is merged",
        Plugins(multi_point=ps(disabled=["DefaultPlugin"])),
        Plugins(multi_point=ps(["DefaultPlugin"])),
        Plugins(multi_point=ps(disabled=["DefaultPlugin"])),
    ),
]


@pytest.mark.parametrize(
    ("custom", "defaults", "expected"),
    [case[1:] for case in MERGE_CASES],
    ids=[case[0] for case in MERGE_CASES],
)
def test_merge_plugins(custom, defaults, expected) -> None:
    assert merge_plugins(defaults, custom) == expected


def test_disabled_entries_lose_their_weight() -> None:
    merged = merge_plugins(Plugins(), Plugins(score=ps(disabled=[("ImageLocality", 5)])))

    assert merged.score.disabled == [Plugin("ImageLocality")]


def test_plugin_names_lists_every_enabled_plugin_once_in_name_order() -> None:
    plugins = Plugins(
        multi_point=ps(["B", "A"]), filter=ps(["C", "A"], ["D"]), placement_score=ps(["E"])
    )

    assert plugin_names(plugins) == ["A", "B", "C", "E"]
    assert plugin_names(None) == []
