"""Fluent pod, node and selector builders, as upstream's scheduler testing wrappers.

Each builder writes an ordinary manifest and ``obj()`` parses it, so tests exercise the same
parsing as real input. Pods without a name get a unique one (and so a unique uid).
"""

from __future__ import annotations

import copy
import itertools
from enum import Enum
from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod

_pod_names = itertools.count(1)


class PodAffinityKind(Enum):
    """Which part of (anti-)affinity a term goes to (upstream ``st.PodAffinityKind``)."""

    REQUIRED = "required"
    PREFERRED = "preferred"
    REQUIRED_AND_PREFERRED = "both"


class LabelSelectorWrapper:
    def __init__(self) -> None:
        self._selector: dict[str, Any] = {}

    def label(self, key: str, value: str) -> LabelSelectorWrapper:
        self._selector.setdefault("matchLabels", {})[key] = value
        return self

    def in_(self, key: str, values: list[str]) -> LabelSelectorWrapper:
        return self._expression(key, "In", values)

    def not_in(self, key: str, values: list[str]) -> LabelSelectorWrapper:
        return self._expression(key, "NotIn", values)

    def exists(self, key: str) -> LabelSelectorWrapper:
        return self._expression(key, "Exists", None)

    def not_exist(self, key: str) -> LabelSelectorWrapper:
        return self._expression(key, "DoesNotExist", None)

    def _expression(
        self, key: str, operator: str, values: list[str] | None
    ) -> LabelSelectorWrapper:
        expression: dict[str, Any] = {"key": key, "operator": operator}
        if values is not None:
            expression["values"] = list(values)
        self._selector.setdefault("matchExpressions", []).append(expression)
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._selector)


def make_label_selector() -> LabelSelectorWrapper:
    return LabelSelectorWrapper()


class PodWrapper:
    def __init__(self) -> None:
        self._manifest: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {},
            "spec": {"containers": [{"name": "c", "image": "pause"}]},
        }

    @property
    def _meta(self) -> dict[str, Any]:
        return self._manifest["metadata"]

    @property
    def _spec(self) -> dict[str, Any]:
        return self._manifest["spec"]

    def name(self, name: str) -> PodWrapper:
        self._meta["name"] = name
        return self

    def namespace(self, namespace: str) -> PodWrapper:
        self._meta["namespace"] = namespace
        return self

    def uid(self, uid: str) -> PodWrapper:
        self._meta["uid"] = uid
        return self

    def label(self, key: str, value: str) -> PodWrapper:
        self._meta.setdefault("labels", {})[key] = value
        return self

    def labels(self, labels: dict[str, str]) -> PodWrapper:
        for key, value in labels.items():
            self.label(key, value)
        return self

    def owner_reference(self, name: str, api_version: str, kind: str) -> PodWrapper:
        self._meta["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": name, "uid": name, "controller": True}
        ]
        return self

    def terminating(self) -> PodWrapper:
        self._meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        return self

    def node(self, node_name: str) -> PodWrapper:
        self._spec["nodeName"] = node_name
        return self

    def nominated_node_name(self, node_name: str) -> PodWrapper:
        self._manifest.setdefault("status", {})["nominatedNodeName"] = node_name
        return self

    def node_selector(self, selector: dict[str, str]) -> PodWrapper:
        self._spec["nodeSelector"] = dict(selector)
        return self

    def toleration(self, key: str) -> PodWrapper:
        self._spec.setdefault("tolerations", []).append({"key": key, "operator": "Exists"})
        return self

    def tolerations(self, tolerations: list[dict[str, Any]]) -> PodWrapper:
        self._spec["tolerations"] = copy.deepcopy(tolerations)
        return self

    def node_affinity_in(self, key: str, values: list[str]) -> PodWrapper:
        return self._required_node_affinity(key, "In", values)

    def node_affinity_not_in(self, key: str, values: list[str]) -> PodWrapper:
        return self._required_node_affinity(key, "NotIn", values)

    def _required_node_affinity(self, key: str, operator: str, values: list[str]) -> PodWrapper:
        term = {"matchExpressions": [{"key": key, "operator": operator, "values": list(values)}]}
        node_affinity = self._spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [term]
        }
        return self

    def spread_constraint(
        self,
        max_skew: int,
        topology_key: str,
        when_unsatisfiable: str,
        selector: dict[str, Any] | None,
        min_domains: int | None = None,
        node_affinity_policy: str | None = None,
        node_taints_policy: str | None = None,
        match_label_keys: list[str] | None = None,
    ) -> PodWrapper:
        constraint: dict[str, Any] = {
            "maxSkew": max_skew,
            "topologyKey": topology_key,
            "whenUnsatisfiable": when_unsatisfiable,
        }
        optional = {
            "labelSelector": copy.deepcopy(selector),
            "minDomains": min_domains,
            "nodeAffinityPolicy": node_affinity_policy,
            "nodeTaintsPolicy": node_taints_policy,
            "matchLabelKeys": match_label_keys,
        }
        constraint.update({k: v for k, v in optional.items() if v is not None})
        self._spec.setdefault("topologySpreadConstraints", []).append(constraint)
        return self

    def pod_affinity(
        self, topology_key: str, selector: dict[str, Any] | None, kind: PodAffinityKind
    ) -> PodWrapper:
        return self._pod_affinity("podAffinity", topology_key, selector, kind)

    def pod_anti_affinity(
        self, topology_key: str, selector: dict[str, Any] | None, kind: PodAffinityKind
    ) -> PodWrapper:
        return self._pod_affinity("podAntiAffinity", topology_key, selector, kind)

    def pod_affinity_exists(self, key: str, topology_key: str, kind: PodAffinityKind) -> PodWrapper:
        return self.pod_affinity(topology_key, make_label_selector().exists(key).obj(), kind)

    def pod_anti_affinity_exists(
        self, key: str, topology_key: str, kind: PodAffinityKind
    ) -> PodWrapper:
        return self.pod_anti_affinity(topology_key, make_label_selector().exists(key).obj(), kind)

    def pod_affinity_in(
        self, key: str, topology_key: str, values: list[str], kind: PodAffinityKind
    ) -> PodWrapper:
        return self.pod_affinity(topology_key, make_label_selector().in_(key, values).obj(), kind)

    def pod_anti_affinity_in(
        self, key: str, topology_key: str, values: list[str], kind: PodAffinityKind
    ) -> PodWrapper:
        selector = make_label_selector().in_(key, values).obj()
        return self.pod_anti_affinity(topology_key, selector, kind)

    def affinity(self, affinity: dict[str, Any]) -> PodWrapper:
        """A whole ``spec.affinity`` in manifest form."""
        self._spec["affinity"] = copy.deepcopy(affinity)
        return self

    def pod_affinity_terms(
        self,
        section: str,
        required: list[dict[str, Any]] | None = None,
        preferred: list[dict[str, Any]] | None = None,
    ) -> PodWrapper:
        """Raw terms for ``podAffinity`` or ``podAntiAffinity``, in manifest form."""
        target = self._spec.setdefault("affinity", {}).setdefault(section, {})
        if required is not None:
            target["requiredDuringSchedulingIgnoredDuringExecution"] = copy.deepcopy(required)
        if preferred is not None:
            target["preferredDuringSchedulingIgnoredDuringExecution"] = copy.deepcopy(preferred)
        return self

    def _pod_affinity(
        self,
        section: str,
        topology_key: str,
        selector: dict[str, Any] | None,
        kind: PodAffinityKind,
    ) -> PodWrapper:
        term: dict[str, Any] = {"topologyKey": topology_key}
        if selector is not None:
            term["labelSelector"] = copy.deepcopy(selector)
        target = self._spec.setdefault("affinity", {}).setdefault(section, {})
        if kind in (PodAffinityKind.REQUIRED, PodAffinityKind.REQUIRED_AND_PREFERRED):
            target.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        if kind in (PodAffinityKind.PREFERRED, PodAffinityKind.REQUIRED_AND_PREFERRED):
            target.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                {"weight": 1, "podAffinityTerm": copy.deepcopy(term)}
            )
        return self

    def obj(self) -> Pod:
        manifest = copy.deepcopy(self._manifest)
        manifest["metadata"].setdefault("name", f"pod-{next(_pod_names)}")
        return Pod.from_dict(manifest)


def make_pod() -> PodWrapper:
    return PodWrapper()


class NodeWrapper:
    def __init__(self) -> None:
        self._manifest: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {},
            "spec": {},
            "status": {"allocatable": {"pods": "32"}},
        }

    def name(self, name: str) -> NodeWrapper:
        self._manifest["metadata"]["name"] = name
        return self

    def label(self, key: str, value: str) -> NodeWrapper:
        self._manifest["metadata"].setdefault("labels", {})[key] = value
        return self

    def labels(self, labels: dict[str, str]) -> NodeWrapper:
        for key, value in labels.items():
            self.label(key, value)
        return self

    def taints(self, taints: list[dict[str, Any]]) -> NodeWrapper:
        self._manifest["spec"]["taints"] = copy.deepcopy(taints)
        return self

    def obj(self) -> Node:
        return Node.from_dict(copy.deepcopy(self._manifest))


def make_node() -> NodeWrapper:
    return NodeWrapper()
