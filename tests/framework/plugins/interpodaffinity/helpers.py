"""Builders for InterPodAffinity tests: the plugin over a snapshot and a set of namespaces."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from framework.api.core import Namespace
from framework.api.meta import ObjectMeta
from framework.api.node import Node
from framework.api.pod import Pod
from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.config.types import InterPodAffinityArgs
from framework.plugins.feature import Features
from framework.plugins.interpodaffinity.plugin import InterPodAffinity
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from tests.framework.plugins.wrappers import make_node, make_pod

TEAM1 = {"team": "team1"}
TEAM2 = {"team": "team2"}


def namespace(name: str, labels: dict[str, str]) -> Namespace:
    return Namespace(ObjectMeta(name=name, labels=dict(labels)))


NAMESPACES = [
    namespace("subteam1.team1", TEAM1),
    namespace("subteam2.team1", TEAM1),
    namespace("subteam1.team2", TEAM2),
    namespace("subteam2.team2", TEAM2),
]


def new_plugin(
    pods: Iterable[Pod] = (),
    nodes: Iterable[Node] = (),
    objects: Iterable[Any] = NAMESPACES,
    *,
    hard_pod_affinity_weight: int | None = None,
    ignore_preferred_terms_of_existing_pods: bool = False,
    **feature_overrides: bool,
) -> InterPodAffinity:
    """The plugin with a real Framework as its handle; upstream's tests use all switches off."""
    handle = Framework(
        Registry(),
        None,
        snapshot_shared_lister=new_snapshot(pods, nodes),
        cluster=InMemoryCluster(objects),
    )
    args = InterPodAffinityArgs(
        hard_pod_affinity_weight=hard_pod_affinity_weight,
        ignore_preferred_terms_of_existing_pods=ignore_preferred_terms_of_existing_pods,
    )
    return InterPodAffinity(args, handle, dataclasses.replace(Features(), **feature_overrides))


def node(name: str, labels: dict[str, str]) -> Node:
    return make_node().name(name).labels(labels).obj()


def expressions(*requirements: tuple[str, str, list[str] | None]) -> dict[str, Any]:
    """A label selector of match expressions ``(key, operator, values)``."""
    result = []
    for key, operator, values in requirements:
        expression: dict[str, Any] = {"key": key, "operator": operator}
        if values is not None:
            expression["values"] = values
        result.append(expression)
    return {"matchExpressions": result}


def term(
    selector: dict[str, Any] | None,
    topology_key: str = "",
    namespaces: list[str] | None = None,
    namespace_selector: dict[str, Any] | None = None,
) -> dict[str, Any]:
    result: dict[str, Any] = {"topologyKey": topology_key}
    if selector is not None:
        result["labelSelector"] = selector
    if namespaces is not None:
        result["namespaces"] = namespaces
    if namespace_selector is not None:
        result["namespaceSelector"] = namespace_selector
    return result


def weighted(weight: int, pod_affinity_term: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": pod_affinity_term}


def pod_with_affinity_terms(
    namespace: str,
    node_name: str,
    labels: dict[str, str],
    affinity: list[dict[str, Any]] | None,
    anti_affinity: list[dict[str, Any]] | None,
) -> Pod:
    """Upstream's createPodWithAffinityTerms: both sections present, required terms only."""
    wrapper = make_pod().namespace(namespace).labels(labels)
    if node_name:
        wrapper.node(node_name)
    wrapper.pod_affinity_terms("podAffinity", required=affinity or [])
    wrapper.pod_affinity_terms("podAntiAffinity", required=anti_affinity or [])
    return wrapper.obj()
