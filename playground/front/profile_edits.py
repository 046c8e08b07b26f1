"""Changes the profile form makes to a configuration document (the parsed YAML).

An extension point is rewritten as its whole effective list, with every default disabled
(``disabled: [{name: "*"}]``): whatever the profile inherited from the defaults or from
multiPoint, the point then runs exactly the plugins listed, in that order, with those weights.
Plugin args are written to the profile's ``pluginConfig``.
"""

from __future__ import annotations

from typing import Any

import yaml

PluginList = list[tuple[str, int | None]]


class EditError(ValueError):
    """A change that cannot be made to this document (the message says why)."""


def parse_document(text: str) -> dict[str, Any]:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise EditError(f"the YAML cannot be read: {err}") from None
    if not isinstance(document, dict):
        raise EditError("the configuration must be a YAML mapping")
    return document


def dump_document(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False)


def set_point_plugins(
    document: dict[str, Any], index: int, point: str, plugins: PluginList
) -> None:
    """The point runs exactly ``plugins``, in order (weights for Score plugins)."""
    profile = _profile(document, index)
    section = profile.get("plugins")
    if not isinstance(section, dict):
        section = profile["plugins"] = {}
    section[point] = {
        "enabled": [
            {"name": name} if weight is None else {"name": name, "weight": weight}
            for name, weight in plugins
        ],
        "disabled": [{"name": "*"}],
    }


def set_plugin_args(document: dict[str, Any], index: int, plugin: str, args: Any) -> None:
    """Replaces the plugin's args in the profile's pluginConfig (adding the entry if none)."""
    if args is not None and not isinstance(args, dict):
        raise EditError(f"the args of {plugin} must be a YAML mapping")
    profile = _profile(document, index)
    entries = profile.get("pluginConfig")
    if not isinstance(entries, list):
        entries = profile["pluginConfig"] = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name") == plugin:
            entry["args"] = args
            return
    entries.append({"name": plugin, "args": args})


def moved(plugins: PluginList, name: str, step: int) -> PluginList:
    """The list with ``name`` moved ``step`` places (-1 earlier, +1 later), kept in bounds."""
    names = [plugin for plugin, _ in plugins]
    if name not in names:
        raise EditError(f"{name} is not enabled at this extension point")
    old = names.index(name)
    new = min(max(old + step, 0), len(plugins) - 1)
    result = list(plugins)
    result.insert(new, result.pop(old))
    return result


def without(plugins: PluginList, name: str) -> PluginList:
    if name not in [plugin for plugin, _ in plugins]:
        raise EditError(f"{name} is not enabled at this extension point")
    return [(plugin, weight) for plugin, weight in plugins if plugin != name]


def with_added(plugins: PluginList, name: str, weight: int | None) -> PluginList:
    if name in [plugin for plugin, _ in plugins]:
        raise EditError(f"{name} is already enabled at this extension point")
    return [*plugins, (name, weight)]


def _profile(document: dict[str, Any], index: int) -> dict[str, Any]:
    """The profile at ``index``; a document without profiles gets the default one first."""
    profiles = document.get("profiles")
    if not profiles:
        profiles = document["profiles"] = [{"schedulerName": "default-scheduler"}]
    if not isinstance(profiles, list) or not 0 <= index < len(profiles):
        raise EditError(f"there is no profile {index}")
    profile = profiles[index]
    if not isinstance(profile, dict):
        raise EditError(f"profiles[{index}] must be a YAML mapping")
    return profile
