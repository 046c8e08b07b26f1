"""Small manifest builders for the scheduling tests (plain dicts, as users write them)."""

from __future__ import annotations

from typing import Any


def node_manifest(name: str, cpu: str = "4", memory: str = "8Gi", pods: str = "110") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }


def pod_manifest(
    name: str,
    cpu: str = "100m",
    *,
    namespace: str = "default",
    uid: str = "",
    node_name: str = "",
    scheduler_name: str = "",
    **spec: Any,
) -> dict:
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}"},
        "spec": {
            "containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}],
            **spec,
        },
    }
    if node_name:
        manifest["spec"]["nodeName"] = node_name
    if scheduler_name:
        manifest["spec"]["schedulerName"] = scheduler_name
    return manifest


def pod_group_manifest(name: str, min_count: int, namespace: str = "default") -> dict:
    """A gang: a PodGroup whose ``minCount`` members are scheduled together or not at all."""
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }
