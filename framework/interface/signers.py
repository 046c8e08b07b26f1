"""Signature fragment names and the signers several plugins share (upstream signers.go).

A fragment's value only has to compare equal for pods that plugins treat alike, so lists whose
order does not matter are sorted and each value is plain JSON. Keys are upstream's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from framework.api.node_affinity import (
        NodeSelectorRequirement,
        NodeSelectorTerm,
        PreferredSchedulingTerm,
    )
    from framework.api.pod import Pod

DYNAMIC_RESOURCES_SIGNER_NAME = "v1.Pod.Spec.DynamicResources"
IMAGE_NAMES_SIGNER_NAME = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER_NAME = "v1.Pod.Labels"
NODE_NAME_SIGNER_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER_NAME = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER_NAME = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER_NAME = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER_NAME = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES_SIGNER_NAME = "v1.Pod.Spec.RequiredFeatures()"

# ConfigMap and Secret volumes never change where a pod fits, and nearly every pod has its own.
_SYNTHETIC_VOLUME_SOURCES = frozenset({"configMap", "secret"})


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def host_ports_signer(pod: Pod) -> list[int]:
    """The distinct non-zero host ports of all containers, sorted."""
    ports = {
        port.host_port
        for container in (*pod.spec.containers, *pod.spec.init_containers)
        for port in container.ports
        if port.host_port != 0
    }
    return sorted(ports)


def node_selector_requirements_signer(reqs: list[NodeSelectorRequirement]) -> list[str]:
    return sorted(
        _json({"key": r.key, "operator": r.operator, "values": sorted(r.values)}) for r in reqs
    )


def node_selector_term_signer(term: NodeSelectorTerm) -> dict[str, list[str]]:
    return {
        "MatchExpressions": node_selector_requirements_signer(term.match_expressions),
        "MatchFields": node_selector_requirements_signer(term.match_fields),
    }


def preferred_scheduling_term_signer(terms: list[PreferredSchedulingTerm]) -> list[str]:
    return sorted(
        _json({"Weight": t.weight, "Preference": node_selector_term_signer(t.preference)})
        for t in terms
    )


def node_selector_terms_signer(terms: list[NodeSelectorTerm]) -> list[str]:
    return sorted(_json(node_selector_term_signer(t)) for t in terms)


def node_affinity_signer(pod: Pod) -> dict[str, list[str]] | None:
    """Required and preferred node affinity terms in a canonical order; None without any."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return None
    node_affinity = affinity.node_affinity
    required = node_affinity.required
    return {
        "Required": node_selector_terms_signer(required.node_selector_terms) if required else [],
        "Preferred": preferred_scheduling_term_signer(node_affinity.preferred),
    }


def tolerations_signer(pod: Pod) -> list[dict[str, Any]]:
    """The tolerations ordered by key, then value."""
    tolerations = sorted(pod.spec.tolerations, key=lambda t: (t.key, t.value))
    return [
        {
            "key": t.key,
            "operator": t.operator,
            "value": t.value,
            "effect": t.effect,
            "tolerationSeconds": t.toleration_seconds,
        }
        for t in tolerations
    ]


def volumes_signer(pod: Pod) -> list[str]:
    """Each volume's source but ConfigMaps and Secrets, sorted (volume names do not matter)."""
    return sorted(
        _json({v.source_kind: v.source})
        for v in pod.spec.volumes
        if v.source_kind not in _SYNTHETIC_VOLUME_SOURCES
    )
