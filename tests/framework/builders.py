"""Small builders for tests: pods and nodes from a few arguments, as upstream's wrappers."""

from __future__ import annotations

from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup
from framework.interface.node_info import NodeInfo


def make_pod(
    name: str = "p",
    namespace: str = "default",
    *,
    priority: int | None = None,
    uid: str | None = None,
    node_name: str = "",
    cpu: str | None = None,
    memory: str | None = None,
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> Pod:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    container: dict[str, Any] = {"name": "c", "image": "busybox"}
    if requests:
        container["resources"] = {"requests": requests}
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": {"containers": [container], **spec},
    }
    if uid is not None:
        manifest["metadata"]["uid"] = uid
    if priority is not None:
        manifest["spec"]["priority"] = priority
    if node_name:
        manifest["spec"]["nodeName"] = node_name
    return Pod.from_dict(manifest)


def make_node(
    name: str,
    *,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
) -> Node:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods}
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"taints": taints or []},
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }
    return Node.from_dict(manifest)


def make_node_info(name: str, *pods: Pod, **node_args: Any) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(make_node(name, **node_args))
    for pod in pods:
        node_info.add_pod(pod)
    return node_info


class StaticLister:
    """A snapshot lister over fixed NodeInfos (the scheduler's snapshot stands in later)."""

    def __init__(self, node_infos: list[NodeInfo]) -> None:
        self._node_infos = node_infos

    def node_infos(self) -> StaticLister:
        return self

    def list(self) -> list[NodeInfo]:
        return list(self._node_infos)

    def get(self, name: str) -> NodeInfo:
        for node_info in self._node_infos:
            if node_info.node_name == name:
                return node_info
        raise KeyError(name)


def priority_class_manifest(name: str, value: int, **fields: Any) -> dict[str, Any]:
    """A PriorityClass manifest (``globalDefault``, ``preemptionPolicy`` as keyword fields)."""
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **fields,
    }


def make_basic_pod_group(
    name: str, namespace: str = "default", topology_key: str | None = None
) -> PodGroup:
    """A ``basic`` PodGroup, in one domain of ``topology_key`` when one is given (upstream
    ``st.MakePodGroup().TopologyKey(key)``)."""
    spec: dict[str, Any] = {"schedulingPolicy": {"basic": {}}}
    if topology_key is not None:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
    )
