"""The debugger stops a scheduling cycle where asked and obeys each command."""

from __future__ import annotations

import time

import pytest

from framework.debugger.breakpoints import POINTS, Breakpoint
from framework.debugger.session import ABORT, CONTINUE, NEXT, RUN, STEP, Debugger, Stop
from framework.simulator import Simulation
from framework.trace import EXTENSION_POINT, TraceEvent
from tests.framework.debugger.scenario import BIG, CONFIG, NODES, WEB, outcomes, simulate


def plain_run(objects: str):
    return Simulation(CONFIG, objects).run()


REACHED_BY_A_POD_THAT_FITS = [p for p in POINTS if p not in ("podGroup", "postFilter", "unreserve")]
"""Every point a pod outside groups that is scheduled at its first attempt goes through."""


@pytest.mark.parametrize("point", REACHED_BY_A_POD_THAT_FITS)
def test_a_breakpoint_at_each_point_stops_there_once_per_attempt(point):
    reports, stops, _ = simulate(NODES + WEB, point)
    assert [(s.pod, s.point) for s in stops] == [("default/web", point)]
    assert outcomes(reports) == outcomes(plain_run(NODES + WEB))


def test_post_filter_stops_for_a_pod_that_fits_nowhere():
    _, stops, _ = simulate(NODES + BIG, "postFilter")
    assert [(s.pod, s.point, s.plugin) for s in stops] == [
        ("default/big", "postFilter", "DynamicResources")
    ]


def test_unreserve_stops_when_an_aborted_permit_undoes_the_reservation():
    def abort_at_permit(stop, stops):
        return ABORT if stop.point == "permit" and stop.attempt == 1 else RUN

    reports, stops, _ = simulate(NODES + WEB, "permit", "unreserve", answer=abort_at_permit)
    assert [(s.point, s.attempt) for s in stops][:2] == [("permit", 1), ("unreserve", 1)]
    assert outcomes(reports)[0] == ("default/web", "Error", None)


def test_step_stops_at_every_event_of_the_attempt_in_order():
    _, stops, simulation = simulate(NODES + WEB, "preFilter", answer=lambda stop, stops: STEP)
    recorded = [e for e in simulation.reports[0].events if e.point != "preEnqueue"]
    assert len(stops) == len(recorded) > 20
    assert [(s.point, s.plugin, s.node, s.kind) for s in stops] == [
        (e.point, e.plugin, e.node, e.kind) for e in recorded
    ]


def test_next_stops_only_at_the_end_of_each_extension_point():
    _, stops, _ = simulate(NODES + WEB, "preFilter", answer=lambda stop, stops: NEXT)
    assert stops[0].kind != EXTENSION_POINT
    assert all(s.kind == EXTENSION_POINT for s in stops[1:])
    assert [s.point for s in stops[1:]] == REACHED_BY_A_POD_THAT_FITS[1:]  # no preEnqueue


def test_continue_goes_to_the_next_breakpoint_and_run_ends_the_attempts_stops():
    _, stops, _ = simulate(NODES + WEB + pod_named("api"), "filter", "score")
    assert [(s.pod, s.point) for s in stops] == [
        ("default/web", "filter"),
        ("default/web", "score"),
        ("default/api", "filter"),
        ("default/api", "score"),
    ]
    _, stops, _ = simulate(
        NODES + WEB + pod_named("api"), "filter", "score", answer=lambda s, _: RUN
    )
    assert [(s.pod, s.point) for s in stops] == [
        ("default/web", "filter"),
        ("default/api", "filter"),
    ]


def pod_named(name: str) -> str:
    return WEB.replace("name: web", f"name: {name}").replace("app: web", f"app: {name}")


# -- abort -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "point",
    ["preFilter", "filter", "postFilter", "preScore", "score", "reserve", "permit", "preBind"],
)
def test_abort_ends_the_attempt_with_an_error_and_the_pod_goes_back_to_the_queue(point):
    objects = NODES + (BIG if point == "postFilter" else WEB)

    def abort_first_attempt(stop, stops):
        return ABORT if stop.attempt == 1 else RUN

    reports, stops, simulation = simulate(objects, point, answer=abort_first_attempt)

    first = reports[0].attempt
    assert (first.result, first.node, first.message) == (
        "Error",
        None,
        f"aborted by the debugger at {point}",
    )
    scheduler = simulation.scheduler
    assert scheduler.cache._assumed_pods == set()  # nothing left assumed
    assert [p.key for p in scheduler.queue.pods_in_backoff_q()] == [first.pod]
    if point != "postFilter":  # the big pod fits nowhere, aborted or not
        scheduler.run_until_idle()  # a simulation leaves pods in error backoff; retry it
        assert outcomes(reports)[-1] == ("default/web", "Scheduled", "n3")
        assert [s.attempt for s in stops] == [1, 2]


@pytest.mark.parametrize("point", ["bind", "postBind"])
def test_abort_once_the_pod_is_bound_is_taken_as_run(point):
    reports, _, _ = simulate(NODES + WEB, point, answer=lambda stop, stops: ABORT)
    assert outcomes(reports) == [("default/web", "Scheduled", "n3")]


# -- narrowing ---------------------------------------------------------------------------------


def test_a_breakpoint_on_one_plugin_stops_at_that_plugin_only():
    _, stops, _ = simulate(NODES + WEB, "filter:NodeResourcesFit")
    assert [(s.point, s.plugin, s.kind) for s in stops] == [
        ("filter", "NodeResourcesFit", "pluginBatch")
    ]


@pytest.mark.parametrize(
    ("narrowing", "pods"),
    [
        ({"pod": "default/api"}, ["default/api"]),
        ({"selector": "app=web"}, ["default/web"]),
        ({"selector": "app in (web,big)"}, ["default/web", "default/big"]),
        ({"profile": "default-scheduler"}, ["default/web", "default/big", "default/api"]),
        ({"profile": "other"}, []),
    ],
    ids=["by pod", "by label", "by a set of labels", "by its profile", "by another profile"],
)
def test_a_breakpoint_narrowed_to_pods_stops_for_those_only(narrowing, pods):
    _, stops, _ = simulate(NODES + WEB + BIG + pod_named("api"), "preFilter", **narrowing)
    assert sorted(s.pod for s in stops) == sorted(pods)


def test_a_breakpoint_on_failure_stops_where_an_attempt_fails_only():
    _, stops, _ = simulate(NODES + WEB + BIG, "failure")
    assert [(s.pod, s.point, s.event.code) for s in stops] == [
        ("default/big", "filter", "Unschedulable")
    ]


def test_a_pre_enqueue_breakpoint_narrowed_to_a_pod_stops_for_that_pod_only():
    _, stops, _ = simulate(NODES + WEB + pod_named("api"), "preEnqueue", pod="default/api")
    assert [(s.pod, s.point) for s in stops] == [("default/api", "preEnqueue")]


def test_the_debugger_remembers_the_attempts_of_the_most_recent_pods_only(monkeypatch):
    monkeypatch.setattr(Debugger, "attempts_kept", 2)
    objects = NODES + "".join(pod_named(f"p{i}") for i in range(5))
    _, stops, simulation = simulate(objects, "score")
    assert len(stops) == 5, "every pod still stops once"
    debugger = simulation.scheduler.profiles["default-scheduler"].observer.observers[-1]
    assert list(debugger._attempts) == ["default/p3", "default/p4"]


HELD = 0.3
"""Seconds a controller below keeps a stop waiting: far more than a point of these few nodes
takes to run."""


def waiting(command):
    def answer(stop, stops):
        time.sleep(HELD)
        return command

    return answer


def points_of(simulation) -> dict[str, TraceEvent]:
    events = simulation.reports[0].events
    return {e.point: e for e in events if e.kind == EXTENSION_POINT}


def test_the_time_stopped_inside_a_point_is_not_its_own_and_is_reported_apart():
    _, stops, simulation = simulate(NODES + WEB, "filter@n2", answer=waiting(CONTINUE))
    assert [(s.point, s.node) for s in stops] == [("filter", "n2")]
    points = points_of(simulation)
    assert points["filter"].stopped >= HELD
    assert points["filter"].duration < HELD
    assert points["filter"].to_dict()["stoppedSeconds"] == points["filter"].stopped
    assert [p for p, event in points.items() if event.stopped] == ["filter"]


def test_a_stop_at_the_end_of_a_point_counts_in_no_point():
    _, stops, simulation = simulate(NODES + WEB, "preFilter", answer=waiting(NEXT))
    assert stops[0].kind != EXTENSION_POINT  # inside PreFilter: its first plugin call
    assert all(s.kind == EXTENSION_POINT for s in stops[1:])  # then each point's end
    points = points_of(simulation)
    assert points["preFilter"].stopped >= HELD
    assert [p for p, event in points.items() if event.stopped] == ["preFilter"]


def test_whether_a_stop_would_still_be_made_with_the_breakpoints_set_now():
    """The playground asks when a person changes the breakpoints during a stop."""
    at_n2 = Breakpoint(point="filter", node="n2")
    verdicts: dict[str, list[bool]] = {}

    def controller(stop: Stop) -> str:
        kept = debugger.breakpoints
        for breakpoints in (
            [],
            [at_n2],
            [Breakpoint(point="filter", selector="app=web")],
            [Breakpoint(point="filter", pod="default/other")],
            [Breakpoint(point="score")],
        ):
            debugger.breakpoints = breakpoints
            verdicts.setdefault(stop.reason, []).append(debugger.still_stops_at(stop))
        debugger.breakpoints = kept
        return STEP if stop.reason != "step" else RUN

    debugger = Debugger([at_n2], controller)
    Simulation(CONFIG, NODES + WEB, debugger=debugger).run()

    assert verdicts == {
        # A breakpoint's stop: while one of them stops there, for this pod.
        "breakpoint filter@n2": [False, True, True, False, False],
        # A step: the person's own, while the debugger stays on at all.
        "step": [False, True, True, True, True],
    }
