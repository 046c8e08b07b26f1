"""One small abstract class per extension point.

A plugin subclasses every extension point it implements and sets ``name``. Methods receive no
context object (Python has no ``context.Context``); returning ``None`` means Success.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from framework.api.pod import Pod
    from framework.interface.cycle_state import CycleState
    from framework.interface.events import ClusterEventWithHint
    from framework.interface.node_info import NodeInfo, PodInfo
    from framework.interface.placement import (
        GeneratePlacementsResult,
        Placement,
        PlacementScore,
        PodGroupAssignments,
    )
    from framework.interface.pod_group_info import PodGroupInfo
    from framework.interface.status import Status
    from framework.interface.types import (
        NodeScore,
        NodeToStatus,
        PostFilterResult,
        PreBindPreFlightResult,
        PreFilterResult,
        QueuedPodInfo,
        SignFragment,
    )


class Plugin(ABC):  # noqa: B024 - a marker base: the extension points below carry the methods
    """The parent of every plugin. ``name`` is how profiles and messages refer to it."""

    name: str = ""


class PreEnqueuePlugin(Plugin):
    """Called before a pod enters the active queue; any non-success keeps it gated."""

    @abstractmethod
    def pre_enqueue(self, pod: Pod) -> Status | None: ...


class QueueSortPlugin(Plugin):
    """Orders the active queue. Exactly one per profile, identical across profiles."""

    @abstractmethod
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


class EnqueueExtensions(ABC):
    """Events that may make a pod this plugin rejected schedulable again, with optional hints.

    Only PreEnqueue, PreFilter, Filter, Reserve and Permit plugins need it; a plugin of those kinds
    that does not implement it is requeued on every event, as upstream does.
    """

    @abstractmethod
    def events_to_register(self) -> list[ClusterEventWithHint]: ...


class PreFilterExtensions(ABC):
    """Incremental updates of PreFilter state when pods are added or removed in a dry run."""

    @abstractmethod
    def add_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_add: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None: ...

    @abstractmethod
    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None: ...


class PreFilterPlugin(Plugin):
    """Called once per cycle before Filter. May narrow the nodes, reject the pod, or Skip.

    Skip also skips this plugin's Filter. Unschedulable lets preemption run; the other failures
    abort the cycle.
    """

    @abstractmethod
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    """Decides whether the pod can run on one node: Success, Unschedulable(...) or Error."""

    @abstractmethod
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...


class BatchFilterPlugin(FilterPlugin):
    """A Filter plugin that can also judge many nodes in one call (the batch form).

    The runtime uses ``filter_nodes`` when it filters many nodes at once; per node, it must
    return exactly what ``filter`` returns for that node, each failure its own Status.
    """

    @abstractmethod
    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]: ...


class PostFilterPlugin(Plugin):
    """Called when no node fits (e.g. preemption). Success means it made the pod schedulable."""

    @abstractmethod
    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]: ...


class PreScorePlugin(Plugin):
    """Called once with the feasible nodes before Score; Skip skips this plugin's Score."""

    @abstractmethod
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None: ...


class ScoreExtensions(ABC):
    """Rewrites a plugin's raw scores into [0, 100] in place."""

    @abstractmethod
    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None: ...


class BatchScoreExtensions(ScoreExtensions):
    """NormalizeScore on plain scores in node order (the batch form), for plugins that do not
    need the node names. The runtime prefers it; the result must equal ``normalize_score``'s."""

    @abstractmethod
    def normalize_score_values(
        self, state: CycleState, pod: Pod, scores: list[int]
    ) -> Status | None: ...


class ScorePlugin(Plugin):
    """Ranks one feasible node; after normalization every score must lie in [0, 100]."""

    @abstractmethod
    def score(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[int, Status | None]: ...

    def score_extensions(self) -> ScoreExtensions | None:
        return None


class BatchScorePlugin(ScorePlugin):
    """A Score plugin that can also score many nodes in one call (the batch form).

    ``score_nodes`` returns the raw scores in node order, equal to ``score`` node by node, or a
    failed status (what ``score`` returns for the first node it fails on).
    """

    @abstractmethod
    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]: ...


class ReservePlugin(Plugin):
    """Reserve claims resources for the chosen node; Unreserve must undo it and never fail."""

    @abstractmethod
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    @abstractmethod
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


class PermitPlugin(Plugin):
    """Approves, rejects or delays binding; Wait comes with a timeout in seconds (max 15 min)."""

    @abstractmethod
    def permit(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[Status | None, float]: ...


class PreBindPlugin(Plugin):
    """Work before binding (e.g. provisioning volumes). The pre-flight says whether there is any."""

    @abstractmethod
    def pre_bind_pre_flight(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[PreBindPreFlightResult | None, Status | None]: ...

    @abstractmethod
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


class BindPlugin(Plugin):
    """Binds the pod to the node. Skip passes the job to the next bind plugin."""

    @abstractmethod
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


class PostBindPlugin(Plugin):
    """Informational: called after a successful bind."""

    @abstractmethod
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


class SignPlugin(Plugin):
    """A PreFilter, Filter, PreScore or Score plugin that can say what of a pod it reads.

    Used by opportunistic batching (KEP-5598): the fragments of every signing plugin make the
    pod's signature, and two pods with equal signatures must be judged and scored alike on the
    same nodes. If any such plugin of a profile does not subclass this, no pod of the profile is
    signed. A status other than success (Unschedulable: the plugin refuses, e.g. the pod's result
    depends on other pods; Error: something unexpected) leaves the pod unsigned, never failed.
    """

    @abstractmethod
    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]: ...


class PlacementGeneratePlugin(Plugin):
    """Splits a parent placement (every node, at first) into candidate placements for a pod
    group; a profile has at most one (TopologyAwareWorkloadScheduling)."""

    @abstractmethod
    def generate_placements(
        self, state: CycleState, pod_group: PodGroupInfo, parent_placement: Placement
    ) -> tuple[GeneratePlacementsResult | None, Status | None]: ...


class PlacementScoreExtensions(ABC):
    """Rewrites one plugin's placement scores in place, into [0, 100]."""

    @abstractmethod
    def normalize_placement_score(
        self, state: CycleState, pod_group: PodGroupInfo, scores: list[PlacementScore]
    ) -> Status | None: ...


class PlacementScorePlugin(Plugin):
    """Ranks a placement where the pod group fits, from the members' proposed nodes there."""

    @abstractmethod
    def score_placement(
        self, state: CycleState, pod_group: PodGroupInfo, placement: PodGroupAssignments
    ) -> tuple[int, Status | None]: ...

    def placement_score_extensions(self) -> PlacementScoreExtensions | None:
        return None


EXTENSION_POINT_CLASSES: dict[str, type[Plugin]] = {
    "preEnqueue": PreEnqueuePlugin,
    "queueSort": QueueSortPlugin,
    "preFilter": PreFilterPlugin,
    "filter": FilterPlugin,
    "postFilter": PostFilterPlugin,
    "preScore": PreScorePlugin,
    "score": ScorePlugin,
    "reserve": ReservePlugin,
    "permit": PermitPlugin,
    "preBind": PreBindPlugin,
    "bind": BindPlugin,
    "postBind": PostBindPlugin,
    "placementGenerate": PlacementGeneratePlugin,
    "placementScore": PlacementScorePlugin,
}
"""Extension point (configuration key) -> the class a plugin must subclass to serve it."""
