"""Builders for preemption tests, shaped like upstream's ``st.MakePod()`` calls in its tables.

``start=n`` stands for upstream's ``epochTime<n>`` (``time.Unix(0, n)``). Python datetimes
stop at microseconds, so n is taken as microseconds: the order of the times, which is all the
tables depend on, is the same.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup
from framework.api.policy import PodDisruptionBudget

NEG_PRIORITY, LOW_PRIORITY, MID_PRIORITY, HIGH_PRIORITY, VERY_HIGH_PRIORITY = (
    -100,
    0,
    100,
    1000,
    10000,
)

SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def epoch_time(n: int) -> str:
    """Upstream's ``epochTime<n>`` as an RFC 3339 string (n microseconds after the epoch)."""
    moment = _EPOCH + _dt.timedelta(microseconds=n)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def pod(
    name: str,
    *,
    uid: str | None = None,
    namespace: str = "default",
    node: str = "",
    priority: int | None = None,
    req: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    start: int | None = None,
    preemption_policy: str | None = None,
    nominated_node: str = "",
    terminating: bool = False,
    conditions: list[dict[str, str]] | None = None,
    containers: int = 1,
    scheduler_name: str | None = None,
    **spec: Any,
) -> Pod:
    """A pod; its uid defaults to its name, as upstream's tables write ``Name(x).UID(x)``."""
    container_list: list[dict[str, Any]] = [
        {"name": f"container{i + 1}", "image": "pause"} for i in range(containers)
    ]
    if req:
        container_list[0]["resources"] = {"requests": dict(req)}
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or name}
    if labels:
        metadata["labels"] = dict(labels)
    if terminating:
        metadata["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": container_list, **spec},
        "status": {},
    }
    if node:
        manifest["spec"]["nodeName"] = node
    if priority is not None:
        manifest["spec"]["priority"] = priority
    if preemption_policy is not None:
        manifest["spec"]["preemptionPolicy"] = preemption_policy
    if scheduler_name is not None:
        manifest["spec"]["schedulerName"] = scheduler_name
    if start is not None:
        manifest["status"]["startTime"] = epoch_time(start)
    if nominated_node:
        manifest["status"]["nominatedNodeName"] = nominated_node
    if conditions:
        manifest["status"]["conditions"] = [dict(c) for c in conditions]
    return Pod.from_dict(manifest)


def node(
    name: str, capacity: dict[str, str] | None = None, labels: dict[str, str] | None = None
) -> Node:
    """A node whose capacity and allocatable are ``capacity`` plus, unless given, 32 pods
    (``st.MakeNode().Capacity(...)``)."""
    resources = {"pods": "32", **(capacity or {})}
    return Node.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": dict(labels or {})},
            "status": {"capacity": resources, "allocatable": resources},
        }
    )


def topology_node(spec: str, capacity: dict[str, str]) -> Node:
    """``"node-a/zone1"`` → node ``node-a`` labelled hostname=node-a, zone=zone1 (as upstream)."""
    values = spec.split("/")
    labels = dict(zip(("hostname", "zone", "region"), values, strict=False))
    return node(values[0], capacity, labels)


def pdb(
    name: str = "pdb",
    *,
    namespace: str = "default",
    match_labels: dict[str, str] | None = None,
    disruptions_allowed: int = 0,
    disrupted_pods: list[str] = (),  # type: ignore[assignment]
    selector: dict[str, Any] | None = None,
) -> PodDisruptionBudget:
    spec: dict[str, Any] = {}
    if selector is not None:
        spec["selector"] = selector
    elif match_labels is not None:
        spec["selector"] = {"matchLabels": dict(match_labels)}
    return PodDisruptionBudget.from_dict(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
            "status": {
                "disruptionsAllowed": disruptions_allowed,
                "disruptedPods": {p: "2024-01-01T00:00:00Z" for p in disrupted_pods},
            },
        }
    )


def spread_constraint(topology_key: str, max_skew: int = 1) -> dict[str, Any]:
    """A DoNotSchedule constraint over pods having label ``foo`` (the upstream tables' one)."""
    return {
        "maxSkew": max_skew,
        "topologyKey": topology_key,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
    }


def anti_affinity_exists(key: str, topology_key: str) -> dict[str, Any]:
    """Required anti-affinity to pods having label ``key``."""
    term = {
        "labelSelector": {"matchExpressions": [{"key": key, "operator": "Exists"}]},
        "topologyKey": topology_key,
    }
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def names(pods: list[Pod]) -> list[str]:
    return [p.name for p in pods]


def pod_group(
    name: str,
    *,
    uid: str | None = None,
    namespace: str = "default",
    priority: int | None = None,
    disruption_mode: str | None = None,
) -> PodGroup:
    """A gang PodGroup (``st.MakePodGroup()``); its uid defaults to its name."""
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": 1}}}
    if priority is not None:
        spec["priority"] = priority
    if disruption_mode is not None:
        spec["disruptionMode"] = disruption_mode
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace, "uid": uid or name},
            "spec": spec,
        }
    )


def member(name: str, group: str, **kwargs: Any) -> Pod:
    """A pod of the named group (``st.MakePod().PodGroupName(group)``)."""
    return pod(name, schedulingGroup={"podGroupName": group}, **kwargs)
