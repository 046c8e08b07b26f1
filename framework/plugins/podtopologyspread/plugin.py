"""PodTopologySpread: spread pods evenly over topology domains (zones, nodes, ...).

Hard (DoNotSchedule) constraints filter nodes, soft (ScheduleAnyway) ones score them. A pod
without constraints gets the profile's default constraints, selecting what its Services and
controller select; with ``defaultingType: System`` these are hostname (maxSkew 3) and zone
(maxSkew 5), both ScheduleAnyway.
"""

from __future__ import annotations

from typing import Any

from framework.api.fields import Fields
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod import TopologySpreadConstraint as V1TopologySpreadConstraint
from framework.config.encode import to_json_value
from framework.config.types import SYSTEM_DEFAULTING, PodTopologySpreadArgs
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.plugins import EnqueueExtensions, SignPlugin
from framework.interface.status import Code, Status
from framework.interface.types import SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed, go_type_name
from framework.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    NODE_INCLUSION_POLICY_HONOR,
    SCHEDULE_ANYWAY,
    TopologySpreadConstraint,
    node_labels_match_spread_constraints,
    pod_labels_match_spread_constraints,
)
from framework.plugins.podtopologyspread.filtering import SpreadFiltering
from framework.plugins.podtopologyspread.scoring import SpreadScoring

SYSTEM_DEFAULT_CONSTRAINTS = (
    V1TopologySpreadConstraint(
        max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY
    ),
    V1TopologySpreadConstraint(
        max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY
    ),
)
"""What ``defaultingType: System`` spreads by; the order is the order scores are summed in."""


class PodTopologySpread(SpreadFiltering, SpreadScoring, EnqueueExtensions, SignPlugin):
    """Ensures a pod's topologySpreadConstraints (or the profile's defaults) are honoured."""

    name = names.POD_TOPOLOGY_SPREAD

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        if not isinstance(args, PodTopologySpreadArgs):
            raise ValueError(
                f"want args to be of type PodTopologySpreadArgs, got {go_type_name(args)}"
            )
        self.handle = handle
        self.enable_node_inclusion_policy_in_pod_topology_spread = (
            features.enable_node_inclusion_policy_in_pod_topology_spread
        )
        self.enable_match_label_keys_in_pod_topology_spread = (
            features.enable_match_label_keys_in_pod_topology_spread
        )
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint
        self.enable_taint_toleration_comparison_operators = (
            features.enable_taint_toleration_comparison_operators
        )
        self.system_defaulted = args.defaulting_type == SYSTEM_DEFAULTING
        if self.system_defaulted:
            self.default_constraints = list(SYSTEM_DEFAULT_CONSTRAINTS)
        else:
            self.default_constraints = _parse_default_constraints(args)
        # The cluster plays upstream's Service/ReplicaSet/... listers, read for defaults only.
        self.cluster = handle.cluster() if self.default_constraints else None

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Spreading depends on where other pods run, so a pod with constraints (its own or
        the defaults, which the default System defaulting always has) is never signed."""
        if pod.spec.topology_spread_constraints:
            return None, Status(
                Code.UNSCHEDULABLE, "pods with topology constraints are not signable"
            )
        if self.default_constraints:
            return None, Status(
                Code.UNSCHEDULABLE, "pods with default topology constraints are not signable"
            )
        return None, None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        pod_actions = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        if self.enable_scheduling_queue_hint:
            # With hints, a new toleration on the pod itself may matter (nodeTaintsPolicy: Honor).
            pod_actions |= ActionType.UPDATE_POD_TOLERATION
        node_actions = (
            ActionType.ADD
            | ActionType.DELETE
            | ActionType.UPDATE_NODE_LABEL
            | ActionType.UPDATE_NODE_TAINT
        )
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, pod_actions), self.is_schedulable_after_pod_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_actions),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when a scheduled pod in the namespace starts or stops matching a selector,
        or when the pod itself gains a toleration that a Honor taints policy may need."""
        original, modified = as_typed(Pod, old_obj, new_obj)
        if (modified is not None and not _involved_in_topology_spreading(modified, pod)) or (
            original is not None and not _involved_in_topology_spreading(original, pod)
        ):
            return QueueingHint.QUEUE_SKIP
        constraints = self.get_constraints(pod)
        if original is not None and modified is not None:
            return _hint_for_pod_update(pod, original, modified, constraints)
        changed = modified if modified is not None else original
        if changed is not None and pod_labels_match_spread_constraints(constraints, changed.labels):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a node enters or leaves the domains, or moves between them, or a domain
        node's taints change."""
        original, modified = as_typed(Node, old_obj, new_obj)
        constraints = self.get_constraints(pod)
        original_matching = original is not None and node_labels_match_spread_constraints(
            original.labels, constraints
        )
        modified_matching = modified is not None and node_labels_match_spread_constraints(
            modified.labels, constraints
        )
        if original is not None and modified is not None:
            if original_matching != modified_matching:
                return QueueingHint.QUEUE
            if modified_matching and (
                _topology_key_labels_changed(original.labels, modified.labels, constraints)
                or original.spec.taints != modified.spec.taints
            ):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if modified is not None:
            return QueueingHint.QUEUE if modified_matching else QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if original_matching else QueueingHint.QUEUE_SKIP


def _hint_for_pod_update(
    pod: Pod, original: Pod, modified: Pod, constraints: list[TopologySpreadConstraint]
) -> QueueingHint:
    if (
        pod.uid == modified.uid
        and modified.spec.tolerations != original.spec.tolerations
        and any(c.node_taints_policy == NODE_INCLUSION_POLICY_HONOR for c in constraints)
    ):
        return QueueingHint.QUEUE
    if modified.labels == original.labels:
        return QueueingHint.QUEUE_SKIP
    for constraint in constraints:
        if constraint.selector.matches(original.labels) != constraint.selector.matches(
            modified.labels
        ):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _involved_in_topology_spreading(incoming: Pod, pod_with_spreading: Pod) -> bool:
    """The pod itself, or a scheduled or nominated pod in its namespace."""
    if incoming.uid == pod_with_spreading.uid:
        return True
    if not incoming.spec.node_name and not incoming.status.nominated_node_name:
        return False
    return incoming.namespace == pod_with_spreading.namespace


def _topology_key_labels_changed(
    original: dict[str, str], modified: dict[str, str], constraints: list[TopologySpreadConstraint]
) -> bool:
    return any(
        original.get(c.topology_key, "") != modified.get(c.topology_key, "") for c in constraints
    )


def _parse_default_constraints(args: PodTopologySpreadArgs) -> list[V1TopologySpreadConstraint]:
    """The configured defaults as API objects (the configuration validated them already)."""
    return [
        V1TopologySpreadConstraint.parse(
            Fields.of(
                to_json_value(constraint), "PodTopologySpreadArgs", f"defaultConstraints[{i}]"
            )
        )
        for i, constraint in enumerate(args.default_constraints)
    ]
