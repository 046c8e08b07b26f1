"""A KubeSchedulerConfiguration checked as the scheduler service would take it.

Whether kube-scheduler would start with the text and the feature gates is decided in one place
for the command line, ``simulate`` and this editor (``services.checked_configuration``, which
uses ``framework.config.startup``: the gates read as ``--feature-gates`` reads them, upstream's
validation, then every profile built into a framework with the service's plugin registry, with
upstream's messages and field paths). A configuration that passes is what Apply accepts; the
effective plugins per extension point (read off the frameworks that check built, so a gate that
adds a default plugin shows it) and each plugin's defaulted args come with it.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any

from framework.config.encode import to_dict
from framework.features import FEATURE_SPECS, FeatureGates
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
MINIMAL_CONFIGURATION = (
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
)
"""What a workspace without a revision runs: kube-scheduler started without ``--config``."""


@dataclass(slots=True)
class Profile:
    """A valid profile: its effective plugins per point and every plugin's defaulted args."""

    index: int
    name: str
    points: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)
    args: dict[str, Any] = field(default_factory=dict)

    def point_rows(self) -> list[tuple[str, list[tuple[str, int | None]]]]:
        return [(point, self.points.get(point, [])) for point in POINTS]


@dataclass(frozen=True, slots=True)
class ChangedGate:
    """A feature gate whose value differs from its v1.36 default."""

    name: str
    enabled: bool
    pre_release: str


@dataclass(slots=True)
class Checked:
    problems: list[Problem] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    changed_gates: list[ChangedGate] = field(default_factory=list)
    """The gates that differ from the defaults (none while the gates have problems)."""

    @property
    def valid(self) -> bool:
        return not self.problems


def check_configuration(text: str, feature_gates: str = "") -> Checked:
    """Every problem with the text and gates (what kube-scheduler would refuse to start with,
    see ``framework.config.startup``), or its profiles when there is none."""
    checked = checked_configuration(text, feature_gates)
    gates = changed_gates(checked.features) if checked.features is not None else []
    if checked.problems:
        return Checked(checked.problems, changed_gates=gates)
    return Checked([], _profiles(checked.cfg, checked.frameworks), gates)


def changed_gates(features: FeatureGates) -> list[ChangedGate]:
    """The gates set otherwise than by default, by name."""
    return [
        ChangedGate(name, enabled, FEATURE_SPECS[name].pre_release)
        for name, enabled in sorted(features.overrides().items())
    ]


@functools.lru_cache(maxsize=64)
def runs_plugin_at(text: str, point: str, plugin: str, feature_gates: str = "") -> bool:
    """Whether a profile of this (valid) configuration runs ``plugin`` at ``point``.

    Cached: the permit console asks at every redraw, and a check builds every profile.
    """
    profiles = check_configuration(text, feature_gates).profiles
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
