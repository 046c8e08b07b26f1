"""The profile form's buttons, each a change to the configuration text.

A button's ``op`` names the change: ``up:<point>:<plugin>``, ``down:…``, ``disable:…``,
``add:<point>`` (the plugin chosen in ``add:<point>``), ``weights:score`` (every
``weight:<plugin>`` field) and ``args:<plugin>`` (the YAML in ``args:<plugin>``). A change is
made only to a valid configuration and kept only if the result is valid too, so the form never
turns a working configuration into a broken one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from playground.front.configuration import POINTS, Profile, check_configuration
from playground.front.profile_edits import (
    EditError,
    PluginList,
    dump_document,
    moved,
    parse_document,
    set_plugin_args,
    set_point_plugins,
    with_added,
    without,
)

DEFAULT_WEIGHT = 1


def edit_configuration(
    text: str, index: int, op: str, data: Mapping[str, Any], feature_gates: str = ""
) -> str:
    """The text after the change ``op`` to profile ``index`` (checked under the feature gates
    given); EditError says why not."""
    checked = check_configuration(text, feature_gates)
    if not checked.valid:
        raise EditError("the form needs a valid configuration: fix the problems listed first")
    if not 0 <= index < len(checked.profiles):
        raise EditError(f"there is no profile {index}")
    document = parse_document(text)
    action, _, target = op.partition(":")
    if action == "args":
        set_plugin_args(document, index, target, _yaml(data.get(f"args:{target}", ""), target))
    else:
        point, _, plugin = target.partition(":")
        plugins = _changed_list(checked.profiles[index], action, point, plugin, data)
        set_point_plugins(document, index, point, plugins)
    changed = dump_document(document)
    problems = check_configuration(changed, feature_gates).problems
    if problems:
        raise EditError("not changed: " + "; ".join(str(problem) for problem in problems))
    return changed


def _changed_list(
    profile: Profile, action: str, point: str, plugin: str, data: Mapping[str, Any]
) -> PluginList:
    if point not in POINTS:
        raise EditError(f"unknown extension point {point!r}")
    plugins = profile.points.get(point, [])
    if action == "up":
        return moved(plugins, plugin, -1)
    if action == "down":
        return moved(plugins, plugin, +1)
    if action == "disable":
        return without(plugins, plugin)
    if action == "add":
        name = str(data.get(f"add:{point}", "")).strip()
        if not name:
            raise EditError("choose a plugin to enable")
        return with_added(plugins, name, DEFAULT_WEIGHT if point == "score" else None)
    if action == "weights":
        return [(name, _weight(data.get(f"weight:{name}"), name)) for name, _ in plugins]
    raise EditError(f"unknown change {action!r}")


def _weight(value: Any, plugin: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise EditError(f"the weight of {plugin} must be a whole number") from None


def _yaml(text: str, plugin: str) -> Any:
    try:
        return yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError as err:
        raise EditError(f"the args of {plugin} cannot be read: {err}") from None
