"""The scheduler's extenders from its configuration (upstream ``buildExtenders``)."""

from __future__ import annotations

from framework.config.types import KubeSchedulerConfiguration, NodeResourcesFitArgs
from framework.extender.http_extender import HTTPExtender
from framework.plugins.helper.typed import go_type_name

NODE_RESOURCES_FIT = "NodeResourcesFit"


class BuildExtendersError(ValueError):
    """The extenders cannot be set up as configured (upstream's wording)."""


def build_extenders(cfg: KubeSchedulerConfiguration) -> list[HTTPExtender]:
    """One HTTPExtender per configured extender, the ignorable ones last.

    Resources an extender manages with ``ignoredByScheduler`` become NodeResourcesFit's
    ``ignoredResources`` in every profile (replacing what the profile had, as upstream), so
    ``cfg`` is updated in place and must be built into frameworks afterwards.
    """
    required: list[HTTPExtender] = []
    ignorable: list[HTTPExtender] = []
    ignored_resources: list[str] = []
    for config in cfg.extenders:
        extender = HTTPExtender(config)
        (ignorable if extender.is_ignorable() else required).append(extender)
        ignored_resources.extend(r.name for r in config.managed_resources if r.ignored_by_scheduler)
    if ignored_resources:
        _ignore_resources_in_fit(cfg, ignored_resources)
    return required + ignorable


def _ignore_resources_in_fit(cfg: KubeSchedulerConfiguration, resources: list[str]) -> None:
    for profile in cfg.profiles:
        plugin_config = next(
            (pc for pc in profile.plugin_config if pc.name == NODE_RESOURCES_FIT), None
        )
        if plugin_config is None:
            raise BuildExtendersError("can't find NodeResourcesFitArgs in plugin config")
        if not isinstance(plugin_config.args, NodeResourcesFitArgs):
            raise BuildExtendersError(
                "want args to be of type NodeResourcesFitArgs, "
                f"got {go_type_name(plugin_config.args)}"
            )
        plugin_config.args.ignored_resources = list(resources)
