"""Builders for PodTopologySpread tests: nodes, pods, the plugin over a snapshot, and views
of its cycle state that compare like upstream's tests do."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from framework.api.labels import LabelSelector, Selector, label_selector_as_selector
from framework.api.node import Node
from framework.api.pod import Pod
from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.config.corev1 import TopologySpreadConstraint as ConfigConstraint
from framework.config.types import LIST_DEFAULTING, PodTopologySpreadArgs
from framework.plugins.feature import Features
from framework.plugins.podtopologyspread.common import (
    NODE_INCLUSION_POLICY_HONOR,
    NODE_INCLUSION_POLICY_IGNORE,
    TopologySpreadConstraint,
)
from framework.plugins.podtopologyspread.filtering import PreFilterState
from framework.plugins.podtopologyspread.plugin import PodTopologySpread
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from tests.framework.plugins.wrappers import make_label_selector, make_node, make_pod

HONOR = NODE_INCLUSION_POLICY_HONOR
IGNORE = NODE_INCLUSION_POLICY_IGNORE
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
FOO_SELECTOR = make_label_selector().exists("foo").obj()
BAR_SELECTOR = make_label_selector().exists("bar").obj()
UNSCHEDULABLE_TAINTS = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]


def node(name: str, labels: dict[str, str] | None = None, taints: Any = None) -> Node:
    wrapper = make_node().name(name).labels(labels or {})
    if taints is not None:
        wrapper.taints(taints)
    return wrapper.obj()


def zone_node(
    name: str, zone: str, extra: dict[str, str] | None = None, taints: Any = None
) -> Node:
    """A node labelled ``zone=<zone>`` and ``node=<name>``, as most upstream cases use."""
    return node(name, {"zone": zone, "node": name, **(extra or {})}, taints)


def pod_on(name: str, node_name: str, labels: dict[str, str] | None = None, **kw: Any) -> Pod:
    wrapper = make_pod().name(name).node(node_name).labels(labels or {})
    if "namespace" in kw:
        wrapper.namespace(kw["namespace"])
    if kw.get("terminating"):
        wrapper.terminating()
    return wrapper.obj()


def features(**overrides: bool) -> Features:
    """Upstream's plugin tests start from all switches off."""
    return dataclasses.replace(Features(), **overrides)


def default_constraint(max_skew: int, key: str, when: str) -> ConfigConstraint:
    return ConfigConstraint(max_skew=max_skew, topology_key=key, when_unsatisfiable=when)


def new_plugin(
    pods: Iterable[Pod] = (),
    nodes: Iterable[Node] = (),
    objects: Iterable[Any] = (),
    *,
    default_constraints: Iterable[ConfigConstraint] = (),
    defaulting_type: str = LIST_DEFAULTING,
    **feature_overrides: bool,
) -> PodTopologySpread:
    """The plugin with a real Framework as its handle, over a snapshot of pods and nodes."""
    handle = Framework(
        Registry(),
        None,
        snapshot_shared_lister=new_snapshot(pods, nodes),
        cluster=InMemoryCluster(objects),
    )
    args = PodTopologySpreadArgs(
        default_constraints=list(default_constraints), defaulting_type=defaulting_type
    )
    return PodTopologySpread(args, handle, features(**feature_overrides))


def selector(label_selector: dict[str, Any] | None) -> Selector:
    """A manifest label selector parsed as upstream's LabelSelectorAsSelector (None: nothing)."""
    if label_selector is None:
        return label_selector_as_selector(None)
    return LabelSelector.from_dict(label_selector).as_selector()


def constraint(
    max_skew: int,
    key: str,
    label_selector: dict[str, Any] | None,
    *,
    min_domains: int = 1,
    affinity_policy: str = HONOR,
    taints_policy: str = IGNORE,
) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        max_skew, key, selector(label_selector), min_domains, affinity_policy, taints_policy
    )


def paths_view(s: PreFilterState) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """Critical paths as pairs; topology values with equal counts sorted, as upstream compares."""
    result = []
    for paths in s.critical_paths:
        first, second = paths.paths
        a = (first.topology_value, first.match_num)
        b = (second.topology_value, second.match_num)
        if a[1] == b[1] and a[0] > b[0]:
            a, b = (b[0], a[1]), (a[0], b[1])
        result.append((a, b))
    return result


def max_int32_paths() -> tuple[tuple[str, int], tuple[str, int]]:
    """Upstream's newCriticalPaths(): no domain seen yet."""
    return (("", (1 << 31) - 1), ("", (1 << 31) - 1))
