"""NodePorts: a pod's host ports must be free on the node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.api.pod import ContainerPort, Pod
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import HostPortInfo, get_host_ports
from framework.interface.plugins import EnqueueExtensions, FilterPlugin, PreFilterPlugin, SignPlugin
from framework.interface.signers import HOST_PORTS_SIGNER_NAME, host_ports_signer
from framework.interface.status import Code, Status
from framework.interface.types import PreFilterResult, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_PORTS
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class _PreFilterState:
    """The pod's host ports, computed once per cycle."""

    __slots__ = ("ports",)

    def __init__(self, ports: list[ContainerPort]) -> None:
        self.ports = ports

    def clone(self) -> _PreFilterState:
        # Adding or removing other pods never changes the pod's own ports.
        return self


class NodePorts(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """Rejects nodes where a requested (host IP, protocol, host port) is already taken."""

    name = names.NODE_PORTS

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the containers' host ports alone."""
        return [SignFragment(HOST_PORTS_SIGNER_NAME, host_ports_signer(pod))], None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ports = get_host_ports(pod)
        if not ports:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(ports))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            wanted: _PreFilterState = state.read(PRE_FILTER_STATE_KEY)  # type: ignore[assignment]
        except NotFoundError as err:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: {err}')
        if not fits_ports(wanted.ports, node_info.used_ports):
            return Status(Code.UNSCHEDULABLE, ERR_REASON)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Only a new node can help. Without hints, a Node/Add can be missed by the queue's
        # pre-check, so label and taint updates are registered too (kubernetes#109437).
        node_actions = ActionType.ADD
        if not self.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            # Container ports are immutable, so pod updates never free a port.
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
        ]

    def is_schedulable_after_pod_deleted(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue only when the deleted pod held (or was nominated with) a port this pod wants."""
        deleted_pod, _ = as_typed(Pod, old_obj, None)
        if not deleted_pod.spec.node_name and not deleted_pod.status.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        released = get_host_ports(deleted_pod)
        if not released:
            return QueueingHint.QUEUE_SKIP
        ports_in_use = HostPortInfo()
        for port in released:
            ports_in_use.add(port.host_ip, port.protocol, port.host_port)
        if fits_ports(get_host_ports(pod), ports_in_use):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """True when none of the pod's host ports conflicts with the ports used on the node."""
    return fits_ports(get_host_ports(pod), node_info.used_ports)


def fits_ports(wanted: list[ContainerPort], ports_in_use: HostPortInfo) -> bool:
    return not any(
        ports_in_use.check_conflict(port.host_ip, port.protocol, port.host_port) for port in wanted
    )
