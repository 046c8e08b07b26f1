"""Profiles for runtime tests, written as compactly as upstream's config literals."""

from __future__ import annotations

from typing import Any

from framework.config.types import KubeSchedulerProfile, Plugin, PluginConfig, Plugins, PluginSet
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry

Entry = str | tuple[str, int]


def plugin_set(enabled: list[Entry] = (), disabled: list[str] = ()) -> PluginSet:  # type: ignore[assignment]
    def ref(entry: Entry) -> Plugin:
        if isinstance(entry, tuple):
            return Plugin(name=entry[0], weight=entry[1])
        return Plugin(name=entry)

    return PluginSet(enabled=[ref(e) for e in enabled], disabled=[Plugin(name=d) for d in disabled])


def profile(
    name: str = "default-scheduler",
    plugin_config: dict[str, Any] | None = None,
    **points: PluginSet | list[Entry],
) -> KubeSchedulerProfile:
    """A profile whose plugins are given per extension point (python attribute names)."""
    plugins = Plugins()
    for attr, value in points.items():
        setattr(plugins, attr, value if isinstance(value, PluginSet) else plugin_set(value))
    return KubeSchedulerProfile(
        scheduler_name=name,
        plugins=plugins,
        plugin_config=[PluginConfig(name=n, args=a) for n, a in (plugin_config or {}).items()],
    )


def registry_with(*plugins: Any) -> Registry:
    """A registry of fake plugin instances, each under its own name."""
    registry = Registry()
    for plugin in plugins:
        registry.register(plugin.name, plugin.factory())
    return registry


def minimal(**points: PluginSet | list[Entry]) -> dict[str, PluginSet | list[Entry]]:
    """Adds the queue sort and bind plugins every framework needs, named QS and Binder."""
    return {"queue_sort": ["QS"], "bind": ["Binder"], **points}


def framework_of(plugins: list[Any], **kwargs: Any) -> Framework:
    """A framework whose registry holds ``plugins`` (instances) plus QS and Binder fakes."""
    from framework.testing.fake_plugins import FakeBind, FakeQueueSort

    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    for plugin in plugins:
        registry.register(plugin.name, plugin.factory())
    points = kwargs.pop("points")
    return Framework(registry, profile(**minimal(**points)), **kwargs)
