"""LabelSelectorPermit: a sample Permit plugin configured in YAML, no code needed.

Pods whose labels match ``selector`` wait at Permit for ``timeoutSeconds`` (a person allows
or rejects them in the permit console, or the timeout rejects them); every other pod is
allowed at once. Enabled beside ``WaitForApproval`` (or twice, under two profiles) it makes
pods wait on several Permit plugins, each with its own timer::

    plugins:
      permit:
        enabled: [{name: WaitForApproval}, {name: LabelSelectorPermit}]
    pluginConfig:
    - name: LabelSelectorPermit
      args:
        selector: {matchLabels: {team: payments}}
        timeoutSeconds: 60
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, invalid
from framework.api.labels import LabelSelector, SelectorError
from framework.api.validation.meta import validate_label_selector
from framework.interface.cycle_state import CycleState
from framework.interface.events import ClusterEventWithHint
from framework.interface.plugins import EnqueueExtensions, PermitPlugin
from framework.interface.status import Code, Status

LABEL_SELECTOR_PERMIT = "LabelSelectorPermit"
DEFAULT_SELECTOR: dict[str, Any] = {"matchLabels": {"permit": "hold"}}
DEFAULT_TIMEOUT_SECONDS = 300
MAX_TIMEOUT_SECONDS = 15 * 60
"""Upstream caps a Permit plugin's wait at 15 minutes (``maxTimeout``)."""
KNOWN_ARGS = ("selector", "timeoutSeconds")


class LabelSelectorPermitArgsError(ValueError):
    """The plugin's args are wrong; the message lists every problem with its field path."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        lines = "; ".join(str(error) for error in errors)
        super().__init__(f"{LABEL_SELECTOR_PERMIT} args: {lines}")


def validate_args(args: Mapping[str, Any]) -> list[FieldError]:
    """Every problem of the args, each named by its path under ``args``."""
    errors = [
        invalid(f"args.{key}", key, f"unknown field; known fields: {', '.join(KNOWN_ARGS)}")
        for key in args
        if key not in KNOWN_ARGS
    ]
    selector = args.get("selector", DEFAULT_SELECTOR)
    if not isinstance(selector, Mapping):
        errors.append(invalid("args.selector", selector, "must be a LabelSelector"))
    else:
        errors += validate_label_selector(selector, "args.selector")
    timeout = args.get("timeoutSeconds", DEFAULT_TIMEOUT_SECONDS)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        errors.append(invalid("args.timeoutSeconds", timeout, "must be a number of seconds"))
    elif timeout <= 0:
        errors.append(invalid("args.timeoutSeconds", timeout, "must be > 0"))
    elif timeout > MAX_TIMEOUT_SECONDS:
        errors.append(
            invalid("args.timeoutSeconds", timeout, f"must be at most {MAX_TIMEOUT_SECONDS}")
        )
    return errors


class LabelSelectorPermit(PermitPlugin, EnqueueExtensions):
    """Holds the pods matching a label selector at Permit; lets the others through."""

    name = LABEL_SELECTOR_PERMIT

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        args = args or {}
        if not isinstance(args, Mapping):
            raise LabelSelectorPermitArgsError([invalid("args", args, "must be a mapping")])
        errors = validate_args(args)
        if errors:
            raise LabelSelectorPermitArgsError(errors)
        selector = LabelSelector.from_dict(args.get("selector", DEFAULT_SELECTOR))
        try:
            self.selector = selector.as_selector()
        except SelectorError as err:  # what validation lets through, parsing may still refuse
            problem = invalid("args.selector", selector.to_dict(), str(err))
            raise LabelSelectorPermitArgsError([problem]) from err
        self.timeout = float(args.get("timeoutSeconds", DEFAULT_TIMEOUT_SECONDS))

    def permit(self, state: CycleState, pod: Any, node_name: str) -> tuple[Status | None, float]:
        if not self.selector.matches(pod.metadata.labels or {}):
            return None, 0.0
        return Status(Code.WAIT, f"held by {self.name}: the pod matches its selector"), self.timeout

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A rejection here is a person's (or the timeout's): no cluster event undoes it."""
        return []
