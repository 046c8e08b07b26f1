"""Pods, nodes and snapshots for the noderesources tests, shaped like upstream's test helpers."""

from __future__ import annotations

import itertools
from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo

EXTENDED_RESOURCE_A = "example.com/aaa"
EXTENDED_RESOURCE_B = "example.com/bbb"
KUBERNETES_IO_RESOURCE_A = "kubernetes.io/something"
KUBERNETES_IO_RESOURCE_B = "subdomain.kubernetes.io/something"
HUGE_PAGE_RESOURCE_A = "hugepages-2Mi"
EXTENDED_RESOURCE_DRA = "extended.resource.dra.io/something"

_names = itertools.count()


def usage(
    milli_cpu: int = 0,
    memory: int = 0,
    ephemeral_storage: int = 0,
    scalars: dict[str, int] | None = None,
) -> dict[str, str]:
    """A container's requests as upstream's ``newResourcePod`` writes a ``framework.Resource``."""
    requests = {
        "cpu": f"{milli_cpu}m",
        "memory": str(memory),
        "pods": "0",
        "ephemeral-storage": str(ephemeral_storage),
    }
    requests.update({name: str(amount) for name, amount in (scalars or {}).items()})
    return requests


def container(
    requests: dict[str, str] | None = None, *, name: str | None = None, **fields: Any
) -> dict[str, Any]:
    manifest: dict[str, Any] = {"name": name or f"c{next(_names)}", "image": "busybox", **fields}
    if requests is not None:
        manifest["resources"] = {"requests": requests}
    return manifest


def sidecar(requests: dict[str, str] | None = None) -> dict[str, Any]:
    return container(requests, restartPolicy="Always")


def make_pod(
    name: str | None = None,
    *,
    uid: str | None = None,
    node_name: str = "",
    nominated_node_name: str = "",
    containers: list[dict[str, Any]] = (),  # type: ignore[assignment]
    init_containers: list[dict[str, Any]] = (),  # type: ignore[assignment]
    overhead: dict[str, str] | None = None,
    pod_requests: dict[str, str] | None = None,
) -> Pod:
    """A pod; like upstream's ``st.MakePod()`` it has no containers unless given some."""
    name = name or f"pod{next(_names)}"
    spec: dict[str, Any] = {"containers": list(containers)}
    if init_containers:
        spec["initContainers"] = list(init_containers)
    if node_name:
        spec["nodeName"] = node_name
    if overhead is not None:
        spec["overhead"] = overhead
    if pod_requests is not None:
        spec["resources"] = {"requests": pod_requests}
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }
    if uid is not None:
        manifest["metadata"]["uid"] = uid
    if nominated_node_name:
        manifest["status"] = {"nominatedNodeName": nominated_node_name}
    return Pod.from_dict(manifest)


def resource_pod(*usages: dict[str, str], **kw: Any) -> Pod:
    """One container per usage (upstream ``newResourcePod``)."""
    return make_pod(containers=[container(u) for u in usages], **kw)


def req_pod(*requests: dict[str, str], **kw: Any) -> Pod:
    """One container per request list (upstream ``st.MakePod().Req(a).Req(b)``)."""
    return make_pod(containers=[container(r) for r in requests], **kw)


def make_node(name: str = "node", capacity: dict[str, str] | None = None, **status: Any) -> Node:
    """A node whose allocatable equals its capacity; like upstream's ``st.MakeNode()`` it
    allows 32 pods unless told otherwise."""
    resources = {"pods": "32", **(capacity or {})}
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"capacity": resources, "allocatable": dict(resources), **status},
    }
    return Node.from_dict(manifest)


def make_node_info(node: Node, *pods: Pod) -> NodeInfo:
    node_info = NodeInfo(*pods)
    node_info.set_node(node)
    return node_info


def snapshot(existing_pods: list[Pod], nodes: list[Node]) -> list[NodeInfo]:
    """Each node with the existing pods bound to it (upstream ``cache.NewSnapshot``)."""
    return [
        make_node_info(node, *(p for p in existing_pods if p.spec.node_name == node.name))
        for node in nodes
    ]


def score_nodes(
    plugin: Any, pod: Pod, node_infos: list[NodeInfo], *, pre_score: bool = True
) -> list[tuple[str, int]]:
    """Raw scores of every node, after PreScore unless told to leave it out."""
    state = CycleState()
    if pre_score:
        assert plugin.pre_score(state, pod, node_infos) is None
    scores = []
    for node_info in node_infos:
        score, status = plugin.score(state, pod, node_info)
        assert status is None
        scores.append((node_info.node_name, score))
    return scores
