"""Setting a breakpoint in the browser: the form, and the list the debugger and pod pages show.

The engine decides what a breakpoint may be (``framework.debugger.breakpoints.Breakpoint``):
the form builds the stored ``Breakpoint`` and asks ``engine_breakpoint()``, whose errors start
with the field they concern (``selector: unable to parse requirement: …``), and hands each to
that field, so the page can never accept what the scheduler would refuse, nor the reverse. The
form adds what only the workspace knows: a plugin must run at that point in the profile(s) the
breakpoint concerns, and the profile must be one of the configuration's; a breakpoint that can
never fire would wait forever for nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms

from framework.api.errors import ObjectError
from framework.api.loader import parse_object
from framework.api.pod import Pod
from framework.debugger.breakpoints import POD_GROUP, POINTS, BreakpointError
from framework.debugger.breakpoints import Breakpoint as EngineBreakpoint
from playground.front.configuration import Profile, check_configuration
from playground.workspaces.models import Breakpoint, ClusterObject, Workspace
from playground.workspaces.services import default_configuration_text

ON_FAILURE = "failure"
"""The point select's value for a breakpoint on failure (the command line's ``--break failure``)."""
POINT_LABELS = {point: point[0].upper() + point[1:] for point in POINTS} | {
    POD_GROUP: "Pod group cycle",
    ON_FAILURE: "On failure",
}
"""Upstream's names of the extension points (Score, PreBind), as the attempt tables show them;
and where a pod group's cycle starts."""
DATALIST_LIMIT = 500
"""Node and pod names offered as suggestions at most; any other name can still be typed."""
FIELDS = ("point", "plugin", "node", "pod", "selector", "profile")
INDEPENDENT = ("pod", "selector")
"""Fields the engine checks whatever the point."""
INDEPENDENT_POINT = "filter"
POINT_PLUGINS_OF = {"unreserve": "reserve"}
"""Unreserve is not a point of the configuration: the Reserve plugins' Unreserve runs there."""


class BreakpointForm(forms.Form):
    """One breakpoint of a workspace. Every error is ``field → problem`` and names the field
    through the template (``<code>selector</code>: …``), the way the engine names it."""

    point = forms.CharField(max_length=32, required=False)
    plugin = forms.CharField(max_length=128, required=False)
    node = forms.CharField(max_length=253, required=False)
    pod = forms.CharField(max_length=317, required=False)
    selector = forms.CharField(max_length=1000, required=False)
    profile = forms.CharField(max_length=253, required=False)

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        workspace: Workspace,
        initial: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(data, initial=initial)
        self.workspace = workspace
        self.profiles = workspace_profiles(workspace)

    def clean(self) -> dict[str, Any]:
        """The engine checks the point, then each field on its own (so that every wrong field
        is named at once), then all of them together; then the workspace's checks."""
        data = super().clean()
        if self.errors:
            return data
        point_valid = self._engine_check(self._stored())
        for name in FIELDS[1:-1]:
            if data[name] and (point_valid or name in INDEPENDENT):
                point = None if point_valid else INDEPENDENT_POINT
                self._engine_check(self._stored(point, **{name: data[name]}))
        if not self.errors:
            self._engine_check(self._stored(**{name: data[name] for name in FIELDS[1:]}))
        if not self.errors:
            self._workspace_check(data)
        return data

    def save(self, user: Any) -> Breakpoint:
        breakpoint_ = self._stored(**{name: self.cleaned_data[name] for name in FIELDS[1:]})
        breakpoint_.created_by = user if getattr(user, "is_authenticated", False) else None
        breakpoint_.save()
        return breakpoint_

    def point_choices(self) -> list[tuple[str, str]]:
        return self._with_submitted("point", list(POINT_LABELS.items()))

    def profile_choices(self) -> list[tuple[str, str]]:
        return self._with_submitted("profile", [(p.name, p.name) for p in self.profiles])

    def _with_submitted(self, name: str, choices: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The choices, and the value submitted when it is none of them (the profile it named
        has gone, say), so that the form comes back with exactly what was sent."""
        value = self[name].value() or ""
        known = value == "" or any(value == choice for choice, _ in choices)
        return choices if known else [*choices, (value, value)]

    def plugin_choices(self) -> list[tuple[str, str]]:
        """Each plugin of the profiles with the points it runs at, for the datalist."""
        return sorted(
            (name, ", ".join(points)) for name, points in _plugin_points(self.profiles).items()
        )

    def _stored(self, point: str | None = None, **fields: str) -> Breakpoint:
        """The breakpoint to store; ``point`` in place of the one chosen, to check a field
        that does not depend on it while the chosen one is wrong."""
        point = self.cleaned_data.get("point", "") if point is None else point
        on_failure = point == ON_FAILURE
        return Breakpoint(
            workspace=self.workspace,
            point="" if on_failure else point,
            on_failure=on_failure,
            **fields,
        )

    def _engine_check(self, breakpoint_: Breakpoint) -> bool:
        """Whether the engine takes it; if not, its error goes to the field it names."""
        try:
            breakpoint_.engine_breakpoint()
        except BreakpointError as err:
            name, problem = _field_of(str(err))
            if name not in self.errors:
                self.add_error(name, problem)
            return False
        return True

    def _workspace_check(self, data: Mapping[str, str]) -> None:
        names = [profile.name for profile in self.profiles]
        if data["profile"] and data["profile"] not in names:
            self.add_error(
                "profile", f"no profile is named {data['profile']!r} (one of {', '.join(names)})"
            )
            return
        if data["plugin"]:
            problem = plugin_problem(self.profiles, data["point"], data["plugin"], data["profile"])
            if problem:
                self.add_error("plugin", problem)
        if not self.errors and self.workspace.breakpoints.filter(**_stored_fields(data)).exists():
            self.add_error(None, "this breakpoint is set already")


def plugin_problem(profiles: Iterable[Profile], point: str, plugin: str, profile: str) -> str:
    """Why the breakpoint could never stop at ``plugin`` at ``point``; "" when it can."""
    concerned = [p for p in profiles if not profile or p.name == profile]
    runs = _plugin_points(concerned).get(plugin)
    if not runs:
        which = f"profile {profile} does not run it" if profile else "no profile runs it"
        return f"unknown plugin {plugin!r}: {which}"
    if POINT_PLUGINS_OF.get(point, point) not in runs:
        return f"{plugin} does not run at {point} (it runs at {', '.join(runs)})"
    return ""


def workspace_profiles(workspace: Workspace) -> tuple[Profile, ...]:
    """The profiles the workspace's scheduler runs: its latest revision's, or the default
    configuration's when there is none or it is invalid (the service does the same)."""
    current = workspace.current_configuration()
    profiles = _profiles(current.text, current.feature_gates) if current is not None else ()
    return profiles or _profiles(default_configuration_text(), "")


@functools.lru_cache(maxsize=64)
def _profiles(text: str, feature_gates: str) -> tuple[Profile, ...]:
    """Cached: checking builds every profile, and every page with the form asks."""
    return tuple(check_configuration(text, feature_gates).profiles)


def _plugin_points(profiles: Iterable[Profile]) -> dict[str, list[str]]:
    """Plugin → the points it runs at (Reserve plugins at Unreserve too), in cycle order."""
    found: dict[str, set[str]] = {}
    for profile in profiles:
        for point, plugins in profile.points.items():
            for name, _ in plugins:
                found.setdefault(name, set()).add(point)
    for points in found.values():
        points.update(p for p, of in POINT_PLUGINS_OF.items() if of in points)
    return {name: [p for p in POINTS if p in points] for name, points in found.items()}


def _field_of(message: str) -> tuple[str, str]:
    """The engine's ``field: problem``; a message naming no field concerns the point."""
    name, sep, problem = message.partition(": ")
    return (name, problem) if sep and name in FIELDS else ("point", message)


def _stored_fields(data: Mapping[str, str]) -> dict[str, Any]:
    on_failure = data["point"] == ON_FAILURE
    fields = {name: data[name] for name in FIELDS[1:]}
    return {**fields, "point": "" if on_failure else data["point"], "on_failure": on_failure}


# ----------------------------------------------------------------------------------------------
# The list of breakpoints, with the form, as the debugger page and a pod's page show it


@dataclass(slots=True)
class Entry:
    """One stored breakpoint as listed; ``problem`` when it is no longer valid (changed in
    the admin), so the page shows it rather than failing."""

    row: Breakpoint
    engine: EngineBreakpoint | None
    problem: str = ""
    warning: str = ""
    """Why it may not stop now although it is valid: its node does not exist (yet)."""

    @property
    def stop_at(self) -> str:
        return (
            POINT_LABELS[ON_FAILURE]
            if self.row.on_failure
            else POINT_LABELS.get(self.row.point, self.row.point)
        )


@dataclass(slots=True)
class Panel:
    """What ``front/debugger_breakpoints.html`` renders: the breakpoints (those that apply to
    ``pod`` on its page), the form, where a no-JavaScript answer goes back to and a note."""

    workspace: Workspace
    form: BreakpointForm
    entries: list[Entry]
    next_url: str
    pod: ClusterObject | None = None
    note: str = ""
    nodes: list[str] = field(default_factory=list)
    pods: list[str] = field(default_factory=list)
    total: int = 0


def breakpoints_panel(
    workspace: Workspace,
    next_url: str,
    pod: ClusterObject | None = None,
    form: BreakpointForm | None = None,
    note: str = "",
) -> Panel:
    """The panel for the debugger page, or for ``pod``'s page (its form names the pod)."""
    if form is None:
        initial = {"pod": pod.key} if pod is not None else None
        form = BreakpointForm(workspace=workspace, initial=initial)
    entries = entries_of(workspace.breakpoints.all())
    _warn_of_missing_nodes(workspace, entries)
    total = len(entries)
    if pod is not None:
        entries = applying_to(entries, pod)
    return Panel(
        workspace=workspace,
        form=form,
        entries=entries,
        next_url=next_url,
        pod=pod,
        note=note,
        nodes=_names(workspace, "Node"),
        pods=_names(workspace, "Pod"),
        total=total,
    )


def _names(workspace: Workspace, kind: str) -> list[str]:
    """Names (``namespace/name`` for pods) to suggest, at most DATALIST_LIMIT of them."""
    rows = ClusterObject.objects.filter(workspace=workspace, kind=kind).order_by(
        "namespace", "name"
    )
    names = rows.values_list("namespace", "name")[:DATALIST_LIMIT]
    return [f"{namespace}/{name}" if namespace else name for namespace, name in names]


def missing_nodes(workspace: Workspace, names: Iterable[str]) -> set[str]:
    """Those of the node names that no node of the workspace has now. A breakpoint may name a
    node before it exists (one is about to be added, a live cluster's autoscaler adds it), so
    it is set all the same, with a warning: one naming a mistyped node would never stop."""
    wanted = {name for name in names if name}
    if not wanted:
        return set()
    nodes = ClusterObject.objects.filter(workspace=workspace, kind="Node", name__in=wanted)
    return wanted - set(nodes.values_list("name", flat=True))


def missing_node_note(node: str) -> str:
    return f"No node is named {node} in this workspace now: it stops only once one is."


def _warn_of_missing_nodes(workspace: Workspace, entries: list[Entry]) -> None:
    missing = missing_nodes(workspace, (e.row.node for e in entries if e.engine is not None))
    for entry in entries:
        if entry.row.node in missing and entry.engine is not None:
            entry.warning = f"no node {entry.row.node} now"


def applying_to(entries: Iterable[Entry], pod: ClusterObject) -> list[Entry]:
    """The valid breakpoints that concern the pod: its key, labels and profile, as the engine
    decides (``Breakpoint.applies_to``)."""
    try:
        parsed = parse_object(pod.manifest)
    except ObjectError:  # stored before a check it fails: no breakpoint can concern it
        return []
    if not isinstance(parsed, Pod):
        return []
    profile = parsed.spec.scheduler_name
    return [e for e in entries if e.engine is not None and e.engine.applies_to(parsed, profile)]


def entries_of(rows: Iterable[Breakpoint]) -> list[Entry]:
    return [_entry(row) for row in rows]


def describe(row: Breakpoint) -> str:
    """``Score · NodeResourcesFit · node n1 · pod shop/web-3``: the words the page uses."""
    entry = _entry(row)
    parts = [entry.stop_at, row.plugin]
    parts += [f"{name} {getattr(row, name)}" for name in FIELDS[2:] if getattr(row, name)]
    return " · ".join(part for part in parts if part)


def _entry(row: Breakpoint) -> Entry:
    try:
        return Entry(row, row.engine_breakpoint())
    except BreakpointError as err:
        return Entry(row, None, str(err))
