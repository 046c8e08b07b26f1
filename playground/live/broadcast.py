"""The only place that sends to channel groups (and to one page's channel): what the scheduler
service tells browsers.

Group names are built here from database ids (and a pod's uid, reduced to safe characters),
never from raw input. Each message's ``type`` names the consumer handler that receives it
(Channels maps ``queue.status`` to ``queue_status``); the payloads are plain JSON values:

- ``queue.status`` (workspace group): ``status``, the SchedulerStatus document:
  ``queue`` (lists of pods per place: ``active``, ``backoff``, ``unschedulable``, ``gated``,
  ``inFlight``, ``waiting``, ``binding``; see ``playground.scheduling.status``),
  ``waitingPods``, ``queueSizes``, ``paused``.
- ``node.usage`` (workspace group): ``nodes``, ``[{name, cpu, memory, pods}]`` with each
  resource as ``{requested, allocatable}`` (milli-CPU, bytes, pod count).
- ``attempts.recorded`` (workspace group): ``attempts``, the attempts stored together (those of
  one tick of the service), each ``{id, pod, uid, number, profile, result, node, message,
  evaluatedNodes, feasibleNodes, nominatedNode}``. One message per batch rather than one per
  attempt: pages only re-render on it, and a burst of pods sent hundreds a second.
- ``pod.trace`` (pod group): ``pod``, ``uid``, ``attemptId``, ``attempt`` (as above) and
  ``events``, the extension points' trace events of the attempt, in order (docs/trace.md);
  sent once the attempt is stored.
- ``debug.stop`` (workspace group, and the groups of the pods named): ``stop``, the document of
  the debugger stop the scheduler waits at (``playground.scheduling.stops``; the engine's
  ``Stop.to_dict()`` with ``id``, ``since``, ``deadline``, ``play``, ``uid``, ``summary``), or
  None once it goes on; ``note``, the debugger's last word (a stop that continued by itself).
- ``trace.events`` (pod group, debugger group): ``pod``, ``uid``, ``attempt``, ``events`` (the
  trace events of one pod since the previous such message, in order, docs/trace.md: plugin
  calls and each extension point's summary, streamed as the cycle runs;
  ``playground.scheduling.live_trace``) and ``seq`` (the service's count of such messages: a
  page puts them in that order, whatever order they arrive in). ``attempt`` is the
  scheduler's count of the pod's attempts (1 for its first; ``Cycle.attempt``, as in a debugger
  stop), or null for PreEnqueue events, which belong to the attempt they let in. Sent only
  while a page watches (``LiveWatch``): to the pod's group when that pod is watched, to
  ``debugger_group`` when the whole workspace is (the attempt under way only); at most one
  message per pod every 0.1 s, and at the end of each tick.
- ``trace.followed`` (one page's channel): nothing more. The service read the page's watch
  (``LiveWatch``) and streams its pod's trace events from its next tick on: the Live panel says
  so, and a person (or a test) knows the next attempt will show, PreEnqueue included.
- ``service.state`` (workspace group): nothing more. The scheduler's state (running, paused,
  starting, no scheduler; who holds the lease) changed: consumers read it again from the
  database (``playground.scheduling.scheduler_state``), the one place every page reads it.

The service sends ``queue.status`` and ``node.usage`` only when they changed, so a page that
nothing happens to receives nothing.

Sending never blocks the caller: messages go through one background event loop, except that
an in-memory layer's message is handed to the loop its consumers wait on (that layer's queues
are not thread-safe, and a message put from another loop would wait for the next wake-up).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
import weakref
from concurrent.futures import Future
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer

logger = logging.getLogger(__name__)

QUEUE_STATUS = "queue.status"
NODE_USAGE = "node.usage"
ATTEMPTS_RECORDED = "attempts.recorded"
POD_TRACE = "pod.trace"
TRACE_EVENTS = "trace.events"
SERVICE_STATE = "service.state"
TRACE_FOLLOWED = "trace.followed"
DEBUG_STOP = "debug.stop"

SENDS_AT_ONCE = 32
"""Sends one event loop runs at the same time. Each holds one of channels_redis's pooled Redis
connections while it runs, and redis-py's pool refuses more than 100 (MaxConnectionsError: the
message is lost), so the rest of a burst waits its turn, in the order it was sent."""
CHANNEL_LOOPS_KEPT = 1000
"""In-memory channels whose loop is remembered, the most recently seen (pages come and go)."""

_SAFE_UID = re.compile(r"^[A-Za-z0-9-]{1,64}$")


def workspace_group(workspace_id: int) -> str:
    return f"workspace-{int(workspace_id)}"


def pod_group(workspace_id: int, uid: str) -> str:
    """The pod's group; a uid with other characters than letters, digits and '-' is hashed."""
    if not _SAFE_UID.match(uid):
        uid = hashlib.sha256(uid.encode()).hexdigest()[:40]
    return f"pod-{int(workspace_id)}-{uid}"


def debugger_group(workspace_id: int) -> str:
    """The pages that watch every pod of the workspace as it is scheduled (the debugger page)."""
    return f"debugger-{int(workspace_id)}"


# ----------------------------------------------------------------------------------------------
# What the scheduler service sends


def send_status(workspace_id: int, status: dict[str, Any]) -> None:
    send(workspace_group(workspace_id), {"type": QUEUE_STATUS, "status": status})


def send_node_usage(workspace_id: int, nodes: list[dict[str, Any]]) -> None:
    send(workspace_group(workspace_id), {"type": NODE_USAGE, "nodes": nodes})


def send_attempts(workspace_id: int, attempts: list[dict[str, Any]]) -> None:
    send(workspace_group(workspace_id), {"type": ATTEMPTS_RECORDED, "attempts": attempts})


def send_trace(workspace_id: int, attempt: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """An attempt's extension points, to the page of its pod."""
    message = {
        "type": POD_TRACE,
        "pod": attempt["pod"],
        "uid": attempt["uid"],
        "attemptId": attempt["id"],
        "attempt": attempt,
        "events": events,
    }
    send(pod_group(workspace_id, attempt["uid"]), message)


def send_stop(workspace_id: int, uids: list[str], stop: dict[str, Any] | None, note: str) -> None:
    """The scheduler stopped at a breakpoint (``stop``) or went on (None): to the workspace's
    pages and to the pages of the pods in ``uids`` (the stopped pod, the one before)."""
    message = {"type": DEBUG_STOP, "stop": stop, "note": note}
    send(workspace_group(workspace_id), message)
    for uid in uids:
        send(pod_group(workspace_id, uid), message)


def send_trace_events(
    workspace_id: int,
    pod: str,
    uid: str,
    attempt: int | None,
    events: list[dict[str, Any]],
    *,
    to_pod: bool,
    to_debugger: bool,
    seq: int = 0,
) -> None:
    """A pod's latest trace events, to its page (``to_pod``) and the debugger page; ``seq``
    orders them after the ones sent before (a page adds them up in that order)."""
    message = {
        "type": TRACE_EVENTS,
        "pod": pod,
        "uid": uid,
        "attempt": attempt,
        "events": events,
        "seq": seq,
    }
    if to_pod:
        send(pod_group(workspace_id, uid), message)
    if to_debugger:
        send(debugger_group(workspace_id), message)


def send_followed(channel: str) -> Future | None:
    """The service follows the page of ``channel`` (its watch was read); the send's future."""
    return send_to_channel(channel, {"type": TRACE_FOLLOWED})


def send_service_state(workspace_id: int) -> None:
    """The scheduler's state changed; send it once the change is written to the database."""
    send(workspace_group(workspace_id), {"type": SERVICE_STATE})


# ----------------------------------------------------------------------------------------------
# The choke point


def send(group: str, message: dict[str, Any]) -> Future | None:
    """Queues ``message`` for ``group``; returns the send's future (None without a layer)."""
    layer = get_channel_layer()
    if layer is None:
        return None
    loop = _consumers_loop(layer, group) or _sender.loop()
    return _reported(_run_on(loop, layer.group_send(group, message)), group, message)


def _reported(send: Future, to: str, message: dict[str, Any]) -> Future:
    """The send, whose failure is logged: nobody waits for it, and a message that never left
    (a channel over capacity refuses one: ChannelFull) would otherwise vanish without a word."""

    def report(done: Future) -> None:
        if not done.cancelled() and done.exception() is not None:
            logger.warning("%s to %s was not sent: %r", message["type"], to, done.exception())

    send.add_done_callback(report)
    return send


def send_to_channel(channel: str, message: dict[str, Any]) -> Future | None:
    """Queues ``message`` for one page's ``channel``; returns the send's future."""
    layer = get_channel_layer()
    if layer is None:
        return None
    loop = _loop_of(layer, [channel]) or _sender.loop()
    return _reported(_run_on(loop, layer.send(channel, message)), channel, message)


def _run_on(loop: asyncio.AbstractEventLoop, sending: Any) -> Future:
    """Runs the ``sending`` coroutine on ``loop`` once one of its SENDS_AT_ONCE turns is free."""
    return asyncio.run_coroutine_threadsafe(_in_turn(sending), loop)


async def _in_turn(sending: Any) -> Any:
    async with _sender.turns(asyncio.get_running_loop()):
        return await sending


def _consumers_loop(layer: Any, group: str) -> asyncio.AbstractEventLoop | None:
    """The running loop an in-memory layer's consumers of ``group`` wait on, if any."""
    if not isinstance(layer, InMemoryChannelLayer):
        return None
    return _loop_of(layer, list(layer.groups.get(group, {})))


def _loop_of(layer: Any, channels: list[str]) -> asyncio.AbstractEventLoop | None:
    """The running loop an in-memory layer's consumer of one of ``channels`` waits on, if any.

    The layer drops a channel's queue whenever it is empty, and the next one knows its loop
    only once the consumer awaits it: between two messages of a burst there is often no queue
    to ask. The loop a channel was last seen on is then used again, so that consecutive
    messages all go through one loop and arrive in the order they were sent (a live trace's
    messages each add to the previous ones); the sender's loop would put them from another
    thread, out of order.
    """
    if not isinstance(layer, InMemoryChannelLayer):
        return None
    seen = _sender.channel_loops
    for channel in channels:
        queue = layer.channels.get(channel)
        loop = getattr(queue, "_loop", None) or seen.get(channel)
        if loop is not None and loop.is_running():
            seen[channel] = loop
            while len(seen) > CHANNEL_LOOPS_KEPT:
                seen.pop(next(iter(seen)))
            return loop
    return None


class _Sender:
    """One daemon thread running the event loop that sends for every synchronous caller."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.channel_loops: dict[str, asyncio.AbstractEventLoop] = {}
        """The loop each in-memory channel was last seen waiting on (see _consumers_loop)."""
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def turns(self, loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
        """The loop's turns to send (a semaphore belongs to one loop); called on that loop."""
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = asyncio.Semaphore(SENDS_AT_ONCE)
        return turns

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                self._loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=self._loop.run_forever, name="broadcast", daemon=True
                )
                thread.start()
            return self._loop


_sender = _Sender()
