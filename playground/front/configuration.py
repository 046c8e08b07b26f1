"""A KubeSchedulerConfiguration checked as the scheduler service would take it.

The text is loaded, defaulted and validated (``services.configuration_problems``: upstream's
messages and field paths), then every profile is built into a framework with the service's
plugin registry, which catches what only construction finds (an unknown plugin, one that does
not implement the extension point it is enabled at). A configuration that passes all of it is
what Apply accepts; the effective plugins per extension point and each plugin's defaulted args
come with it.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any

from framework.config.defaults import set_defaults
from framework.config.encode import to_dict
from framework.config.load import load_config
from framework.runtime.expand import effective_plugins
from framework.runtime.framework import FrameworkError
from framework.runtime.registry import Registry
from playground.scheduling.plugins import PLUGIN_ARGS, playground_registry
from playground.workspaces.services import ConfigurationProblem as Problem
from playground.workspaces.services import configuration_problems

POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)
"""The extension points a profile's form edits, in the order a pod meets them."""


@dataclass(slots=True)
class Profile:
    """A valid profile: its effective plugins per point and every plugin's defaulted args."""

    index: int
    name: str
    points: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)
    args: dict[str, Any] = field(default_factory=dict)

    def point_rows(self) -> list[tuple[str, list[tuple[str, int | None]]]]:
        return [(point, self.points.get(point, [])) for point in POINTS]


@dataclass(slots=True)
class Checked:
    problems: list[Problem] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems


def check_configuration(text: str, registry: Registry | None = None) -> Checked:
    """Every problem with the text, or its profiles when there is none."""
    problems = configuration_problems(text)
    if problems:
        return Checked(problems)
    cfg = load_config(text.encode())  # bytes: always the document, never a file name
    set_defaults(cfg)
    return _expand(cfg, registry or playground_registry())


@functools.lru_cache(maxsize=64)
def runs_plugin_at(text: str, point: str, plugin: str) -> bool:
    """Whether a profile of this (valid) configuration runs ``plugin`` at ``point``.

    Cached: the permit console asks at every redraw, and a check builds every profile.
    """
    profiles = check_configuration(text).profiles
    return any(plugin in {name for name, _ in p.points.get(point, [])} for p in profiles)


def _expand(cfg: Any, registry: Registry) -> Checked:
    encoded = to_dict(cfg)["profiles"]
    profiles, problems = [], []
    for index, profile in enumerate(cfg.profiles):
        try:
            points = effective_plugins(profile, registry)
        except FrameworkError as err:
            # kube-scheduler's words when it cannot start with such a profile
            message = f"creating profile for scheduler name {profile.scheduler_name}: {err}"
            problems.append(Problem(f"profiles[{index}]", message))
            continue
        enabled = {
            point: [(p["name"], p.get("weight")) for p in plugins]
            for point, plugins in points.items()
        }
        profiles.append(
            Profile(
                index=index,
                name=profile.scheduler_name or "",
                points=enabled,
                args=_args(encoded[index], enabled),
            )
        )
    return Checked(problems, [] if problems else profiles)


def _args(encoded: dict[str, Any], points: dict[str, list[tuple[str, Any]]]) -> dict[str, Any]:
    """Each plugin's args: the profile's pluginConfig, defaulted as kube-scheduler defaults it,
    and the defaults of the playground's own plugins that are enabled but not configured."""
    args = {entry["name"]: entry.get("args") for entry in encoded.get("pluginConfig") or ()}
    enabled = {name for plugins in points.values() for name, _ in plugins}
    for name, defaults in PLUGIN_ARGS.items():
        if name in enabled and args.get(name) is None:
            args[name] = copy.deepcopy(defaults)
    return args
