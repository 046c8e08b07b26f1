"""The counts PreFilter takes over every node, as queries the snapshot keeps between cycles.

Upstream walks the nodes each cycle; here each count is a
:class:`~framework.interface.node_sums.NodeQuery`, so a cycle only recounts the nodes that
changed since the last pod alike (``sum_over`` walks when the snapshot cannot keep it). Each
counts existing pods per (topology key, topology value) of their node.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.interface.node_info import AffinityTerm, NodeInfo

TopologyPair = tuple[str, str]
"""(topology key, topology value)."""


def add_pair(counts: dict[TopologyPair, int], node: Node, topology_key: str) -> None:
    """Counts one more matching pod in the node's domain for ``topology_key``, if it has one."""
    topology_value = node.labels.get(topology_key)
    if topology_value is not None:
        pair = (topology_key, topology_value)
        counts[pair] = counts.get(pair, 0) + 1


def pod_matches_all_affinity_terms(
    terms: tuple[AffinityTerm, ...] | list[AffinityTerm], pod: Pod
) -> bool:
    """True only if there are terms and the pod matches every one of them.

    The incoming pod's namespace selectors are merged into its namespaces, so no namespace
    labels are passed.
    """
    if not terms:
        return False
    return all(term.matches(pod, None) for term in terms)


@dataclass(frozen=True, slots=True)
class ExistingAntiAffinityCounts:
    """Existing pods whose required anti-affinity terms match the incoming pod, per pair.

    Matching reads the incoming pod's namespace and labels, and its namespace's labels.
    """

    ordered: ClassVar[bool] = False

    namespace: str
    labels: frozenset[tuple[str, str]]
    namespace_labels: frozenset[tuple[str, str]]
    pod: Pod = field(compare=False)
    namespace_labels_map: Mapping[str, str] = field(compare=False)

    @classmethod
    def of(cls, pod: Pod, namespace_labels: Mapping[str, str]) -> ExistingAntiAffinityCounts:
        return cls(
            pod.namespace,
            frozenset(pod.labels.items()),
            frozenset(namespace_labels.items()),
            pod,
            namespace_labels,
        )

    def contribution(self, node_info: NodeInfo) -> dict[TopologyPair, int] | None:
        existing_pods = node_info.pods_with_required_anti_affinity
        if not existing_pods:
            return None
        counts: dict[TopologyPair, int] = {}
        node = node_info.node
        pod = self.pod
        namespace_labels = self.namespace_labels_map
        for existing in existing_pods:
            for term in existing.required_anti_affinity_terms:
                if term.matches(pod, namespace_labels):
                    add_pair(counts, node, term.topology_key)
        return counts


@dataclass(frozen=True, slots=True)
class AffinityCounts:
    """Existing pods matching every one of the incoming pod's required affinity terms: one
    count per term, on the pair of the term's topology key."""

    ordered: ClassVar[bool] = False

    terms: tuple[AffinityTerm, ...]

    def contribution(self, node_info: NodeInfo) -> dict[TopologyPair, int] | None:
        counts: dict[TopologyPair, int] = {}
        node = node_info.node
        terms = self.terms
        for existing in node_info.pods:
            if pod_matches_all_affinity_terms(terms, existing.pod):
                for term in terms:
                    add_pair(counts, node, term.topology_key)
        return counts


@dataclass(frozen=True, slots=True)
class AntiAffinityCounts:
    """Existing pods matching each of the incoming pod's required anti-affinity terms."""

    ordered: ClassVar[bool] = False

    terms: tuple[AffinityTerm, ...]

    def contribution(self, node_info: NodeInfo) -> dict[TopologyPair, int] | None:
        counts: dict[TopologyPair, int] = {}
        node = node_info.node
        for existing in node_info.pods:
            existing_pod = existing.pod
            for term in self.terms:
                if term.matches(existing_pod, None):
                    add_pair(counts, node, term.topology_key)
        return counts
