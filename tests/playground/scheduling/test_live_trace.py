"""The live stream: a real scheduler service streams each extension point of the pods a page
watches (LiveWatch), one message per pod per flush, and nothing at all while nobody watches."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer

from framework.trace import EXTENSION_POINT, PLUGIN, FanOut, TraceEvent
from framework.util.clock import FakeClock
from playground.live import broadcast
from playground.scheduling.live_trace import LiveTrace
from playground.scheduling.service import SchedulerService
from playground.workspaces.models import LiveWatch, SchedulingAttempt
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db

SCHEDULING_CYCLE = ["preEnqueue", "preFilter", "filter", "preScore", "score"]
BINDING_CYCLE_HERE = ["reserve", "permit", "preBind"]


def watch(workspace, clock, pod: str = "", seconds: float = 90.0, channel: str = "") -> LiveWatch:
    expires = datetime.fromtimestamp(clock.now() + seconds, tz=UTC)
    channel = channel or f"test.{pod or 'everyone'}"
    return LiveWatch.objects.create(workspace=workspace, pod=pod, channel=channel, expires=expires)


def trace_messages(sent) -> list[tuple[str, dict]]:
    return [(g, m) for g, m in sent if m["type"] == broadcast.TRACE_EVENTS]


def points(message: dict) -> list[str]:
    return [e["point"] for e in message["events"] if e["kind"] == EXTENSION_POINT]


def observed(service: SchedulerService) -> bool:
    """Whether the LiveTrace is among the observers of every profile (False: of none)."""
    found = [
        framework.observer is service.live
        or (isinstance(framework.observer, FanOut) and service.live in framework.observer.observers)
        for framework in service.scheduler.profiles.values()
    ]
    assert len(set(found)) == 1, "observed by some profiles only"
    return found[0]


@pytest.fixture
def started(make_service, cluster):
    """A started service of a workspace with two nodes (so pods are scored), after one tick."""
    cluster.add(node_manifest("n1"))
    cluster.add(node_manifest("n2"))

    def start() -> SchedulerService:
        service = make_service()
        assert service.start()
        assert service.tick()
        return service

    return start


# ----------------------------------------------------------------------------------------------
# With a real service


def test_with_nobody_watching_nothing_observes_nor_is_sent(started, cluster, sent, binding_tasks):
    service = started()
    cluster.add(pod_manifest("a"))

    settle(service, binding_tasks)

    assert not observed(service)
    for framework in service.scheduler.profiles.values():
        assert framework.observer is service.recorder, "not even a FanOut left in the way"
    assert trace_messages(sent) == []
    attempts = SchedulingAttempt.objects.values_list("pod_key", "result")
    assert list(attempts) == [("default/a", "Scheduled")]


def test_a_watched_pods_extension_points_arrive_in_one_message_per_flush(
    started, workspace, cluster, clock, sent, binding_tasks
):
    watch(workspace, clock, "default/a")
    service = started()
    assert observed(service)
    group_a = broadcast.pod_group(workspace.pk, "uid-a")
    cluster.add(pod_manifest("a"))
    cluster.add(pod_manifest("b"))

    assert service.tick()

    messages = trace_messages(sent)
    assert [group for group, _ in messages] == [group_a], "one message, to A's page only"
    message = messages[0][1]
    assert (message["pod"], message["uid"], message["attempt"]) == ("default/a", "uid-a", 1)
    assert points(message) == SCHEDULING_CYCLE + BINDING_CYCLE_HERE
    plugins = {e["plugin"] for e in message["events"] if e["kind"] != EXTENSION_POINT}
    assert "NodeResourcesFit" in plugins, "the plugin calls come with the points"
    assert all(e["pod"] == "default/a" for e in message["events"])

    # Bind and PostBind run in a binding task: they follow with its outcome, same attempt.
    sent.clear()
    binding_tasks.run_all()
    assert service.tick()
    messages = trace_messages(sent)
    assert [group for group, _ in messages] == [group_a]
    assert messages[0][1]["attempt"] == 1
    assert points(messages[0][1]) == ["bind", "postBind"]


def test_an_expired_watch_stops_the_stream(started, workspace, cluster, clock, sent):
    watch(workspace, clock, seconds=5)
    service = started()
    cluster.add(pod_manifest("a"))
    assert service.tick()
    assert [m["pod"] for _, m in trace_messages(sent)] == ["default/a"]

    clock.step(6)
    assert service.tick()  # reads the watches again: none is alive
    assert not observed(service)
    sent.clear()
    cluster.add(pod_manifest("b"))
    assert service.tick()

    assert trace_messages(sent) == []
    for framework in service.scheduler.profiles.values():
        assert framework.observer is service.recorder


def test_a_deleted_watch_stops_the_stream_within_a_second(started, workspace, cluster, clock, sent):
    row = watch(workspace, clock, "default/a")
    service = started()
    row.delete()

    clock.step(0.5)
    assert service.tick()
    assert observed(service), "the watches are read at most once a second"
    clock.step(0.6)
    assert service.tick()
    assert not observed(service)


def test_a_workspace_watch_gets_the_attempt_under_way_on_the_debugger_group(
    started, workspace, cluster, clock, sent
):
    watch(workspace, clock)
    watch(workspace, clock, "default/b", channel="b-page")
    service = started()
    debugger = broadcast.debugger_group(workspace.pk)
    assert debugger == f"debugger-{workspace.pk}"

    cluster.add(pod_manifest("a"))
    assert service.tick()
    cluster.add(pod_manifest("b"))
    assert service.tick()

    sent_to = [(group, m["pod"]) for group, m in trace_messages(sent)]
    assert sorted(sent_to) == sorted(
        [
            (debugger, "default/a"),
            (debugger, "default/b"),
            (broadcast.pod_group(workspace.pk, "uid-b"), "default/b"),  # b's page watches too
        ]
    )
    for _, message in trace_messages(sent):
        assert points(message) == SCHEDULING_CYCLE + BINDING_CYCLE_HERE


def test_of_a_burst_the_debugger_group_gets_the_latest_pod_once_a_flush(
    started, workspace, cluster, clock, sent
):
    """One message a flush, not one per pod: a burst would flood the page's channel queue."""
    watch(workspace, clock)
    watch(workspace, clock, "default/a", channel="a-page")
    service = started()
    for name in ("a", "b", "c"):
        cluster.add(pod_manifest(name))

    assert service.tick()  # the fake clock stands still: one flush for the three pods

    debugger = broadcast.debugger_group(workspace.pk)
    [(_, latest)] = [(g, m) for g, m in trace_messages(sent) if g == debugger]
    assert latest["pod"] in ("default/a", "default/b", "default/c")
    assert points(latest) == SCHEDULING_CYCLE + BINDING_CYCLE_HERE
    to_pages = [(g, m["pod"]) for g, m in trace_messages(sent) if g != debugger]
    assert to_pages == [(broadcast.pod_group(workspace.pk, "uid-a"), "default/a")]


def test_the_messages_reach_the_debugger_pages_channel(
    started, workspace, cluster, clock, monkeypatch, settings
):
    """Through the in-memory channel layer, as a consumer receives them."""
    monkeypatch.undo()  # the real broadcast.send, not the capture of the `sent` fixture
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    listener = Listener(get_channel_layer(), broadcast.debugger_group(workspace.pk))
    watch(workspace, clock)
    service = started()
    cluster.add(pod_manifest("a"))

    assert service.tick()

    message = listener.next()
    assert message["type"] == "trace.events" and message["pod"] == "default/a"
    assert points(message) == SCHEDULING_CYCLE + BINDING_CYCLE_HERE
    listener.stop()


def test_a_pod_retried_starts_a_new_attempt(started, workspace, cluster, clock, sent):
    watch(workspace, clock, "default/big")
    service = started()
    cluster.add(pod_manifest("big", cpu="8"))  # fits on no node

    assert service.tick()
    first = [m for _, m in trace_messages(sent)]
    assert [m["attempt"] for m in first] == [1]
    assert points(first[0])[-1] == "postFilter"

    sent.clear()
    cluster.add(node_manifest("n3", cpu="16"))  # the pod goes back to the queue: PreEnqueue
    clock.step(11)  # past its backoff, and past FLUSH_SECONDS: PreEnqueue's end sends at once
    assert service.tick()

    again = [(m["attempt"], points(m)) for _, m in trace_messages(sent)]
    assert again == [
        (None, ["preEnqueue"]),  # before the attempt it lets in
        (2, ["preFilter", "filter", *BINDING_CYCLE_HERE]),  # one feasible node: no scoring
    ]


# ----------------------------------------------------------------------------------------------
# The observer alone


class FakeScheduler:
    """What LiveTrace reads of a scheduler: the current cycle and the cluster's pods."""

    def __init__(self) -> None:
        self.current_cycle = None
        self.cluster = None


def FakeCycle(key: str, uid: str, attempt: int) -> SimpleNamespace:
    """What LiveTrace reads of a Cycle: its pod and attempt number."""
    pod = SimpleNamespace(key=key, uid=uid)
    return SimpleNamespace(pod_info=SimpleNamespace(pod=pod), attempt=attempt)


def event(point: str, pod: str = "default/a", kind: str = EXTENSION_POINT) -> TraceEvent:
    return TraceEvent(kind=kind, point=point, pod=pod, profile="p", code="Success", plugin="P")


@pytest.fixture
def live(workspace, sent):
    clock = FakeClock(datetime.now(tz=UTC).timestamp())
    live = LiveTrace(workspace.pk, clock, FakeScheduler())
    watch(workspace, clock, "default/a")
    assert live.refresh()
    assert sent == [("test.default/a", {"type": broadcast.TRACE_FOLLOWED})]
    sent.clear()
    return live


def test_each_page_is_told_once_that_its_watch_is_followed(live, workspace, sent):
    live.clock.step(1.0)
    watch(workspace, live.clock, "default/a", channel="second-tab")
    watch(workspace, live.clock, "", channel="debugger-page")
    assert live.refresh()
    assert sorted(sent) == [
        ("debugger-page", {"type": broadcast.TRACE_FOLLOWED}),
        ("second-tab", {"type": broadcast.TRACE_FOLLOWED}),
    ], "only the pages not told yet, each on its own channel"

    sent.clear()
    LiveWatch.objects.filter(channel="second-tab").delete()
    live.clock.step(1.0)
    live.refresh()
    live.clock.step(1.0)
    watch(workspace, live.clock, "default/a", channel="second-tab")  # the page reconnected
    live.clock.step(1.0)
    live.refresh()
    assert sent == [("second-tab", {"type": broadcast.TRACE_FOLLOWED})]


def test_a_page_whose_answer_was_refused_is_told_again_at_the_next_reading(workspace, monkeypatch):
    """A send to one page's channel can fail (channels_redis refuses it when the page's web
    process has a queue at capacity: ChannelFull); the page would wait for ever."""
    sends: list[tuple[str, Future]] = []

    def send_to_channel(channel: str, message: dict) -> Future:
        sends.append((channel, Future()))
        return sends[-1][1]

    monkeypatch.setattr(broadcast, "send_to_channel", send_to_channel)
    clock = FakeClock(datetime.now(tz=UTC).timestamp())
    live = LiveTrace(workspace.pk, clock, FakeScheduler())
    watch(workspace, clock, "default/a", channel="busy-page")

    def read_again() -> list[str]:
        clock.step(1.0)
        live.refresh()
        return [channel for channel, _ in sends]

    assert read_again() == ["busy-page"]
    assert read_again() == ["busy-page"], "a send under way is left to finish"
    sends[0][1].set_exception(ChannelFull())
    assert read_again() == ["busy-page", "busy-page"]
    sends[1][1].set_result(None)
    assert read_again() == ["busy-page", "busy-page"], "told once it was sent"


def test_an_unwatched_pods_events_are_not_kept(live, sent):
    assert live.watched("default/a") and not live.watched("default/b")
    live.scheduler.current_cycle = FakeCycle("default/b", "uid-b", 1)
    live.on_event(event("preFilter", "default/b"))
    assert live.flush(force=True) == 0
    assert sent == []


def test_sends_at_most_every_tenth_of_a_second_unless_forced(live, sent):
    live.scheduler.current_cycle = FakeCycle("default/a", "uid-a", 3)
    live.on_event(event("preFilter"))
    assert sent == [], "less than 0.1 s since the last send"

    live.clock.step(0.15)
    live.on_event(event("filter", kind=PLUGIN))
    assert sent == [], "a plugin call does not send: its point's end does"
    live.on_event(event("filter"))
    assert [points(m) for _, m in sent] == [["preFilter", "filter"]]
    assert sent[0][1]["attempt"] == 3

    live.on_event(event("score"))
    assert live.flush() == 0
    assert live.flush(force=True) == 1
    assert [points(m) for _, m in sent][-1] == ["score"]


def test_pre_enqueue_joins_the_attempt_that_follows_it(live, sent):
    live.scheduler.current_cycle = FakeCycle("default/a", "uid-a", 1)
    live.on_event(event("preEnqueue"))  # the pod re-enters the queue: its next attempt
    live.scheduler.current_cycle = FakeCycle("default/a", "uid-a", 2)
    live.on_event(event("preFilter"))
    live.flush(force=True)
    assert [(m["attempt"], points(m)) for _, m in sent] == [(2, ["preEnqueue", "preFilter"])]

    sent.clear()
    live.on_event(event("postFilter"))
    live.on_event(event("preEnqueue"))  # after attempt 2 failed, before attempt 3
    live.flush(force=True)
    assert [(m["attempt"], points(m)) for _, m in sent] == [
        (2, ["postFilter"]),
        (None, ["preEnqueue"]),
    ]


def test_nobody_watching_any_more_drops_what_was_kept(live, workspace, sent):
    live.scheduler.current_cycle = FakeCycle("default/a", "uid-a", 1)
    live.on_event(event("preFilter"))
    LiveWatch.objects.all().delete()
    live.clock.step(1)
    assert not live.refresh()
    assert live.flush(force=True) == 0


# ----------------------------------------------------------------------------------------------


class Listener:
    """A consumer of one group in its own thread and event loop, as a connected page is."""

    def __init__(self, layer, group: str) -> None:
        self.messages: list[dict] = []
        self._received = threading.Condition()
        self._stop = threading.Event()
        joined = threading.Event()

        async def listen() -> None:
            channel = await layer.new_channel()
            await layer.group_add(group, channel)
            joined.set()
            while not self._stop.is_set():
                try:
                    message = await asyncio.wait_for(layer.receive(channel), 0.1)
                except TimeoutError:
                    continue
                with self._received:
                    self.messages.append(message)
                    self._received.notify_all()

        self._thread = threading.Thread(target=lambda: asyncio.run(listen()), daemon=True)
        self._thread.start()
        assert joined.wait(5)

    def next(self, timeout: float = 5) -> dict:
        with self._received:
            assert self._received.wait_for(lambda: self.messages, timeout), "no message came"
            return self.messages.pop(0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
