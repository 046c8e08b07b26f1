"""The service's view of its queue, waiting pods and nodes, as JSON for SchedulerStatus.

``queue`` maps each place a pending pod can be to a list of entries; every entry has ``pod``
("namespace/name") and ``uid``, and then what matters in that place:

- ``active`` (pop order): ``priority``, ``attempts``
- ``backoff`` (earliest end first): ``priority``, ``attempts``, ``backoffSeconds`` (time left)
- ``unschedulable``: ``plugins`` (the rejecting plugins), ``message`` (the last failure),
  ``leftoverAt`` (when its stay ends, ``podMaxInUnschedulablePodsDuration`` after it
  arrived, in the service's clock's seconds: the next leftover flush, every 30 seconds, then
  moves it to be tried again; a time, not a time left, so an idle queue's document does not
  change from one publication to the next)
- ``gated``: ``plugins`` (the PreEnqueue plugin that gates it), ``message``
- ``inFlight`` (earliest popped first): nothing more
- ``waiting`` (at Permit): ``node``, ``pendingPlugins``, ``secondsLeft`` (plugin -> seconds)
- ``binding`` (Bind sent to a binding task): ``node``, ``seconds`` (since it was sent)

``waiting_pods`` repeats the ``waiting`` list (the permit console reads it), and
``queue_sizes`` is the history ``[[time, active, backoff, unschedulable, gated], ...]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.interface.types import QueuedPodInfo

QUEUE_SIZES_KEPT = 360
"""Samples of the queue sizes kept for the chart (an hour at one sample per 10 seconds)."""


def queue_document(
    scheduler: Any,
    now: float,
    last_failure: Mapping[str, tuple[str, list[str]]],
    bindings: Mapping[str, tuple[Any, str, float]],
) -> dict[str, list[dict[str, Any]]]:
    """Every pending pod of the scheduler, grouped by where it is.

    ``bindings`` maps a uid to (pod, node, time sent) for pods whose Bind is out.
    """
    listing = scheduler.queue.listing()
    return {
        "active": [_queued(p) for p in listing.active],
        "backoff": [_backoff(p, now) for p in listing.backoff],
        "unschedulable": [
            _rejected(p, last_failure, _stay_end(scheduler.queue, p)) for p in listing.unschedulable
        ],
        "gated": [_gated(p, last_failure) for p in listing.gated],
        "inFlight": [_entry(p.pod) for p in listing.in_flight],
        "waiting": waiting_pods(scheduler, now),
        "binding": [
            {**_entry(pod), "node": node, "seconds": round(now - sent, 1)}
            for pod, node, sent in bindings.values()
        ],
    }


def waiting_pods(scheduler: Any, now: float) -> list[dict[str, Any]]:
    """Pods waiting at Permit, with the plugins still to allow them and their time left."""
    framework = next(iter(scheduler.profiles.values()), None)
    if framework is None:
        return []
    entries = []
    for waiting in framework.waiting_pods:
        pending = waiting.get_pending_plugins()
        entries.append(
            {
                **_entry(waiting.pod),
                "node": waiting.pod.spec.node_name,
                "pendingPlugins": pending,
                "secondsLeft": {
                    name: round(max(0.0, waiting.deadlines[name] - now), 1)
                    for name in pending
                    if name in waiting.deadlines
                },
            }
        )
    return entries


def sizes_sample(queue: Mapping[str, list[Any]], now: float) -> list[float]:
    return [
        round(now, 1),
        len(queue["active"]),
        len(queue["backoff"]),
        len(queue["unschedulable"]),
        len(queue["gated"]),
    ]


class NodeUsage:
    """Requested and allocatable CPU, memory and pods per node, as the scheduler's cache sees
    them (assumed pods included), for a service that asks twice a second: a node's entry is
    built again only when its NodeInfo changed (its generation moved), and the same list
    comes back while the snapshot has not changed at all. At 5,000 nodes, building every
    entry each time was a fifth of a busy production scheduler process."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, dict[str, Any]]] = {}
        self._generation: tuple[int, int] | None = None
        self._usage: list[dict[str, Any]] = []

    def of(self, scheduler: Any) -> list[dict[str, Any]]:
        snapshot = scheduler.snapshot
        scheduler.cache.update_snapshot(snapshot)
        generation = (snapshot.generation, len(snapshot.node_info_list))
        if generation == self._generation:
            return self._usage
        entries: dict[str, tuple[int, dict[str, Any]]] = {}
        for info in snapshot.list():
            known = self._entries.get(info.node_name)
            if known is None or known[0] != info.generation:
                known = (info.generation, _usage_of(info))
            entries[info.node_name] = known
        self._entries, self._generation = entries, generation
        self._usage = [entry for _, entry in entries.values()]
        return self._usage


def _usage_of(info: Any) -> dict[str, Any]:
    requested, allocatable = info.requested, info.allocatable
    return {
        "name": info.node_name,
        "cpu": _use(requested.milli_cpu, allocatable.milli_cpu),
        "memory": _use(requested.memory, allocatable.memory),
        "pods": _use(len(info.pods), allocatable.allowed_pod_number),
    }


def _use(requested: int, allocatable: int) -> dict[str, int]:
    return {"requested": requested, "allocatable": allocatable}


def _entry(pod: Any) -> dict[str, Any]:
    return {"pod": pod.key, "uid": pod.uid}


def _queued(pod_info: QueuedPodInfo) -> dict[str, Any]:
    pod = pod_info.pod
    return {**_entry(pod), "priority": pod.spec.priority, "attempts": pod_info.attempts}


def _backoff(pod_info: QueuedPodInfo, now: float) -> dict[str, Any]:
    left = max(0.0, (pod_info.backoff_expiration or now) - now)
    return {**_queued(pod_info), "backoffSeconds": round(left, 1)}


def _rejected(
    pod_info: QueuedPodInfo,
    last_failure: Mapping[str, tuple[str, list[str]]],
    stay_end: float,
) -> dict[str, Any]:
    message, _ = last_failure.get(pod_info.pod.uid, ("", []))
    plugins = sorted(pod_info.unschedulable_plugins | pod_info.pending_plugins)
    return {
        **_queued(pod_info),
        "plugins": plugins,
        "message": message,
        "leftoverAt": round(stay_end, 1),
    }


def _stay_end(queue: Any, pod_info: QueuedPodInfo) -> float:
    """When the pod will have stayed unschedulable as long as the queue lets it."""
    return pod_info.timestamp + queue.pod_max_in_unschedulable_pods_seconds


def _gated(
    pod_info: QueuedPodInfo, last_failure: Mapping[str, tuple[str, list[str]]]
) -> dict[str, Any]:
    message, _ = last_failure.get(pod_info.pod.uid, ("", []))
    return {**_queued(pod_info), "plugins": [pod_info.gating_plugin], "message": message}
