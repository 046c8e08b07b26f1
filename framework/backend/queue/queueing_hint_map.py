"""Which plugin wants to hear about which cluster event, and the hint it gives about a pod.

Built once per profile from the plugins' EnqueueExtensions (upstream's buildQueueingHintMap
in scheduler.go). The queue consults it to decide whether an event may make a pod that a
plugin rejected schedulable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.interface.events import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)

if TYPE_CHECKING:
    from framework.interface.plugins import EnqueueExtensions


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
