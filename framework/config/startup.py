"""What ``kube-scheduler --config`` refuses at start-up, in its words.

One answer for ``config validate``, ``simulate`` and the playground's profile editor, so that
none of them accepts a file the real scheduler would not start with. kube-scheduler first
validates the configuration (``options.Validate``) and stops there if anything is wrong; only
then does ``scheduler.New`` build the extenders and each profile's framework, which is where
unknown plugins, a profile without a bind plugin and plugin args their factory refuses (a
NodeResourcesFit scoring strategy, which validation never looks at upstream) come to light.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from framework.config.types import KubeSchedulerConfiguration
from framework.config.validation import validate
from framework.extender.build import build_extenders
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.runtime.construction import FrameworkError
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry


@dataclass(frozen=True, slots=True)
class StartupError:
    """One reason kube-scheduler would not start: where, what, and the line it prints."""

    field: str
    """A validation error's field path, ``profiles[i]`` for a profile that cannot be built,
    ``extenders`` when they cannot be."""
    detail: str
    """What a form shows next to ``field``."""
    line: str
    """The error as kube-scheduler prints it."""

    def __str__(self) -> str:
        return self.line


@dataclass(frozen=True, slots=True)
class Startup:
    """What starting kube-scheduler with a configuration gives: why it would not start, or
    the framework of each profile (so a caller listing their plugins need not build them again)."""

    errors: list[StartupError]
    frameworks: list[Framework]
    """One per profile, in order; empty when there are errors."""


def start_up(
    cfg: KubeSchedulerConfiguration,
    registry: Registry,
    features: FeatureGates = DEFAULT_FEATURE_GATES,
) -> Startup:
    """Validates a defaulted configuration and builds its extenders and profiles, as
    kube-scheduler does at start.

    Validation errors come alone, as upstream stops at them. Past validation, every profile
    that cannot be built is listed (upstream reports the first only; the others would follow
    one by one as each is fixed). ``cfg`` is left as it is.
    """
    invalid = validate(cfg, features)
    if invalid:
        return Startup([StartupError(e.field, e.body(), str(e)) for e in invalid], [])
    cfg = copy.deepcopy(cfg)  # building extenders rewrites NodeResourcesFit's args
    try:
        extenders = build_extenders(cfg)
    except ValueError as err:  # BuildExtendersError, ExtenderTLSError
        line = f"couldn't build extenders: {err}"
        return Startup([StartupError("extenders", line, line)], [])
    errors, frameworks = [], []
    for index, profile in enumerate(cfg.profiles):
        try:
            frameworks.append(Framework(registry, profile, extenders=extenders, features=features))
        except FrameworkError as err:
            errors.append(_profile_error(index, profile.scheduler_name, err))
    return Startup(errors, [] if errors else frameworks)


def startup_errors(
    cfg: KubeSchedulerConfiguration,
    registry: Registry,
    features: FeatureGates = DEFAULT_FEATURE_GATES,
) -> list[StartupError]:
    """Every reason a defaulted configuration would not start kube-scheduler ([] if none)."""
    return start_up(cfg, registry, features).errors


def _profile_error(index: int, scheduler_name: str, err: FrameworkError) -> StartupError:
    detail = f"creating profile for scheduler name {scheduler_name}: {err}"
    return StartupError(f"profiles[{index}]", detail, f"initializing profiles: {detail}")
