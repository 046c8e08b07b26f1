"""A pod group breakpoint: the debugger stops as a group's cycle starts, before any member is
tried, and each member's trial then stops at the usual points (GenericWorkload and
GangScheduling on)."""

from __future__ import annotations

import pytest

from framework.debugger.breakpoints import Breakpoint, BreakpointError, parse_breakpoint
from framework.debugger.session import (
    ABORT,
    CONTINUE,
    NEXT,
    POD_GROUP_CYCLE,
    RUN,
    STEP,
    Debugger,
    Stop,
    describe_stop,
)
from framework.features import FeatureGates
from framework.simulator import Simulation
from tests.framework.debugger.scenario import CONFIG, NODES, pod

GATES = FeatureGates.from_string("GenericWorkload=true,GangScheduling=true")


def gang(name: str, min_count: int, members: int, cpu: str = "500m") -> str:
    group = f"""\
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {{name: {name}, namespace: default}}
spec: {{schedulingPolicy: {{gang: {{minCount: {min_count}}}}}}}
"""
    return group + "".join(
        member(pod(f"{name}-{index}", cpu, f"{{app: {name}}}"), name) for index in range(members)
    )


def member(manifest: str, group: str) -> str:
    return manifest.replace("spec:\n", f"spec:\n  schedulingGroup: {{podGroupName: {group}}}\n")


def simulate(objects: str, *breaks: str, answer=None, **narrowing: str):
    stops: list[Stop] = []

    def controller(stop: Stop) -> str:
        stops.append(stop)
        return answer(stop) if answer is not None else CONTINUE

    breakpoints = [parse_breakpoint(text, **narrowing) for text in breaks]
    simulation = Simulation(
        CONFIG, objects, debugger=Debugger(breakpoints, controller), features=GATES
    )
    return simulation.run(), stops


def bound(reports) -> list[tuple[str, str | None]]:
    return sorted(
        (r.attempt.pod, r.attempt.node) for r in reports if r.attempt.result == "Scheduled"
    )


def test_it_stops_once_as_each_groups_cycle_starts():
    reports, stops = simulate(NODES + gang("a", 2, 2) + gang("b", 2, 2), "podGroup")

    assert [(s.kind, s.point, s.event.data["podGroup"]) for s in stops] == [
        (POD_GROUP_CYCLE, "podGroup", "default/a"),
        (POD_GROUP_CYCLE, "podGroup", "default/b"),
    ]
    assert stops[0].event.data["members"] == ["default/a-0", "default/a-1"]
    assert stops[0].pod == "default/a-0" and stops[0].attempt == 0
    assert {node["name"] for node in stops[0].state["nodes"]} == {"n1", "n2", "n3"}
    assert describe_stop(stops[0]) == (
        "pod group default/a (default/a-0, default/a-1): cycle starts [breakpoint podGroup]"
    )
    assert len(bound(reports)) == 4  # the stops changed nothing


def test_narrowed_to_a_pod_it_stops_at_that_pods_group_only():
    _, stops = simulate(NODES + gang("a", 2, 2) + gang("b", 2, 2), "podGroup", pod="default/b-1")
    assert [s.event.data["podGroup"] for s in stops] == ["default/b"]


def test_narrowed_to_a_selector_it_stops_at_the_groups_of_the_pods_it_matches():
    _, stops = simulate(NODES + gang("a", 2, 2) + gang("b", 2, 2), "podGroup", selector="app=a")
    assert [s.event.data["podGroup"] for s in stops] == ["default/a"]


def test_pods_outside_groups_never_stop_there():
    _, stops = simulate(NODES + pod("web", "500m"), "podGroup")
    assert stops == []


def test_each_members_trial_stops_at_the_usual_points():
    _, stops = simulate(NODES + gang("a", 2, 2), "podGroup", "permit")
    assert [(s.point, s.pod) for s in stops] == [
        ("podGroup", "default/a-0"),
        ("permit", "default/a-0"),  # the trial on the group's snapshot
        ("permit", "default/a-1"),
        ("permit", "default/a-0"),  # Permit again, for real, before the binding cycle
        ("permit", "default/a-1"),
    ]


@pytest.mark.parametrize(
    ("command", "then"),
    [
        (STEP, ("preFilter", "default/a-0", "plugin")),
        (NEXT, ("preFilter", "default/a-0", "extensionPoint")),
    ],
)
def test_step_and_next_go_on_to_the_first_members_trial(command, then):
    def answer(stop: Stop) -> str:
        return command if stop.kind == POD_GROUP_CYCLE else RUN

    _, stops = simulate(NODES + gang("a", 2, 2), "podGroup", answer=answer)
    assert [(s.point, s.pod, s.kind) for s in stops[1:2]] == [then]


@pytest.mark.parametrize("command", [RUN, ABORT])
def test_run_and_abort_let_the_members_trials_go_without_stops(command):
    def answer(stop: Stop) -> str:
        return command

    reports, stops = simulate(NODES + gang("a", 2, 2), "podGroup", "filter", answer=answer)
    assert [(s.point, s.pod) for s in stops] == [
        ("podGroup", "default/a-0"),
        # No Filter stop in the trials; the real cycle end runs no Filter.
    ]
    assert len(bound(reports)) == 2  # abort ended nothing: the group has no attempt to end


def test_still_stops_while_a_group_breakpoint_concerns_the_group():
    kept: list[bool] = []
    debugger: Debugger | None = None

    def answer(stop: Stop) -> str:
        kept.append(debugger.still_stops_at(stop))
        debugger.breakpoints = [Breakpoint(point="podGroup", pod="default/other")]
        kept.append(debugger.still_stops_at(stop))
        return CONTINUE

    stops: list[Stop] = []

    def controller(stop: Stop) -> str:
        stops.append(stop)
        return answer(stop)

    debugger = Debugger([parse_breakpoint("podGroup")], controller)
    Simulation(CONFIG, NODES + gang("a", 2, 2), debugger=debugger, features=GATES).run()
    assert kept == [True, False]


def test_a_pod_group_breakpoint_names_no_plugin_and_no_node():
    with pytest.raises(BreakpointError, match=r"^plugin: a pod group breakpoint stops"):
        Breakpoint(point="podGroup", plugin="GangScheduling")
    with pytest.raises(BreakpointError, match=r"^node: "):
        Breakpoint(point="podGroup", node="n1")
