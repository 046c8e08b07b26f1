"""The plugin registry: plugin name -> factory(args, handle).

In-tree plugins come from ``framework.plugins.registry``; out-of-tree plugins are merged in,
either discovered from installed packages through the ``scheduler_playground.plugins``
entry-point group or named by dotted path (``package.module:factory``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import partial
from importlib.metadata import entry_points
from typing import Any

from framework.interface.plugins import Plugin

PluginFactory = Callable[[Any, Any], Plugin]
"""``factory(args, handle) -> Plugin``; a plugin class taking (args, handle) is itself one."""

ENTRY_POINT_GROUP = "scheduler_playground.plugins"


class RegistryError(ValueError):
    """A name registered twice, or a factory that cannot be found or loaded."""


class Registry(dict[str, PluginFactory]):
    """Plugin factories by name; registering a name twice is an error, as upstream."""

    def register(self, name: str, factory: PluginFactory) -> None:
        if name in self:
            raise RegistryError(f"a plugin named {name} already exists")
        self[name] = factory

    def unregister(self, name: str) -> None:
        if name not in self:
            raise RegistryError(f"no plugin named {name} exists")
        del self[name]

    def merge(self, other: dict[str, PluginFactory]) -> None:
        for name, factory in other.items():
            self.register(name, factory)


def plugin_type(factory: PluginFactory) -> type[Plugin] | None:
    """The plugin class a factory builds, when that is known without building a plugin: a
    plugin class is its own factory, and a ``functools.partial`` of one builds that class (the
    in-tree factories are). None for any other factory."""
    target = factory.func if isinstance(factory, partial) else factory
    return target if isinstance(target, type) and issubclass(target, Plugin) else None


def load_factory(dotted_path: str) -> PluginFactory:
    """Imports ``package.module:attr`` (or ``package.module.attr``) and returns the factory."""
    module_name, sep, attr = dotted_path.partition(":")
    if not sep:
        module_name, _, attr = dotted_path.rpartition(".")
    if not module_name or not attr:
        raise RegistryError(f"plugin factory {dotted_path!r} is not of the form 'module:attribute'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise RegistryError(f"plugin factory {dotted_path!r}: {err}") from err
    try:
        factory = getattr(module, attr)
    except AttributeError:
        raise RegistryError(
            f"plugin factory {dotted_path!r}: module {module_name!r} has no attribute {attr!r}"
        ) from None
    if not callable(factory):
        raise RegistryError(f"plugin factory {dotted_path!r} is not callable")
    return factory


def registry_from_paths(paths: dict[str, str]) -> Registry:
    """A registry from ``{plugin name: dotted path}``."""
    registry = Registry()
    for name, path in paths.items():
        registry.register(name, load_factory(path))
    return registry


def discover_out_of_tree(group: str = ENTRY_POINT_GROUP) -> Registry:
    """Plugins installed packages advertise under the entry-point group (name = plugin name)."""
    registry = Registry()
    for entry in _entry_points(group):
        try:
            factory = entry.load()
        except Exception as err:
            raise RegistryError(
                f"plugin {entry.name!r} from entry point {entry.value!r}: {err}"
            ) from err
        registry.register(entry.name, factory)
    return registry


def _entry_points(group: str) -> Iterable[Any]:
    return entry_points(group=group)


def build_registry(
    in_tree: Registry,
    out_of_tree: dict[str, PluginFactory] | None = None,
    *,
    discover: bool = False,
) -> Registry:
    """In-tree plugins merged with explicit and (optionally) discovered out-of-tree ones."""
    registry = Registry(in_tree)
    if out_of_tree:
        registry.merge(out_of_tree)
    if discover:
        registry.merge(discover_out_of_tree())
    return registry
