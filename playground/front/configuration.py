"""A KubeSchedulerConfiguration checked as the scheduler service would take it.

Whether kube-scheduler would start with the text is decided in one place for the command line,
``simulate`` and this editor (``services.checked_configuration``, which uses
``framework.config.startup``: upstream's validation, then every profile built into a framework
with the service's plugin registry, with upstream's messages and field paths). A configuration
that passes is what Apply accepts; the effective plugins per extension point (read off the
frameworks that check built) and each plugin's defaulted args come with it.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any

from framework.config.encode import to_dict
from framework.runtime.framework import Framework
from playground.scheduling.plugins import PLUGIN_ARGS
from playground.workspaces.services import ConfigurationProblem as Problem
from playground.workspaces.services import checked_configuration

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


def check_configuration(text: str) -> Checked:
    """Every problem with the text (what kube-scheduler would refuse to start with, see
    ``framework.config.startup``), or its profiles when there is none."""
    checked = checked_configuration(text)
    if checked.problems:
        return Checked(checked.problems)
    return Checked([], _profiles(checked.cfg, checked.frameworks))


@functools.lru_cache(maxsize=64)
def runs_plugin_at(text: str, point: str, plugin: str) -> bool:
    """Whether a profile of this (valid) configuration runs ``plugin`` at ``point``.

    Cached: the permit console asks at every redraw, and a check builds every profile.
    """
    profiles = check_configuration(text).profiles
    return any(plugin in {name for name, _ in p.points.get(point, [])} for p in profiles)


def _profiles(cfg: Any, frameworks: list[Framework]) -> list[Profile]:
    encoded = to_dict(cfg)["profiles"]
    profiles = []
    for index, (profile, framework) in enumerate(zip(cfg.profiles, frameworks, strict=True)):
        enabled = framework.list_plugins()
        profiles.append(
            Profile(
                index=index,
                name=profile.scheduler_name or "",
                points=enabled,
                args=_args(encoded[index], enabled),
            )
        )
    return profiles


def _args(encoded: dict[str, Any], points: dict[str, list[tuple[str, Any]]]) -> dict[str, Any]:
    """Each plugin's args: the profile's pluginConfig, defaulted as kube-scheduler defaults it,
    and the defaults of the playground's own plugins that are enabled but not configured."""
    args = {entry["name"]: entry.get("args") for entry in encoded.get("pluginConfig") or ()}
    enabled = {name for plugins in points.values() for name, _ in plugins}
    for name, defaults in PLUGIN_ARGS.items():
        if name in enabled and args.get(name) is None:
            args[name] = copy.deepcopy(defaults)
    return args
