"""Plugins the playground adds to the in-tree ones, and the registry the service builds from.

``WaitForApproval`` holds every pod at Permit until a person approves or rejects it in the
permit console, so waiting pods can be tried without writing a plugin; ``LabelSelectorPermit``
(its own module) holds only the pods matching a label selector. Enable them like any plugin::

    profiles:
    - schedulerName: default-scheduler
      plugins:
        permit:
          enabled: [{name: WaitForApproval}]
      pluginConfig:
      - name: WaitForApproval
        args: {timeoutSeconds: 120}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.interface.cycle_state import CycleState
from framework.interface.events import ClusterEventWithHint
from framework.interface.plugins import EnqueueExtensions, PermitPlugin
from framework.interface.status import Code, Status
from framework.plugins.registry import in_tree_registry
from framework.runtime.registry import Registry
from playground.scheduling.label_selector_permit import (
    DEFAULT_SELECTOR,
    DEFAULT_TIMEOUT_SECONDS,
    LABEL_SELECTOR_PERMIT,
    LabelSelectorPermit,
)

WAIT_FOR_APPROVAL = "WaitForApproval"
DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300
PLUGIN_ARGS: dict[str, dict[str, Any]] = {
    WAIT_FOR_APPROVAL: {"timeoutSeconds": DEFAULT_APPROVAL_TIMEOUT_SECONDS},
    LABEL_SELECTOR_PERMIT: {
        "selector": DEFAULT_SELECTOR,
        "timeoutSeconds": DEFAULT_TIMEOUT_SECONDS,
    },
}
"""The args of the playground's own plugins, with their defaults (the profile form shows them;
kube-scheduler's defaulting only knows the in-tree plugins' args)."""


class WaitForApproval(PermitPlugin, EnqueueExtensions):
    """Asks every pod to wait at Permit for ``timeoutSeconds`` (at most 15 minutes).

    No cluster event undoes a person's rejection, so a rejected pod is tried again only when
    the unschedulable pool's timeout (5 minutes) sends it back.
    """

    name = WAIT_FOR_APPROVAL

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        timeout = (args or {}).get("timeoutSeconds", DEFAULT_APPROVAL_TIMEOUT_SECONDS)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ValueError(
                f"{WAIT_FOR_APPROVAL} args: timeoutSeconds: Invalid value: {timeout!r}: "
                "must be a positive number of seconds"
            )
        self.timeout = float(timeout)

    def permit(self, state: CycleState, pod: Any, node_name: str) -> tuple[Status | None, float]:
        return Status(Code.WAIT, "waiting for approval in the permit console"), self.timeout

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []


def playground_registry(features: FeatureGates = DEFAULT_FEATURE_GATES) -> Registry:
    """The in-tree plugins, built for these feature gates, plus the playground's own."""
    registry = in_tree_registry(features)
    registry.register(WAIT_FOR_APPROVAL, WaitForApproval)
    registry.register(LABEL_SELECTOR_PERMIT, LabelSelectorPermit)
    return registry
