"""The default plugin set of kube-scheduler v1.36 and how a profile's plugins merge into it."""

from __future__ import annotations

from framework.config.types import EXTENSION_POINTS, Plugin, Plugins, PluginSet
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates

# (name, weight) of the default multiPoint plugins, before feature gates add theirs.
_DEFAULT_MULTI_POINT: tuple[tuple[str, int | None], ...] = (
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
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)


def default_plugins(features: FeatureGates = DEFAULT_FEATURE_GATES) -> Plugins:
    """A fresh copy of the default plugins (all registered through multiPoint)."""
    enabled = [Plugin(name=name, weight=weight) for name, weight in _DEFAULT_MULTI_POINT]
    if features.enabled("NodeDeclaredFeatures"):
        enabled.append(Plugin(name="NodeDeclaredFeatures"))
    if features.enabled("DynamicResourceAllocation"):
        # Before DefaultPreemption: freeing an idle claim beats evicting a pod.
        at = next(i for i, p in enumerate(enabled) if p.name == "DefaultPreemption")
        enabled.insert(at, Plugin(name="DynamicResources", weight=2))
    if features.enabled("GangScheduling"):
        enabled.append(Plugin(name="GangScheduling"))
    if features.enabled("TopologyAwareWorkloadScheduling"):
        enabled.append(Plugin(name="TopologyPlacementGenerator"))
        enabled.append(Plugin(name="PodGroupPodsCount", weight=1))
    return Plugins(multi_point=PluginSet(enabled=enabled))


def merge_plugins(defaults: Plugins, custom: Plugins | None) -> Plugins:
    """The user's plugins applied on top of the defaults, point by point (mergePlugins)."""
    if custom is None:
        return defaults
    for attr, _ in EXTENSION_POINTS:
        setattr(defaults, attr, merge_plugin_set(getattr(defaults, attr), getattr(custom, attr)))
    return defaults


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """Upstream's mergePluginSet.

    Defaults keep their order unless disabled ("*" disables all); a default the user enables
    again is replaced in place by the user's entry (its weight wins); the user's other plugins
    follow in their order, duplicates included (the framework rejects those later). Disabled
    entries are kept, without weights, so multiPoint expansion can honour them.
    """
    disabled = [Plugin(name=p.name) for p in (*custom.disabled, *default.disabled)]
    disabled_names = {p.name for p in disabled}
    last_index_by_name = {plugin.name: i for i, plugin in enumerate(custom.enabled)}

    enabled: list[Plugin] = []
    replaced: set[int] = set()
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            index = last_index_by_name.get(plugin.name)
            if index is not None:
                plugin = custom.enabled[index]
                replaced.add(index)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled=enabled, disabled=disabled)


def plugin_names(plugins: Plugins | None) -> list[str]:
    """Sorted names of every enabled plugin (upstream pluginsNames): which plugins get args."""
    if plugins is None:
        return []
    return sorted({p.name for attr, _ in EXTENSION_POINTS for p in getattr(plugins, attr).enabled})
