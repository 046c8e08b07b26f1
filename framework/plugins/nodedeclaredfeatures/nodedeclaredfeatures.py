"""NodeDeclaredFeatures: a pod needing a node feature fits only nodes that declare it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.plugins import EnqueueExtensions, FilterPlugin, PreFilterPlugin, SignPlugin
from framework.interface.signers import FEATURES_SIGNER_NAME
from framework.interface.status import Code, Status
from framework.interface.types import PreFilterResult, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed
from framework.plugins.nodedeclaredfeatures.features import (
    DEFAULT_FRAMEWORK,
    KUBE_SCHEDULER_VERSION,
    FeatureFramework,
    Version,
)

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_DECLARED_FEATURES
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"


class _PreFilterState:
    """The features the pod requires, inferred once per cycle."""

    __slots__ = ("reqs",)

    def __init__(self, reqs: frozenset[str]) -> None:
        self.reqs = reqs

    def clone(self) -> _PreFilterState:
        return self


class NodeDeclaredFeatures(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """Rejects nodes whose ``status.declaredFeatures`` lack a feature the pod requires.

    Does nothing when the NodeDeclaredFeatures feature is off.
    """

    name = names.NODE_DECLARED_FEATURES

    def __init__(
        self,
        args: Any,
        handle: Any,
        features: Features,
        *,
        ndf_framework: FeatureFramework = DEFAULT_FRAMEWORK,
        version: Version | None = KUBE_SCHEDULER_VERSION,
    ) -> None:
        self.enabled = features.enable_node_declared_features
        self.ndf_framework = ndf_framework
        self.version = version

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the node features the pod requires."""
        try:
            reqs = self.ndf_framework.infer_for_pod_scheduling(pod, self.version)
        except ValueError as err:
            return None, Status.as_status(err)
        return [SignFragment(FEATURES_SIGNER_NAME, sorted(reqs))], None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.SKIP)
        try:
            reqs = self.ndf_framework.infer_for_pod_scheduling(pod, self.version)
        except ValueError as err:
            return None, Status.as_status(err)
        if not reqs:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(reqs))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        try:
            pre_filter: _PreFilterState = state.read(PRE_FILTER_STATE_KEY)  # type: ignore[assignment]
        except NotFoundError as err:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: {err}')
        if not pre_filter.reqs <= node_info.declared_features:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSATISFIED_REQUIREMENTS)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enabled:
            return []
        return [
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE
                ),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE),
                self.is_schedulable_after_pod_update,
            ),
        ]

    def is_schedulable_after_pod_update(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when the rejected pod's own update changed the features it requires."""
        old_pod, new_pod = as_typed(Pod, old_obj, new_obj)
        if pod.uid != new_pod.uid:
            return QueueingHint.QUEUE_SKIP
        old_reqs = self.ndf_framework.infer_for_pod_scheduling(old_pod, self.version)
        new_reqs = self.ndf_framework.infer_for_pod_scheduling(new_pod, self.version)
        if new_reqs == old_reqs:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue on a new node, or when a node's declared features changed."""
        old_node, new_node = as_typed(Node, old_obj, new_obj)
        if old_node is not None and (
            old_node.status.declared_features == new_node.status.declared_features
        ):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
