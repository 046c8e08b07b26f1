"""Kubernetes Events the scheduler records (Scheduled, FailedScheduling, Preempted...)."""

from __future__ import annotations

from typing import Any

from framework.util.clock import Clock


class EventRecorder:
    """Writes events to the cluster; plugins reach it through the Handle (upstream's recorder)."""

    def __init__(self, cluster: Any, clock: Clock) -> None:
        self._cluster = cluster
        self._clock = clock

    def eventf(
        self, regarding: Any, related: Any, event_type: str, reason: str, action: str, note: str
    ) -> None:
        event = {
            "regarding": {
                "kind": regarding.kind,
                "namespace": regarding.namespace,
                "name": regarding.name,
            },
            "type": event_type,
            "reason": reason,
            "action": action,
            "note": note,
            "time": self._clock.now(),
        }
        if related is not None:
            event["related"] = {
                "kind": related.kind,
                "namespace": related.namespace,
                "name": related.name,
            }
        if self._cluster is not None:
            self._cluster.record_event(event)
