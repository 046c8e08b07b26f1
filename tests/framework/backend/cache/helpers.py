"""Builders for the cache tests, shaped like upstream's (makeBasePod, st.MakePod().PVC(...))."""

from __future__ import annotations

from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.interface.node_info import HostPortInfo, NodeInfo, Resource

MB = 1024 * 1024


def pod(
    name: str,
    node_name: str = "",
    *,
    namespace: str = "test-ns",
    uid: str | None = None,
    containers: list[dict[str, Any]] | None = None,
    **spec: Any,
) -> Pod:
    manifest: dict[str, Any] = {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid or name},
        "spec": {"containers": containers or [{"name": "c", "image": "pause"}], **spec},
    }
    if node_name:
        manifest["spec"]["nodeName"] = node_name
    return Pod.from_dict(manifest)


def base_pod(
    node_name: str,
    name: str,
    cpu: str = "",
    mem: str = "",
    extended: str = "",
    ports: list[dict[str, Any]] | None = None,
) -> Pod:
    """Upstream makeBasePod: one container, requests only when cpu is given."""
    requests: dict[str, str] = {}
    if cpu:
        requests = {"cpu": cpu, "memory": mem}
        if extended:
            resource_name, amount = extended.split(":")
            requests[resource_name] = amount
    container = {
        "name": "container",
        "image": "pause",
        "resources": {"requests": requests},
        "ports": [{"containerPort": 0, **port} for port in ports or []],
    }
    return pod(name, node_name, namespace="node_info_cache_test", containers=[container])


def pod_with_affinity(name: str, node_name: str) -> Pod:
    """A pod with a required pod affinity term (st.PodAffinityExists("foo", "", required))."""
    term = {
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
        "topologyKey": "",
    }
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod(name, node_name, uid=f"uid-{name}", affinity=affinity)


def pod_with_anti_affinity(name: str, node_name: str) -> Pod:
    term = {
        "labelSelector": {"matchLabels": {"another": "label"}},
        "topologyKey": "another",
    }
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod(name, node_name, uid=f"uid-{name}", affinity=affinity)


def pod_with_pvc(pod_id: int, node: int, pvc_id: int) -> Pod:
    """Upstream's makePodWithPVC: p-pvc-<pod> on test-node<node> using test-pvc<pvc>."""
    volume = {"name": "v", "persistentVolumeClaim": {"claimName": f"test-pvc{pvc_id}"}}
    return pod(f"p-pvc-{pod_id}", f"test-node{node}", uid=f"puid-pvc-{pod_id}", volumes=[volume])


def node(
    name: str,
    *,
    allocatable: dict[str, str] | None = None,
    images: dict[str, int] | None = None,
    labels: dict[str, str] | None = None,
) -> Node:
    status: dict[str, Any] = {}
    if allocatable:
        status["capacity"] = allocatable
        status["allocatable"] = allocatable
    if images:
        status["images"] = [{"names": [image], "sizeBytes": size} for image, size in images.items()]
    manifest = {"kind": "Node", "metadata": {"name": name, "labels": labels or {}}}
    return Node.from_dict({**manifest, "status": status})


def host_ports(*entries: tuple[str, str, int]) -> HostPortInfo:
    """Upstream's hostPortInfoBuilder: (protocol, ip, port) entries."""
    ports = HostPortInfo()
    for protocol, ip, port in entries:
        ports.add(ip, protocol, port)
    return ports


def resource(milli_cpu: int = 0, memory: int = 0, **scalars: int) -> Resource:
    return Resource(milli_cpu=milli_cpu, memory=memory, scalar_resources=dict(scalars))


def aggregate(node_info: NodeInfo) -> dict[str, Any]:
    """What upstream's tests compare of a NodeInfo, generation left out."""
    return {
        "pods": [p.pod for p in node_info.pods],
        "requested": node_info.requested,
        "non_zero_requested": node_info.non_zero_requested,
        "used_ports": node_info.used_ports,
        "image_states": node_info.image_states,
    }


def expected_aggregate(
    requested: Resource,
    non_zero: Resource,
    pods: list[Pod],
    ports: HostPortInfo,
) -> dict[str, Any]:
    return {
        "pods": pods,
        "requested": requested,
        "non_zero_requested": non_zero,
        "used_ports": ports,
        "image_states": {},
    }
