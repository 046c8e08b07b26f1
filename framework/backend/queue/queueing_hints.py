"""Queueing hints: which plugin wants to hear about which cluster event, and what it says.

The hint map is built once per profile from the plugins' EnqueueExtensions (upstream's
buildQueueingHintMap in scheduler.go). ``QueueingHints`` consults it to decide whether an
event may make a pod schedulable that some plugin rejected, and how urgently to retry it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from framework.api.pod import Pod
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from framework.interface.types import QueuedPodInfo

if TYPE_CHECKING:
    from framework.interface.plugins import EnqueueExtensions

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class QueueingHintFunction:
    """A plugin's hint function for one registered event."""

    plugin_name: str
    queueing_hint_fn: QueueingHintFn


QueueingHintMap = dict[ClusterEvent, list[QueueingHintFunction]]
"""Registered event -> the hint functions of the plugins that registered it, in order."""

QueueingHintMapPerProfile = dict[str, QueueingHintMap]
"""Profile (scheduler name) -> its queueing hint map."""

_NODE_TAINT_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)


def default_queueing_hint_fn(pod: Any, old_obj: Any, new_obj: Any) -> QueueingHint:
    """The hint of a plugin that registered an event without a function: always Queue."""
    return QueueingHint.QUEUE


def build_queueing_hint_map(enqueue_extensions: Iterable[EnqueueExtensions]) -> QueueingHintMap:
    """The hint map of one profile, from its plugins' registered events.

    A plugin that registers Node/Add but not Node/UpdateNodeTaint also gets Node/UpdateNodeTaint
    with the default hint: a node added while tainted (e.g. not ready) only becomes usable
    through a later taint update, which that plugin would otherwise never hear about.
    """
    hint_map: QueueingHintMap = {}
    for extension in enqueue_extensions:
        name = extension.name  # type: ignore[attr-defined]
        events = extension.events_to_register()
        if not events:
            continue
        registers_node_add = registers_node_taint = False
        for registered in events:
            event = registered.event
            if event.resource == EventResource.NODE:
                registers_node_add |= bool(event.action_type & ActionType.ADD)
                registers_node_taint |= bool(event.action_type & ActionType.UPDATE_NODE_TAINT)
            hint_fn = registered.queueing_hint_fn or default_queueing_hint_fn
            hint_map.setdefault(event, []).append(QueueingHintFunction(name, hint_fn))
        if registers_node_add and not registers_node_taint:
            hint_map.setdefault(_NODE_TAINT_UPDATE, []).append(
                QueueingHintFunction(name, default_queueing_hint_fn)
            )
    return hint_map


def build_queueing_hint_map_per_profile(frameworks: Iterable[Any]) -> QueueingHintMapPerProfile:
    """Every profile's hint map, keyed by profile name (each item is a Framework)."""
    return {
        framework.profile_name(): build_queueing_hint_map(framework.enqueue_extensions)
        for framework in frameworks
    }


def build_plugin_to_events_map(
    hint_maps: QueueingHintMapPerProfile,
) -> dict[str, list[ClusterEvent]]:
    """Plugin name -> every event it registered, across profiles (to re-check gated pods)."""
    plugin_events: dict[str, list[ClusterEvent]] = {}
    for hint_map in hint_maps.values():
        for event, hint_fns in hint_map.items():
            for hint_fn in hint_fns:
                plugin_events.setdefault(hint_fn.plugin_name, []).append(event)
    return plugin_events


class QueueingStrategy(IntEnum):
    """Where a pod goes after an event: nowhere, the backoff queue (if due), or straight in."""

    QUEUE_SKIP = 0
    QUEUE_AFTER_BACKOFF = 1
    QUEUE_IMMEDIATELY = 2


class QueueingHints:
    """The hint maps of every profile, with the lookups the queue makes for each event cached."""

    __slots__ = ("_hints_by_event", "_interesting_events", "hint_map", "plugin_to_events")

    def __init__(self, hint_map: QueueingHintMapPerProfile) -> None:
        self.hint_map = hint_map
        self.plugin_to_events = build_plugin_to_events_map(hint_map)
        self._hints_by_event: dict[tuple[str, ClusterEvent], list[QueueingHintFunction]] = {}
        self._interesting_events: dict[ClusterEvent, bool] = {}

    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        """True if some plugin registered an event covering this one (wildcards always are)."""
        if event.is_wildcard():
            return True
        interesting = self._interesting_events.get(event)
        if interesting is None:
            interesting = any(
                registered.matches(event)
                for hint_map in self.hint_map.values()
                for registered in hint_map
            )
            self._interesting_events[event] = interesting
        return interesting

    def is_pod_worth_requeuing(
        self, pod_info: QueuedPodInfo, event: ClusterEvent, old_obj: Any, new_obj: Any
    ) -> QueueingStrategy:
        """Asks the hints of the plugins that rejected the pod whether ``event`` may help it.

        Queue from a plugin that said Pending means retry at once; from a plugin that said
        Unschedulable, retry after the backoff. A hint that raises counts as Queue, so a
        buggy hint never strands a pod.
        """
        unschedulable, pending = pod_info.unschedulable_plugins, pod_info.pending_plugins
        if not unschedulable and not pending:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        if event.is_wildcard():
            # A wildcard carrying a pod (ForceActivate) is meant for that pod only.
            if new_obj is not None and (
                not isinstance(new_obj, Pod) or new_obj.uid != pod_info.pod.uid
            ):
                return QueueingStrategy.QUEUE_SKIP
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        profile = pod_info.pod.spec.scheduler_name
        if profile not in self.hint_map:
            logger.error("No QueueingHintMap is registered for this profile: %s", profile)
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        strategy = QueueingStrategy.QUEUE_SKIP
        for hint_fn in self._hints_matching(profile, event):
            plugin = hint_fn.plugin_name
            if plugin not in unschedulable and plugin not in pending:
                continue
            hint = _run_hint(hint_fn, pod_info.pod, event, old_obj, new_obj)
            if hint == QueueingHint.QUEUE_SKIP:
                continue
            if plugin in pending:
                return QueueingStrategy.QUEUE_IMMEDIATELY
            if not pending:
                return QueueingStrategy.QUEUE_AFTER_BACKOFF
            strategy = QueueingStrategy.QUEUE_AFTER_BACKOFF
        return strategy

    def _hints_matching(self, profile: str, event: ClusterEvent) -> list[QueueingHintFunction]:
        """The profile's hint functions whose registered event covers ``event``, in map order."""
        key = (profile, event)
        hints = self._hints_by_event.get(key)
        if hints is None:
            hints = [
                hint_fn
                for registered, hint_fns in self.hint_map[profile].items()
                if registered.matches(event)
                for hint_fn in hint_fns
            ]
            self._hints_by_event[key] = hints
        return hints


def _run_hint(
    hint_fn: QueueingHintFunction, pod: Pod, event: ClusterEvent, old_obj: Any, new_obj: Any
) -> QueueingHint:
    try:
        return hint_fn.queueing_hint_fn(pod, old_obj, new_obj)
    except Exception:
        logger.exception(
            "QueueingHintFn returns error: event=%s plugin=%s pod=%s",
            event.label(),
            hint_fn.plugin_name,
            pod.key,
        )
        return QueueingHint.QUEUE
