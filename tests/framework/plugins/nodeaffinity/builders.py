"""Pods with node selectors and node affinity, and labelled nodes, for the NodeAffinity tests."""

from __future__ import annotations

import itertools
from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.config.corev1 import (
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
)
from framework.config.types import NodeAffinityArgs
from framework.interface.node_info import NodeInfo

_names = itertools.count()


def requirement(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def term(
    expressions: list[dict[str, Any]] = (),  # type: ignore[assignment]
    fields: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if expressions:
        result["matchExpressions"] = list(expressions)
    if fields:
        result["matchFields"] = list(fields)
    return result


def make_pod(
    *,
    node_selector: dict[str, str] | None = None,
    required: list[dict[str, Any]] | None = None,
    preferred: list[tuple[int, dict[str, Any]]] | None = None,
    node_affinity: dict[str, Any] | None = None,
) -> Pod:
    """A pod with a node selector, required terms and weighted preferred terms as given.

    ``node_affinity`` passes a raw ``nodeAffinity`` section through unchanged.
    """
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    affinity = dict(node_affinity or {})
    if required is not None:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": required}
    if preferred is not None:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": weight, "preference": preference} for weight, preference in preferred
        ]
    if affinity or node_affinity is not None:
        spec["affinity"] = {"nodeAffinity": affinity}
    return Pod.from_dict({"kind": "Pod", "metadata": {"name": f"pod{next(_names)}"}, "spec": spec})


def make_node(name: str = "node", labels: dict[str, str] | None = None) -> Node:
    return Node.from_dict({"kind": "Node", "metadata": {"name": name, "labels": labels or {}}})


def make_node_info(name: str = "node", labels: dict[str, str] | None = None) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(make_node(name, labels))
    return node_info


def args(
    required: list[NodeSelectorTerm] | None = None,
    preferred: list[PreferredSchedulingTerm] | None = None,
) -> NodeAffinityArgs:
    """NodeAffinityArgs with an added affinity made of configuration types."""
    if required is None and preferred is None:
        return NodeAffinityArgs()
    selector = None if required is None else NodeSelector(node_selector_terms=required)
    return NodeAffinityArgs(
        added_affinity=NodeAffinity(
            required_during_scheduling_ignored_during_execution=selector,
            preferred_during_scheduling_ignored_during_execution=preferred or [],
        )
    )


def config_term(
    expressions: list[tuple[str, str, list[str]]] = (),  # type: ignore[assignment]
    fields: list[tuple[str, str, list[str]]] = (),  # type: ignore[assignment]
) -> NodeSelectorTerm:
    return NodeSelectorTerm(
        match_expressions=[NodeSelectorRequirement(k, op, list(v)) for k, op, v in expressions],
        match_fields=[NodeSelectorRequirement(k, op, list(v)) for k, op, v in fields],
    )
