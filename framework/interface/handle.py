"""What plugins get from the framework: the Handle and the small interfaces it hands out."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.cluster.interface import Cluster
    from framework.interface.cycle_state import CycleState
    from framework.interface.node_info import NodeInfo, PodInfo
    from framework.interface.status import Status
    from framework.interface.types import NominatingInfo
    from framework.metrics import Metrics
    from framework.util.clock import Clock


class NodeInfoLister(Protocol):
    """Read access to the NodeInfos of the cycle's snapshot."""

    def list(self) -> list[NodeInfo]: ...

    def get(self, node_name: str) -> NodeInfo:
        """Raises KeyError for an unknown node."""
        ...

    def have_pods_with_affinity_list(self) -> list[NodeInfo]: ...

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]: ...


class StorageInfoLister(Protocol):
    def is_pvc_used_by_pods(self, key: str) -> bool: ...


class SharedLister(Protocol):
    """The snapshot a cycle works on (taken once per cycle, never changed during it)."""

    def node_infos(self) -> NodeInfoLister: ...

    def storage_infos(self) -> StorageInfoLister: ...


class WaitingPod(Protocol):
    """A pod held at Permit until every pending plugin allows it, one rejects it, or time is up."""

    @property
    def pod(self) -> Pod: ...

    def get_pending_plugins(self) -> list[str]: ...

    def allow(self, plugin_name: str) -> None: ...

    def reject(self, plugin_name: str, msg: str) -> bool: ...

    def preempt(self, plugin_name: str, msg: str) -> bool: ...


class PodNominator(Protocol):
    """Pods nominated to nodes by preemption, considered when filtering other pods."""

    def add_nominated_pod(
        self, pod_info: PodInfo, nominating_info: NominatingInfo | None
    ) -> None: ...

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None: ...

    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None: ...

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...


class PodActivator(Protocol):
    def activate(self, pods: dict[str, Pod]) -> None: ...


class Parallelizer(Protocol):
    """Runs ``do_work_piece(i)`` for i in range(pieces); stops at the first non-None result."""

    parallelism: int

    def until(
        self, pieces: int, do_work_piece: Callable[[int], Any], operation: str = ""
    ) -> Any: ...


class EventRecorder(Protocol):
    """Records Kubernetes Events (Scheduled, FailedScheduling, Preempted...)."""

    def eventf(
        self,
        regarding: Any,
        related: Any,
        event_type: str,
        reason: str,
        action: str,
        note: str,
    ) -> None: ...


class Handle(Protocol):
    """Everything a plugin may use besides its arguments. The Framework implements it."""

    clock: Clock
    """The scheduler's clock (fake in simulations): never read the wall clock directly."""
    rng: random.Random
    """The scheduler's seeded random source."""
    per_node: bool
    """Whether plugins are called node by node this cycle, even where they have batch forms."""
    metrics: Metrics
    """Where the scheduler's counters go (``scheduler_...``, by upstream's names and labels)."""

    def activate(self, pods: dict[str, Pod]) -> None:
        """Moves these pods (by "namespace/name") to the active queue."""
        ...

    def snapshot_shared_lister(self) -> SharedLister | None: ...

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None: ...

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def cluster(self) -> Cluster | None:
        """The cluster: objects plugins read (PVCs, Services...) and where binding writes go."""
        ...

    def event_recorder(self) -> EventRecorder | None: ...

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None: ...

    def run_filter_plugins_with_nominated_pods_on_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Per node, what ``run_filter_plugins_with_nominated_pods`` returns for it."""
        ...

    def pre_filter_extensions_run(self, state: CycleState) -> bool:
        """Whether adding or removing a pod runs some PreFilter extension in this cycle."""
        ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None: ...

    def run_pre_filter_extension_remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None: ...

    def extenders(self) -> Iterable[Any]: ...

    def parallelizer(self) -> Parallelizer: ...

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...

    def profile_name(self) -> str: ...
