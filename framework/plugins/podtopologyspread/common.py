"""The parsed form of topology spread constraints, and what filtering and scoring share.

``SpreadBase`` holds the plugin's configuration and turns a pod's constraints (or the default
ones) into :class:`TopologySpreadConstraint` values; the counting helpers below are used by
both PreFilter and PreScore.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.api.labels import Selector, label_selector_as_selector, selector_from_set
from framework.api.pod import TopologySpreadConstraint as V1TopologySpreadConstraint
from framework.api.taints import do_not_schedule_taints_filter, find_matching_untolerated_taint
from framework.plugins.helper.spread import default_selector

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.node_affinity import RequiredNodeAffinity
    from framework.api.pod import Pod
    from framework.cluster.interface import Cluster
    from framework.interface.node_info import PodInfo

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
NODE_INCLUSION_POLICY_HONOR = "Honor"
NODE_INCLUSION_POLICY_IGNORE = "Ignore"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"


class ConstraintsError(ValueError):
    """A pod's (or the default) constraints cannot be parsed; the message says which."""


@dataclass(slots=True)
class TopologySpreadConstraint:
    """A constraint with its selector parsed and its optional fields resolved to defaults.

    Upstream's internal ``topologySpreadConstraint``; the API type is
    ``V1TopologySpreadConstraint``.
    """

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = NODE_INCLUSION_POLICY_HONOR
    node_taints_policy: str = NODE_INCLUSION_POLICY_IGNORE

    def may_exclude_nodes(self, required: RequiredNodeAffinity) -> bool:
        """Whether ``match_node_inclusion_policies`` can be False for some node: only when a
        policy is honoured and has something to check."""
        return (
            self.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and not required.is_empty()
        ) or self.node_taints_policy == NODE_INCLUSION_POLICY_HONOR

    def match_node_inclusion_policies(
        self,
        pod: Pod,
        node: Node,
        required: RequiredNodeAffinity,
        enable_comparison_operators: bool,
    ) -> bool:
        """Whether the node belongs to a domain under nodeAffinityPolicy and nodeTaintsPolicy."""
        # Affinity terms that do not parse simply do not match, for backwards compatibility.
        if self.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and not required.match(node):
            return False
        if self.node_taints_policy == NODE_INCLUSION_POLICY_HONOR:
            untolerated = find_matching_untolerated_taint(
                node.spec.taints,
                pod.spec.tolerations,
                do_not_schedule_taints_filter,
                enable_comparison_operators=enable_comparison_operators,
            )
            if untolerated is not None:
                return False
        return True


class SpreadBase:
    """Configuration and constraint building shared by PodTopologySpread's extension points."""

    system_defaulted: bool
    default_constraints: list[V1TopologySpreadConstraint]
    handle: Any
    cluster: Cluster | None
    enable_node_inclusion_policy_in_pod_topology_spread: bool
    enable_match_label_keys_in_pod_topology_spread: bool
    enable_scheduling_queue_hint: bool
    enable_taint_toleration_comparison_operators: bool

    def get_constraints(self, pod: Pod) -> list[TopologySpreadConstraint]:
        """The pod's DoNotSchedule constraints, or the defaults when it declares none."""
        if pod.spec.topology_spread_constraints:
            try:
                return self.filter_topology_spread_constraints(
                    pod.spec.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE
                )
            except ValueError as err:
                raise ConstraintsError(
                    f"obtaining pod's hard topology spread constraints: {err}"
                ) from err
        try:
            return self.build_default_constraints(pod, DO_NOT_SCHEDULE)
        except ValueError as err:
            raise ConstraintsError(
                f"setting default hard topology spread constraints: {err}"
            ) from err

    def build_default_constraints(self, pod: Pod, action: str) -> list[TopologySpreadConstraint]:
        """The default constraints for ``action``, all selecting what the pod's Services and
        controller select; none when nothing selects the pod."""
        constraints = self.filter_topology_spread_constraints(
            self.default_constraints, pod.labels, action
        )
        if not constraints:
            return []
        selector = default_selector(pod, self.cluster)
        if selector.empty():
            return []
        for constraint in constraints:
            constraint.selector = selector
        return constraints

    def filter_topology_spread_constraints(
        self,
        constraints: Iterable[V1TopologySpreadConstraint],
        pod_labels: Mapping[str, str],
        action: str,
    ) -> list[TopologySpreadConstraint]:
        """The constraints whose ``whenUnsatisfiable`` is ``action``, parsed.

        Raises :class:`~framework.api.labels.SelectorError` for a selector that does not parse.
        """
        result = []
        for constraint in constraints:
            if constraint.when_unsatisfiable != action:
                continue
            selector = label_selector_as_selector(constraint.label_selector)
            if self.enable_match_label_keys_in_pod_topology_spread and constraint.match_label_keys:
                match_labels = {
                    key: pod_labels[key] for key in constraint.match_label_keys if key in pod_labels
                }
                if match_labels:
                    selector = merge_label_set_with_selector(match_labels, selector)
            parsed = TopologySpreadConstraint(
                max_skew=constraint.max_skew,
                topology_key=constraint.topology_key,
                selector=selector,
                min_domains=1 if constraint.min_domains is None else constraint.min_domains,
            )
            if self.enable_node_inclusion_policy_in_pod_topology_spread:
                if constraint.node_affinity_policy is not None:
                    parsed.node_affinity_policy = constraint.node_affinity_policy
                if constraint.node_taints_policy is not None:
                    parsed.node_taints_policy = constraint.node_taints_policy
            result.append(parsed)
        return result


def merge_label_set_with_selector(match_labels: Mapping[str, str], selector: Selector) -> Selector:
    """The pod's values for ``matchLabelKeys`` ANDed with the selector (nothing stays nothing)."""
    if selector.matches_nothing():
        return selector
    return selector_from_set(match_labels).add(*selector.requirements)


def node_labels_match_spread_constraints(
    node_labels: Mapping[str, str], constraints: Sequence[TopologySpreadConstraint]
) -> bool:
    """Whether the node carries every constraint's topology key."""
    return all(c.topology_key in node_labels for c in constraints)


def node_labels_have_keys(node_labels: Mapping[str, str], keys: Sequence[str]) -> bool:
    """``node_labels_match_spread_constraints`` with the keys taken out once per cycle."""
    for key in keys:  # noqa: SIM110 - a loop beats all() here: this runs for every node
        if key not in node_labels:
            return False
    return True


def count_pods_match_selector(
    pod_infos: Iterable[PodInfo], selector: Selector, namespace: str
) -> int:
    """Pods in ``namespace`` that match; terminating pods do not count (upstream issue 87621).

    An empty selector counts nothing.
    """
    if selector.empty():
        return 0
    matches = selector.matches
    count = 0
    for pod_info in pod_infos:
        meta = pod_info.pod.metadata
        if meta.deletion_timestamp is None and meta.namespace == namespace and matches(meta.labels):
            count += 1
    return count


def pod_labels_match_spread_constraints(
    constraints: Iterable[TopologySpreadConstraint], labels: Mapping[str, str]
) -> bool:
    """Whether any constraint's selector matches the labels."""
    return any(c.selector.matches(labels) for c in constraints)
