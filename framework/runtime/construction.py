"""Turning a profile into plugin lists: upstream NewFramework's rules, order and errors.

Kept apart from the run methods so the precedence rules (specific extension point over
multiPoint over defaults) read in one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from framework.interface.events import ClusterEventWithHint, unroll_wildcard_resource
from framework.interface.plugins import (
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    PermitPlugin,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)
from framework.interface.types import MAX_NODE_SCORE, MAX_TOTAL_SCORE

if TYPE_CHECKING:
    from framework.runtime.registry import Registry


class PluginHolder(Protocol):
    """What construction fills in a Framework: its plugins by name and per extension point
    (``<point>_plugins``, reached by name), their weights and enqueue extensions. A protocol,
    so this module does not import the Framework that imports it."""

    registry: Registry
    plugins_map: dict[str, Plugin]
    enqueue_extensions: list[EnqueueExtensions]
    score_plugin_weight: dict[str, int]
    placement_score_plugin_weight: dict[str, int]
    queue_sort_plugins: list[QueueSortPlugin]
    bind_plugins: list[BindPlugin]
    score_plugins: list[ScorePlugin]
    placement_generate_plugins: list[PlacementGeneratePlugin]
    placement_score_plugins: list[PlacementScorePlugin]


class FrameworkError(ValueError):
    """The profile cannot be turned into a framework (upstream NewFramework's errors)."""


# (configuration attribute, plugin class, upstream interface name used in messages), in the
# order upstream walks them: the first failing check decides which error the user sees.
EXTENSION_POINTS: tuple[tuple[str, type[Plugin], str], ...] = (
    ("pre_filter", PreFilterPlugin, "PreFilterPlugin"),
    ("filter", FilterPlugin, "FilterPlugin"),
    ("post_filter", PostFilterPlugin, "PostFilterPlugin"),
    ("reserve", ReservePlugin, "ReservePlugin"),
    ("pre_score", PreScorePlugin, "PreScorePlugin"),
    ("score", ScorePlugin, "ScorePlugin"),
    ("pre_bind", PreBindPlugin, "PreBindPlugin"),
    ("bind", BindPlugin, "BindPlugin"),
    ("post_bind", PostBindPlugin, "PostBindPlugin"),
    ("permit", PermitPlugin, "PermitPlugin"),
    ("pre_enqueue", PreEnqueuePlugin, "PreEnqueuePlugin"),
    ("queue_sort", QueueSortPlugin, "QueueSortPlugin"),
    ("placement_generate", PlacementGeneratePlugin, "PlacementGeneratePlugin"),
    ("placement_score", PlacementScorePlugin, "PlacementScorePlugin"),
)

# Plugin kinds whose rejections cluster events can undo (upstream shouldHaveEnqueueExtensions).
_REQUEUEABLE_KINDS = (PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, ReservePlugin, PermitPlugin)


class DefaultEnqueueExtension(EnqueueExtensions):
    """Stands in for a plugin without EnqueueExtensions: every event may requeue its pods."""

    def __init__(self, name: str) -> None:
        self.name = name

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return unroll_wildcard_resource()


def build_plugins(framework: PluginHolder, profile: Any) -> None:
    """Instantiates the profile's plugins and fills the framework's per-point lists."""
    plugins = profile.plugins
    _instantiate(framework, plugins, _plugin_args(profile))
    for attr, kind, kind_name in EXTENSION_POINTS:
        _fill_point(framework, attr, getattr(plugins, attr), kind, kind_name)
    if plugins.multi_point.enabled:
        _expand_multi_point(framework, plugins)
    _check_required_points(framework, profile.scheduler_name)
    framework.score_plugin_weight = _valid_score_weights(
        framework, ScorePlugin, [*plugins.score.enabled, *plugins.multi_point.enabled], "score"
    )
    for plugin in framework.score_plugins:
        if framework.score_plugin_weight.get(plugin.name, 0) == 0:
            raise FrameworkError(f'score plugin "{plugin.name}" is not configured with weight')
    framework.placement_score_plugin_weight = _valid_score_weights(
        framework,
        PlacementScorePlugin,
        [*plugins.placement_score.enabled, *plugins.multi_point.enabled],
        "placement score",
    )
    for plugin in framework.placement_score_plugins:
        if framework.placement_score_plugin_weight.get(plugin.name, 0) == 0:
            raise FrameworkError(
                f'placement score plugin "{plugin.name}" is not configured with weight'
            )


def implemented_points(plugin_type: type[Plugin]) -> list[str]:
    """The extension points (configuration keys, ``preFilter``...) a plugin class may be
    enabled at: those whose interface it implements. Enabled anywhere else, construction
    refuses it (``plugin "X" does not extend Y plugin``)."""
    return [camel(attr) for attr, kind, _ in EXTENSION_POINTS if issubclass(plugin_type, kind)]


def point_list(framework: PluginHolder, attr: str) -> list[Any]:
    """The framework's plugin list for a configuration attribute (``filter`` -> filter_plugins)."""
    return getattr(framework, f"{attr}_plugins")


def camel(attr: str) -> str:
    """``pre_filter`` -> ``preFilter``: the configuration key of an extension point."""
    head, *rest = attr.split("_")
    return head + "".join(part.title() for part in rest)


def _plugin_args(profile: Any) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for plugin_config in profile.plugin_config or ():
        if plugin_config.name in args:
            raise FrameworkError(f"repeated config for plugin {plugin_config.name}")
        args[plugin_config.name] = plugin_config.args
    return args


def _plugins_needed(plugins: Any) -> set[str]:
    needed = {entry.name for entry in plugins.multi_point.enabled}
    for attr, _, _ in EXTENSION_POINTS:
        needed.update(entry.name for entry in getattr(plugins, attr).enabled)
    return needed


def _instantiate(framework: PluginHolder, plugins: Any, args: dict[str, Any]) -> None:
    needed = _plugins_needed(plugins)
    for name, factory in framework.registry.items():
        if name not in needed:
            continue
        try:
            plugin = factory(args.get(name), framework)
        except Exception as err:
            raise FrameworkError(f'initializing plugin "{name}": {err}') from err
        framework.plugins_map[name] = plugin
        _fill_enqueue_extensions(framework, plugin)


def _fill_enqueue_extensions(framework: PluginHolder, plugin: Plugin) -> None:
    if not isinstance(plugin, _REQUEUEABLE_KINDS):
        return
    if isinstance(plugin, EnqueueExtensions):
        framework.enqueue_extensions.append(plugin)
    else:
        framework.enqueue_extensions.append(DefaultEnqueueExtension(plugin.name))


def _fill_point(
    framework: PluginHolder, attr: str, plugin_set: Any, kind: type[Plugin], kind_name: str
) -> None:
    target = point_list(framework, attr)
    seen: set[str] = set()
    for entry in plugin_set.enabled:
        plugin = framework.plugins_map.get(entry.name)
        if plugin is None:
            raise FrameworkError(f'{kind_name} "{entry.name}" does not exist')
        if not isinstance(plugin, kind):
            raise FrameworkError(f'plugin "{entry.name}" does not extend {kind_name} plugin')
        if entry.name in seen:
            raise FrameworkError(f'plugin "{entry.name}" already registered as "{kind_name}"')
        seen.add(entry.name)
        target.append(plugin)


def _expand_multi_point(framework: PluginHolder, plugins: Any) -> None:
    """Adds multiPoint plugins to every point they implement, with upstream's precedence.

    The resulting order is: plugins both in multiPoint and explicitly at the point (in the
    point's order), then multiPoint-only plugins, then the point's other plugins.
    """
    for attr, kind, kind_name in EXTENSION_POINTS:
        plugin_set = getattr(plugins, attr)
        enabled = [entry.name for entry in plugin_set.enabled]
        disabled = {entry.name for entry in plugin_set.disabled}
        if "*" in disabled:
            continue
        multi_point: list[str] = []
        overrides: set[str] = set()
        for entry in plugins.multi_point.enabled:
            plugin = framework.plugins_map.get(entry.name)
            if plugin is None:
                raise FrameworkError(f'{kind_name} "{entry.name}" does not exist')
            if not isinstance(plugin, kind) or entry.name in disabled:
                continue
            if entry.name in enabled:
                overrides.add(entry.name)
                continue
            if entry.name in multi_point:
                raise FrameworkError(f'plugin "{entry.name}" already registered as "{kind_name}"')
            multi_point.append(entry.name)
        ordered = [
            *(name for name in enabled if name in overrides),
            *multi_point,
            *(name for name in enabled if name not in overrides),
        ]
        point_list(framework, attr)[:] = [framework.plugins_map[name] for name in ordered]


def _check_required_points(framework: PluginHolder, scheduler_name: str) -> None:
    if len(framework.queue_sort_plugins) != 1:
        raise FrameworkError(
            "only one queue sort plugin required for profile with scheduler name "
            f'"{scheduler_name}", but got {len(framework.queue_sort_plugins)}'
        )
    if not framework.bind_plugins:
        raise FrameworkError(
            f'at least one bind plugin is needed for profile with scheduler name "{scheduler_name}"'
        )
    if len(framework.placement_generate_plugins) > 1:
        raise FrameworkError(
            "at most one placement generate plugin is allowed for profile with scheduler name "
            f'"{scheduler_name}"'
        )


def _valid_score_weights(
    framework: PluginHolder, kind: type[Plugin], entries: list[Any], what: str
) -> dict[str, int]:
    """Weights of the ``kind`` plugins (Score or PlacementScore) among ``entries``
    (point-specific before multiPoint; 0 means 1), overflow-checked. ``what`` names the point
    in the error, as upstream prefixes it (``score plugins: ``, ``placement score plugins: ``).

    The check is upstream's, in Go's int64 arithmetic: once a negative weight has made the
    running total negative, ``MaxTotalScore - total`` wraps around to a negative number, so
    the *next* score plugin is refused as an overflow (a negative weight on the last one, or
    one the weights before it make up for, passes). kube-scheduler refuses or accepts
    exactly those, so this does too.
    """
    weights: dict[str, int] = {}
    total = 0
    for entry in entries:
        if not isinstance(framework.plugins_map.get(entry.name), kind):
            continue
        if entry.name in weights:
            continue
        weight = entry.weight or 1
        weights[entry.name] = weight
        if weight * MAX_NODE_SCORE > _int64(MAX_TOTAL_SCORE - total):
            raise FrameworkError(f"{what} plugins: total score of Score plugins could overflow")
        total = _int64(total + weight * MAX_NODE_SCORE)
    return weights


def _int64(value: int) -> int:
    """``value`` as a Go int64 holds it: wrapped around on overflow, two's complement."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)
