"""Where the debugger stops: an extension point, optionally narrowed to a plugin, a node, a pod
(by namespace/name or label selector) and a profile; or wherever an attempt fails.

A breakpoint fires at most once per attempt, at the first trace event it matches: for a point,
the first plugin call there (or the point's own summary when it has no plugin); for a failure,
the first extension point that ends Unschedulable, UnschedulableAndUnresolvable or Error.

A ``podGroup`` breakpoint (GenericWorkload) stops once at each pod group's cycle, as it starts,
before any member is tried; narrowed to a pod, a selector or a profile, it stops at the cycles
of the groups with a member it applies to. Each member's trial then stops at the usual points.
"""

from __future__ import annotations

from dataclasses import dataclass

from framework.api.label_syntax import parse_selector
from framework.api.labels import Selector, SelectorError
from framework.api.pod import Pod
from framework.trace import EXTENSION_POINT, TraceEvent

POD_GROUP = "podGroup"
"""Not an extension point: the start of a pod group's scheduling cycle."""
POINTS = (
    "preEnqueue",
    POD_GROUP,
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "unreserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)
"""The places a breakpoint may name, in the order a cycle reaches them: the extension points,
and a pod group's cycle, which starts once its members passed PreEnqueue."""
NODE_POINTS = ("filter", "score")
"""Points whose plugins are called once per node, so a breakpoint may name a node."""
FAILURE_CODES = frozenset({"Unschedulable", "UnschedulableAndUnresolvable", "Error"})


class BreakpointError(ValueError):
    """A breakpoint that cannot be set; the message names the part and the problem."""


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """One place to stop. ``point`` is empty for a breakpoint on failure only."""

    point: str = ""
    plugin: str = ""
    node: str = ""
    pod: str = ""
    """``namespace/name``, or empty for every pod."""
    selector: str = ""
    """A label selector (``app=web,tier!=db``) the pod must match, or empty."""
    profile: str = ""
    on_failure: bool = False

    def __post_init__(self) -> None:
        if self.on_failure == bool(self.point):
            raise BreakpointError("a breakpoint names an extension point, or stops on failure")
        if self.point and self.point not in POINTS:
            raise BreakpointError(
                f"point: unknown extension point {self.point!r} (one of {', '.join(POINTS)})"
            )
        if self.plugin and self.on_failure:
            raise BreakpointError(
                "plugin: a breakpoint on failure stops where the attempt fails, not at a plugin"
            )
        if self.plugin and self.point == POD_GROUP:
            raise BreakpointError(
                "plugin: a pod group breakpoint stops where the group's cycle starts, before "
                "any plugin"
            )
        if self.node and self.point not in NODE_POINTS:
            raise BreakpointError(
                f"node: only a breakpoint at {' or '.join(NODE_POINTS)} can name a node"
            )
        if self.pod and (self.pod.count("/") != 1 or "" in self.pod.split("/")):
            raise BreakpointError(f"pod: {self.pod!r} is not namespace/name")
        if self.selector:
            _selector(self.selector)

    def applies_to(self, pod: Pod, profile: str) -> bool:
        """Whether this breakpoint concerns the pod (its key, labels and profile)."""
        if self.pod and self.pod != pod.key:
            return False
        if self.profile and self.profile != profile:
            return False
        return not self.selector or _selector(self.selector).matches(pod.metadata.labels)

    def applies_to_group(self, members: list[tuple[Pod, str]]) -> bool:
        """Whether this is a pod group breakpoint that concerns the group: one of its members
        (pod, profile) is one it applies to."""
        return self.point == POD_GROUP and any(self.applies_to(p, prof) for p, prof in members)

    def matches(self, event: TraceEvent) -> bool:
        """Whether the event is a place this breakpoint stops at (for a pod it applies to)."""
        if self.on_failure:
            return event.kind == EXTENSION_POINT and event.code in FAILURE_CODES
        if event.point != self.point:
            return False
        if self.plugin and (event.kind == EXTENSION_POINT or event.plugin != self.plugin):
            return False
        return not self.node or event.node == self.node

    def narrows_to_a_node(self) -> bool:
        return bool(self.node)

    def __str__(self) -> str:
        text = "on failure" if self.on_failure else self.point
        text += f":{self.plugin}" if self.plugin else ""
        text += f"@{self.node}" if self.node else ""
        for label, value in (("pod", self.pod), ("selector", self.selector)):
            text += f" {label} {value}" if value else ""
        return text + (f" profile {self.profile}" if self.profile else "")


def parse_breakpoint(text: str, **narrowing: str) -> Breakpoint:
    """``POINT[:PLUGIN][@NODE]`` (the command line's ``--break``), or ``failure``."""
    if text.strip() == "failure":
        return Breakpoint(on_failure=True, **narrowing)
    rest, _, node = text.strip().partition("@")
    point, _, plugin = rest.partition(":")
    return Breakpoint(point=point, plugin=plugin, node=node, **narrowing)


def _selector(text: str) -> Selector:
    try:
        return parse_selector(text)
    except SelectorError as err:
        raise BreakpointError(f"selector: {err}") from err
