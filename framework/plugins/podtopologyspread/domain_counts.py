"""Matching pods per topology domain, over every node: what PreFilter and PreScore count.

Upstream walks every node of the cluster each cycle. Here the count is a :class:`NodeQuery`
that the snapshot's :class:`~framework.interface.node_sums.NodeSums` keeps up to date between
cycles, so a cycle only recounts the nodes that changed since the last pod alike; the full
walk (``sum_over_nodes``) stays the reference and the fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from framework.api.node_affinity import RequiredNodeAffinity
from framework.interface.node_sums import sum_over
from framework.plugins.podtopologyspread.common import (
    SpreadBase,
    TopologySpreadConstraint,
    count_pods_match_selector,
    node_labels_have_keys,
)

if TYPE_CHECKING:
    from framework.api.labels import Selector
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.interface.node_info import NodeInfo


@dataclass(frozen=True, slots=True)
class MatchingPodsPerDomain:
    """Per value of ``topology_key``: pods in ``namespace`` matching ``selector`` on the
    nodes that carry every one of ``required_keys`` and pass ``excludes``.

    A node without ``topology_key`` (possible only when it is not required) counts in the
    ``""`` domain, as upstream's map lookup does. Every counted node makes its domain exist,
    with 0 when none of its pods match. ``exclusion`` names what ``excludes`` checks (it is
    ``""`` when nothing is excluded), so that equal queries count the same.
    """

    ordered: ClassVar[bool] = True

    namespace: str
    selector: Selector
    topology_key: str
    required_keys: tuple[str, ...]
    exclusion: str = ""
    excludes: Callable[[Node], bool] | None = field(default=None, compare=False)

    def contribution(self, node_info: NodeInfo) -> dict[str, int] | None:
        node = node_info.node
        if node is None:
            return None
        node_labels = node.metadata.labels
        if not node_labels_have_keys(node_labels, self.required_keys):
            return None
        if self.excludes is not None and self.excludes(node):
            return None
        pods = node_info.pods
        count = count_pods_match_selector(pods, self.selector, self.namespace) if pods else 0
        return {node_labels.get(self.topology_key, ""): count}


def query_for(
    pod: Pod,
    constraint: TopologySpreadConstraint,
    required_keys: tuple[str, ...],
    with_policies: bool,
    comparison_operators: bool,
) -> MatchingPodsPerDomain:
    """The count a constraint of ``pod`` needs, with the node exclusions that apply to it.

    Without inclusion policies, spreading only counts nodes the pod's node affinity accepts;
    with them, the constraint's nodeAffinityPolicy and nodeTaintsPolicy decide. Checks that
    cannot exclude a node are left out (the walk covers every node of the cluster).
    """
    required = RequiredNodeAffinity.from_pod(pod)
    check_affinity = not with_policies and not required.is_empty()
    check_policies = with_policies and constraint.may_exclude_nodes(required)
    if not check_affinity and not check_policies:
        return MatchingPodsPerDomain(
            pod.namespace, constraint.selector, constraint.topology_key, required_keys
        )

    def excludes(node: Node) -> bool:
        if check_affinity and not required.match(node):
            return True
        return check_policies and not constraint.match_node_inclusion_policies(
            pod, node, required, comparison_operators
        )

    spec = pod.spec
    node_affinity = spec.affinity.node_affinity if spec.affinity else None
    # Everything ``excludes`` reads, as text: equal text, equal exclusions.
    exclusion = repr(
        (
            check_affinity,
            check_policies,
            constraint.node_affinity_policy,
            constraint.node_taints_policy,
            comparison_operators,
            sorted(spec.node_selector.items()),
            node_affinity.required if node_affinity else None,
            spec.tolerations if check_policies else None,
        )
    )
    return MatchingPodsPerDomain(
        pod.namespace,
        constraint.selector,
        constraint.topology_key,
        required_keys,
        exclusion,
        excludes,
    )


def count_matching_pods(
    plugin: SpreadBase,
    pod: Pod,
    constraint: TopologySpreadConstraint,
    required_keys: tuple[str, ...],
    nodes: list[NodeInfo],
) -> Mapping[str, int]:
    """Matching pods per domain of the constraint over ``nodes``: kept by the snapshot when
    ``nodes`` is its node list, walked otherwise. Do not change the result."""
    lister = plugin.handle.snapshot_shared_lister() if plugin.handle is not None else None
    query = query_for(
        pod,
        constraint,
        required_keys,
        plugin.enable_node_inclusion_policy_in_pod_topology_spread,
        plugin.enable_taint_toleration_comparison_operators,
    )
    return sum_over(query, lister, nodes)
