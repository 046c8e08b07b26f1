"""The scheduler service stopped at the debugger's breakpoints.

Most tests have a ``person`` write the commands of each stop the moment the stop is shown (as
a click after reading the page), and read what the stops showed from the broadcasts; the last
ones run the service in a thread and answer while it waits, as the pages do.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.conf import settings

from framework.debugger.session import Debugger
from framework.util.clock import FakeClock
from playground.live import broadcast
from playground.scheduling.scheduler_state import STOPPED, scheduler_state
from playground.scheduling.stops import StopController
from playground.workspaces.models import (
    Breakpoint,
    SchedulerCommand,
    SchedulerConfiguration,
    SchedulerLease,
    SchedulerStatus,
    SchedulingAttempt,
)
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import (
    WAIT_FOR_APPROVAL,
    command,
    configure,
    results,
    settle,
)

pytestmark = pytest.mark.django_db


class AdvancingClock(FakeClock):
    """A fake clock that moves one second each time it is read: the time a stop waits for (a
    pace, a deadline, a lease renewal) passes without a real second going by."""

    def now(self) -> float:
        self.step(1.0)
        return super().now()


def stops_shown(sent) -> list[dict]:
    """The stops the pages were told about, in order (the ends of stops left out)."""
    return [
        message["stop"]
        for group, message in sent
        if message["type"] == broadcast.DEBUG_STOP
        and message["stop"] is not None
        and group.startswith("workspace-")
    ]


def notes(sent) -> list[str]:
    return [
        message["note"]
        for group, message in sent
        if message["type"] == broadcast.DEBUG_STOP
        and group.startswith("workspace-")
        and message["note"]
    ]


def debug(workspace, verb, **payload):
    return command(workspace, SchedulerCommand.DEBUG, command=verb, **payload)


class Person:
    """Writes, at each new stop, the next of the commands given: ``answers`` is a list (one
    item per stop) of lists of ``(kind, payload)`` (or of functions to call, for what is not a
    command); the commands written are kept in order."""

    def __init__(self, workspace) -> None:
        self.workspace = workspace
        self.answers: list[list[tuple[str, dict]]] = []
        self.written: list[SchedulerCommand] = []
        self._seen: set[str] = set()

    def saw(self, document) -> None:
        if document is None or document["id"] in self._seen or not self.answers:
            return
        self._seen.add(document["id"])
        for answer in self.answers.pop(0):
            if callable(answer):
                answer()
            else:
                kind, payload = answer
                self.written.append(command(self.workspace, kind, **payload))

    def outcomes(self) -> list[str]:
        for written in self.written:
            written.refresh_from_db()
        return [written.outcome for written in self.written]


def says(verb, **payload) -> list[tuple[str, dict]]:
    """One stop's answer: a ``debug`` command."""
    return [(SchedulerCommand.DEBUG, {"command": verb, **payload})]


@pytest.fixture
def person(monkeypatch, workspace):
    person = Person(workspace)
    show = StopController._show

    def show_and_look(controller, document, note):
        show(controller, document, note)
        person.saw(document)

    monkeypatch.setattr(StopController, "_show", show_and_look)
    return person


@pytest.fixture
def two_nodes(cluster):
    """Two nodes, so Score runs (a single feasible node is not scored); n2, twice as big, wins."""
    cluster.add(node_manifest("n1"))
    cluster.add(node_manifest("n2", cpu="8", memory="16Gi"))
    return cluster


def test_without_breakpoints_the_frameworks_report_to_the_recorder_alone(make_service, two_nodes):
    service = make_service()
    service.start()
    framework = next(iter(service.scheduler.profiles.values()))
    assert framework.observer is service.recorder


def test_a_breakpoint_at_score_stops_there_and_step_and_continue_answer_it(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="score")
    two_nodes.add(pod_manifest("web"))
    person.answers = [says("step"), says("continue")]
    service = make_service()
    service.start()
    assert isinstance(service.debugger, Debugger)

    settle(service, binding_tasks)

    first, second = stops_shown(sent)
    assert (first["pod"], first["uid"], first["point"], first["attempt"]) == (
        "default/web",
        "uid-web",
        "score",
        1,
    )
    assert first["reason"] == "breakpoint score" and first["plugin"]
    assert first["results"]["filter"].keys() == {"n1", "n2"}  # Filter is done: both fit
    assert first["nodes"] and first["cycleState"] and first["queue"]
    assert second["reason"] == "step" and second["id"] != first["id"]
    assert person.outcomes() == [
        f"step at {first['summary']}",
        f"continue at {second['summary']}",
    ]
    assert results() == [("default/web", "Scheduled", "n2")]
    assert SchedulerStatus.objects.get(workspace=workspace).stop is None


def test_a_command_for_a_stop_that_has_ended_is_ignored_so_two_clicks_apply_once(
    make_service, workspace, two_nodes, binding_tasks, person
):
    Breakpoint.objects.create(workspace=workspace, point="score", plugin="NodeResourcesFit")
    two_nodes.add(pod_manifest("web"))
    service = make_service()
    service.start()
    stop_id = f"{service.generation}-1"
    person.answers = [[*says("continue", stop=stop_id), *says("run", stop=stop_id)]]

    settle(service, binding_tasks)

    first, second = person.outcomes()
    assert first.startswith("continue at default/web attempt 1: score · NodeResourcesFit")
    assert second == f"ignored: the scheduler is no longer at stop {stop_id}"
    assert results() == [("default/web", "Scheduled", "n2")]


def test_abort_ends_the_attempt_with_an_error_and_the_pod_goes_back_to_the_queue(
    make_service, workspace, two_nodes, binding_tasks, clock, sent, person
):
    breakpoint = Breakpoint.objects.create(workspace=workspace, point="filter", node="n2")
    two_nodes.add(pod_manifest("web"))
    person.answers = [says("abort")]
    service = make_service()
    service.start()

    service.tick()

    [stop] = stops_shown(sent)
    assert (stop["point"], stop["node"]) == ("filter", "n2")
    # The attempt's events so far, the stop's last: a page loaded now shows them (Live panel).
    assert stop["events"][0]["point"] == "preFilter" and stop["events"][-1] == stop["event"]
    [outcome] = person.outcomes()
    assert outcome.startswith("abort at default/web attempt 1: filter")
    [attempt] = SchedulingAttempt.objects.all()
    assert (attempt.result, attempt.message) == ("Error", "aborted by the debugger at filter")
    assert two_nodes.get("Pod", "web", "default").spec.node_name == ""
    status = SchedulerStatus.objects.get(workspace=workspace)
    assert [e["pod"] for e in status.queue["backoff"]] == ["default/web"]
    # The pages say so with the stop's end, and keep saying it until the next stop.
    said = "The attempt of default/web (attempt 1) was aborted at filter: it ended with an "
    [end] = [m for g, m in sent if m["type"] == broadcast.DEBUG_STOP and m["stop"] is None][-1:]
    assert end["note"] == status.debugger_note
    assert status.debugger_note == said + "Error, and the pod went back to the queue."

    breakpoint.delete()
    command(workspace, SchedulerCommand.BREAKPOINTS)
    clock.step(1.5)  # the first attempt's backoff: 1 s
    settle(service, binding_tasks)
    assert results()[-1] == ("default/web", "Scheduled", "n2")


def test_a_breakpoint_for_another_pod_lets_this_one_through(
    make_service, workspace, two_nodes, binding_tasks, sent
):
    Breakpoint.objects.create(workspace=workspace, point="filter", pod="default/other")
    two_nodes.add(pod_manifest("web"))
    service = make_service()
    service.start()

    settle(service, binding_tasks)

    assert stops_shown(sent) == []
    assert results() == [("default/web", "Scheduled", "n2")]


def test_a_stop_left_alone_continues_by_itself_and_says_so(
    make_service, workspace, two_nodes, binding_tasks, sent
):
    Breakpoint.objects.create(workspace=workspace, point="reserve")
    two_nodes.add(pod_manifest("web"))
    service = make_service(clock=AdvancingClock(time.time()))
    service.stops.stop_seconds = 120
    service.start()

    settle(service, binding_tasks)

    [stop] = stops_shown(sent)
    note = f"The stop at {stop['summary']} continued by itself after 2 minutes without a command."
    assert notes(sent) == [note]
    assert SchedulerStatus.objects.get(workspace=workspace).debugger_note == note
    assert results() == [("default/web", "Scheduled", "n2")]


def test_play_advances_one_extension_point_at_a_time(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="preFilter")
    two_nodes.add(pod_manifest("web"))
    person.answers = [says("play", pace=0.5)]
    service = make_service(clock=AdvancingClock(time.time()))
    service.start()

    settle(service, binding_tasks)

    assert person.outcomes() == ["playing at 0.5 s per extension point"]
    shown = stops_shown(sent)
    ends = [s["point"] for s in shown if s["reason"] == "next"]
    assert ends == [
        "preFilter",
        "filter",
        "preScore",
        "score",
        "reserve",
        "permit",
        "preBind",
        "bind",  # from the binding task, once it reported
        "postBind",
    ]
    assert all(s["play"] == 0.5 for s in shown[1:])
    assert results() == [("default/web", "Scheduled", "n2")]


def test_pause_stops_playing_and_the_stop_waits_again(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="score")
    two_nodes.add(pod_manifest("web"))
    person.answers = [[*says("play", pace=30), *says("pause"), *says("run")]]
    service = make_service()
    service.start()

    settle(service, binding_tasks)

    play, pause, run = person.outcomes()
    assert (play, pause) == ("playing at 30 s per extension point", "paused playing")
    assert run.startswith("run at default/web attempt 1: score")
    assert [s["play"] for s in stops_shown(sent)] == [None, 30.0, None]


def test_an_invalid_debug_command_names_the_problem(
    make_service, workspace, two_nodes, binding_tasks, person
):
    Breakpoint.objects.create(workspace=workspace, point="score")
    two_nodes.add(pod_manifest("web"))
    person.answers = [[*says("jump"), *says("play", pace="fast"), *says("run")]]
    service = make_service()
    service.start()

    settle(service, binding_tasks)

    bad, slow, done = person.outcomes()
    assert bad == (
        "invalid debug command: 'jump' is not one of step, next, continue, run, abort, play, pause"
    )
    assert slow == "invalid debug command: pace 'fast' is not a number of seconds in (0, 60]"
    assert done.startswith("run at default/web")


def test_a_debug_command_without_a_stop_is_answered(make_service, workspace, two_nodes):
    service = make_service()
    service.start()
    late = debug(workspace, "step", stop="1-9")
    stray = debug(workspace, "continue")

    service.tick()

    late.refresh_from_db()
    stray.refresh_from_db()
    assert late.outcome == "ignored: the scheduler is no longer at stop 1-9"
    assert stray.outcome == "ignored: the scheduler is not stopped"


def test_during_a_stop_permit_decisions_and_pause_are_executed_but_apply_waits(
    make_service, workspace, cluster, binding_tasks, sent, person
):
    """A pod waiting at Permit is allowed while another pod's cycle is stopped; its binding
    cycle goes on once the stop ends. A configuration to apply waits for the stop, and so do
    the commands after it, except the stop's own."""
    configure(workspace, WAIT_FOR_APPROVAL)
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("first"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    assert results() == [("default/first", "Waiting", "n1")]

    Breakpoint.objects.create(workspace=workspace, point="filter", pod="default/second")
    command(workspace, SchedulerCommand.BREAKPOINTS)
    service.tick()
    cluster.add(pod_manifest("second"))
    person.answers = [
        [
            (SchedulerCommand.ALLOW, {"uid": "uid-first"}),
            (SchedulerCommand.PAUSE, {}),
            (SchedulerCommand.APPLY_CONFIGURATION, {}),
            (SchedulerCommand.RESUME, {}),
            *says("continue"),
        ]
    ]

    service.tick()

    allow, pause, apply, resume, go_on = person.outcomes()
    assert [s["pod"] for s in stops_shown(sent)] == ["default/second"]
    assert allow == "allowed by WaitForApproval"
    assert pause == "paused" and service.paused
    assert go_on.startswith("continue at default/second")
    assert (apply, resume) == ("", "")  # executed by the next tick
    assert [request.name for request in binding_tasks.requests] == ["first"]

    binding_tasks.run_all()
    service.stops.stop_seconds = 0  # the rebuilt scheduler stops "second" again: go on
    service.tick()
    _, _, apply, resume, _ = person.outcomes()
    assert apply.startswith("applied") and resume == "resumed"


def test_a_lost_lease_aborts_the_stop_and_the_service_ends(
    make_service, workspace, two_nodes, clock, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="score")
    two_nodes.add(pod_manifest("web"))
    service = make_service()
    service.start()

    def another_worker_takes_the_lease_over():
        SchedulerLease.objects.filter(workspace=workspace).update(holder="worker-b", generation=9)
        clock.step(settings.SCHEDULER_LEASE_SECONDS / 2)  # time for the stop to renew it

    person.answers = [[another_worker_takes_the_lease_over]]

    service.tick()

    [note] = notes(sent)
    assert note.endswith("was aborted: the scheduler lost its lease.")
    assert service.stops.interrupted
    assert [a.result for a in SchedulingAttempt.objects.all()] == ["Error"]
    assert not service.tick()


def test_a_stop_command_aborts_the_stop_and_ends_the_service_at_the_next_tick(
    make_service, workspace, two_nodes, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="score")
    two_nodes.add(pod_manifest("web"))
    service = make_service()
    service.start()
    person.answers = [[(SchedulerCommand.STOP, {})]]

    service.tick()

    assert notes(sent)[-1].endswith("was aborted: the workspace is being deleted.")
    assert person.outcomes() == [""]
    assert not service.tick()
    assert person.outcomes() == ["stopped"]


def test_a_rebuilt_scheduler_forgets_the_stop_of_its_predecessor(make_service, workspace):
    SchedulerStatus.objects.create(workspace=workspace, stop={"id": "1-1", "point": "score"})
    service = make_service()
    service.start()
    status = SchedulerStatus.objects.get(workspace=workspace)
    assert status.stop is None
    assert status.debugger_note == "The scheduler was rebuilt: a stop under way was lost."


# ----------------------------------------------------------------------------------------------
# A person answering while the service waits


@pytest.mark.django_db(transaction=True)
def test_while_stopped_the_state_says_where_the_lease_is_renewed_and_a_click_goes_on(
    make_service, workspace, two_nodes, binding_tasks, clock
):
    Breakpoint.objects.create(workspace=workspace, point="score", plugin="NodeResourcesFit")
    two_nodes.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    two_nodes.add(pod_manifest("web", namespace="shop"))
    service = make_service()
    service.stops.poll_seconds = 0.02
    service.start()
    ticking = threading.Thread(target=service.tick)
    ticking.start()
    try:
        status = _wait_for(
            lambda: SchedulerStatus.objects.filter(workspace=workspace, stop__isnull=False).first()
        )
        state = scheduler_state(workspace.pk)
        assert state.state == STOPPED
        assert state.label == "stopped at Score · NodeResourcesFit · pod shop/web"
        renewed = SchedulerLease.objects.get(workspace=workspace).renewed_at
        clock.step(settings.SCHEDULER_LEASE_SECONDS / 2)
        _wait_for(lambda: SchedulerLease.objects.get(workspace=workspace).renewed_at > renewed)
        assert ticking.is_alive()
        debug(workspace, "continue", stop=status.stop["id"])
        ticking.join(timeout=10)
        assert not ticking.is_alive()
    finally:
        service.stops.halt.set()
        ticking.join(timeout=10)
    assert SchedulerStatus.objects.get(workspace=workspace).stop is None
    assert scheduler_state(workspace.pk).label == "scheduler running"


def _wait_for(read, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = read()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_a_breakpoint_at_bind_stops_with_the_binding_tasks_result(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="bind")
    Breakpoint.objects.create(workspace=workspace, point="postBind", pod="default/web")
    two_nodes.add(pod_manifest("web"))
    person.answers = [says("continue"), says("abort")]
    service = make_service()
    service.start()

    settle(service, binding_tasks)

    at_bind, at_post_bind = stops_shown(sent)
    assert (at_bind["point"], at_bind["plugin"], at_bind["node"]) == ("bind", "DefaultBinder", "n2")
    assert at_bind["attempt"] == 1 and at_bind["event"]["code"] == "Success"
    assert at_post_bind["point"] == "postBind"
    # Abort is taken as run once Bind has run: the pod stays bound.
    assert person.outcomes()[1].startswith("run at default/web attempt 1: postBind")
    assert results() == [("default/web", "Scheduled", "n2")]


def test_a_permit_wait_keeps_its_own_timer_during_a_stop(
    make_service, workspace, cluster, binding_tasks, sent
):
    """A pod waits at Permit (30 s) while another pod's cycle is stopped longer than that: it is
    rejected when its time runs out, and its binding cycle's end runs once the stop is over."""
    configure(workspace, WAIT_FOR_APPROVAL)
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("first"))
    clock = AdvancingClock(time.time())
    service = make_service(clock=clock)
    service.stops.stop_seconds = 120
    service.start()
    settle(service, binding_tasks)
    assert results() == [("default/first", "Waiting", "n1")]
    Breakpoint.objects.create(workspace=workspace, point="filter", pod="default/second")
    command(workspace, SchedulerCommand.BREAKPOINTS)
    cluster.add(pod_manifest("second"))

    service.tick()  # stops at second's Filter, and goes on by itself after 120 s

    assert [s["pod"] for s in stops_shown(sent)] == ["default/second"]
    [first] = SchedulingAttempt.objects.filter(pod_key="default/first").order_by("-id")[:1]
    assert (first.result, first.message) == (
        "Unschedulable",
        "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
        "WaitForApproval.",
    )


def test_clearing_a_node_breakpoint_gives_the_batch_form_back(
    make_service, workspace, two_nodes, binding_tasks, person
):
    breakpoint = Breakpoint.objects.create(workspace=workspace, point="filter", node="n2")
    two_nodes.add(pod_manifest("web"))
    person.answers = [says("continue")]
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    framework = next(iter(service.scheduler.profiles.values()))
    assert framework.per_node, "the node breakpoint's cycle ran node by node"

    breakpoint.delete()
    command(workspace, SchedulerCommand.BREAKPOINTS)
    service.tick()

    assert not framework.per_node


# ----------------------------------------------------------------------------------------------
# Play belongs to its attempt; a stop no breakpoint would make any more goes on


def labelled(name: str, **labels: str) -> dict:
    manifest = pod_manifest(name)
    manifest["metadata"]["labels"] = labels
    return manifest


def test_play_belongs_to_the_attempt_it_was_pressed_in_and_a_later_stop_waits(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="score", selector="app=playrepro")
    two_nodes.add(labelled("play-1", app="playrepro"))
    person.answers = [says("play", pace=0.5)]
    service = make_service(clock=AdvancingClock(time.time()))
    service.stops.stop_seconds = 120
    service.start()
    settle(service, binding_tasks)
    assert results() == [("default/play-1", "Scheduled", "n2")]
    played = list({s["id"]: s for s in stops_shown(sent)}.values())  # each stop once
    assert [s["reason"] for s in played[1:]] == ["next"] * (len(played) - 1)
    assert all(s["play"] == 0.5 for s in played[1:])

    sent.clear()
    two_nodes.add(labelled("play-2", app="playrepro"))
    settle(service, binding_tasks)

    # Nobody answered play-2's stop: it waited, without playing, until its time ran out.
    [waited] = stops_shown(sent)
    assert (waited["pod"], waited["reason"], waited["play"]) == (
        "default/play-2",
        "breakpoint score selector app=playrepro",
        None,
    )
    assert notes(sent) == [
        f"The stop at {waited['summary']} continued by itself after 2 minutes without a command."
    ]
    assert results()[-1][:2] == ("default/play-2", "Scheduled")


def test_play_goes_on_in_its_own_attempt_after_another_pods_stop(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    """A pod plays up to PreBind; its Bind is reported by the binding task after another pod
    stopped at its own breakpoint (and was answered): the first pod's Bind stop plays on."""
    Breakpoint.objects.create(workspace=workspace, point="preBind", pod="default/first")
    Breakpoint.objects.create(workspace=workspace, point="filter", pod="default/second")
    two_nodes.add(pod_manifest("first"))
    two_nodes.add(pod_manifest("second"))
    person.answers = [says("play", pace=0.5), [], says("continue")]
    service = make_service(clock=AdvancingClock(time.time()))
    service.start()

    settle(service, binding_tasks)

    shown = [(s["pod"], s["point"], s["play"]) for s in stops_shown(sent)]
    assert shown[:3] == [
        ("default/first", "preBind", None),
        ("default/first", "preBind", 0.5),  # the end of PreBind, played to
        ("default/second", "filter", None),
    ]
    assert ("default/first", "bind", 0.5) in shown[3:]
    assert {key for key, _, _ in shown} == {"default/first", "default/second"}


def test_clearing_every_breakpoint_lets_the_stop_go_on_and_says_so(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    Breakpoint.objects.create(workspace=workspace, point="filter", node="n2")
    two_nodes.add(pod_manifest("web"))

    def clear_all():
        Breakpoint.objects.all().delete()
        person.written.append(command(workspace, SchedulerCommand.BREAKPOINTS))

    person.answers = [[clear_all]]
    service = make_service(clock=AdvancingClock(time.time()))
    service.stops.stop_seconds = 120  # a stop that waits in vain ends, and the test fails
    service.start()

    settle(service, binding_tasks)

    [stop] = stops_shown(sent)
    assert notes(sent) == [
        f"The stop at {stop['summary']} continued by itself: no breakpoint stops there any more."
    ]
    assert person.outcomes() == [f"0 breakpoints set; continued from {stop['summary']}"]
    assert results() == [("default/web", "Scheduled", "n2")]
    assert SchedulerStatus.objects.get(workspace=workspace).stop is None


@pytest.mark.parametrize(
    ("left", "then"),
    [
        ({"point": "preBind"}, "run at default/web attempt 1: preBind"),  # on to PreBind
        ({"point": "filter", "pod": "default/other"}, "ignored: the scheduler is not stopped"),
        (
            {"point": "filter", "node": "n2", "selector": "app=web"},
            "run at default/web attempt 1: filter",
        ),
    ],
)
def test_clearing_one_breakpoint_goes_on_only_if_those_left_would_not_stop_here(
    make_service, workspace, two_nodes, binding_tasks, sent, person, left, then
):
    cleared = Breakpoint.objects.create(workspace=workspace, point="filter", node="n2")
    Breakpoint.objects.create(workspace=workspace, **left)
    two_nodes.add(labelled("web", app="web"))

    def clear_one():
        cleared.delete()
        person.written.append(command(workspace, SchedulerCommand.BREAKPOINTS))

    person.answers = [[clear_one, *says("run")]]  # "run" answers whichever stop is next
    service = make_service(clock=AdvancingClock(time.time()))
    service.stops.stop_seconds = 120  # a stop that waits in vain ends, and the test fails
    service.start()

    settle(service, binding_tasks)

    first, *later = list({s["id"]: s for s in stops_shown(sent)}.values())
    assert (first["point"], first["reason"]) == ("filter", "breakpoint filter@n2")
    changed, run = person.outcomes()
    goes_on = not then.endswith("filter")
    assert changed == "1 breakpoint set" + (
        f"; continued from {first['summary']}" if goes_on else ""
    )
    assert run.startswith(then)
    assert bool(notes(sent)) == goes_on
    assert [s["point"] for s in later] == (["preBind"] if left["point"] == "preBind" else [])
    if later:  # the next stop still says why the scheduler left the last one
        assert notes_at(sent, later[0]["id"]) == [notes(sent)[0]]
    assert results() == [("default/web", "Scheduled", "n2")]


def notes_at(sent, stop_id: str) -> list[str]:
    """The notes the pages were shown with the stop ``stop_id``."""
    return [
        message["note"]
        for group, message in sent
        if message["type"] == broadcast.DEBUG_STOP
        and group.startswith("workspace-")
        and (message["stop"] or {}).get("id") == stop_id
    ]


def test_a_step_stays_while_breakpoints_are_left_even_if_none_would_stop_there(
    make_service, workspace, two_nodes, binding_tasks, sent, person
):
    """A stop a person stepped to is theirs: it waits while the debugger stays on."""
    first = Breakpoint.objects.create(workspace=workspace, point="filter", node="n2")
    Breakpoint.objects.create(workspace=workspace, point="postBind", pod="default/other")
    two_nodes.add(pod_manifest("web"))

    def clear_the_first():
        first.delete()
        person.written.append(command(workspace, SchedulerCommand.BREAKPOINTS))

    person.answers = [says("step"), [clear_the_first, *says("run")]]
    service = make_service(clock=AdvancingClock(time.time()))
    service.stops.stop_seconds = 120  # a stop that waits in vain ends, and the test fails
    service.start()

    settle(service, binding_tasks)

    stepped, changed, run = person.outcomes()
    assert stepped.startswith("step at default/web attempt 1: filter")
    assert changed == "1 breakpoint set"
    assert run.startswith("run at default/web attempt 1: filter")
    assert [s["reason"] for s in stops_shown(sent)] == ["breakpoint filter@n2", "step"]


def test_a_pod_group_breakpoint_stops_as_the_groups_cycle_starts(
    make_service, workspace, cluster, binding_tasks, sent, person
):
    SchedulerConfiguration.objects.create(
        workspace=workspace,
        revision=1,
        text="apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
        feature_gates="GenericWorkload=true,GangScheduling=true",
    )
    Breakpoint.objects.create(workspace=workspace, point="podGroup")
    cluster.add(node_manifest("n1"))
    cluster.add(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "g", "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
        }
    )
    for name in ("g-0", "g-1"):
        cluster.add(pod_manifest(name, schedulingGroup={"podGroupName": "g"}))
    person.answers = [says("continue")]
    service = make_service()
    service.start()

    settle(service, binding_tasks)

    [stop] = stops_shown(sent)
    members = stop["event"]["data"]["members"]
    assert stop["event"]["data"]["podGroup"] == "default/g"
    assert sorted(members) == ["default/g-0", "default/g-1"]
    # The stop is named by the member tried first: its uid leads to its page.
    assert (stop["kind"], stop["point"], stop["pod"]) == ("podGroupCycle", "podGroup", members[0])
    assert stop["uid"] == f"uid-{members[0].split('/')[1]}"
    assert stop["nodes"] and stop["queue"] and stop["events"] == []
    assert person.outcomes() == [
        f"continue at pod group default/g ({', '.join(members)}): cycle starts "
        "[breakpoint podGroup]"
    ]
    assert sorted(results()) == [
        ("default/g-0", "Scheduled", "n1"),
        ("default/g-1", "Scheduled", "n1"),
    ]
