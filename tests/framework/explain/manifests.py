"""Manifests for explain tests: nodes and pods as the objects file has them, and a run of the
explain command's engine over them."""

from __future__ import annotations

from typing import Any

import yaml

from framework.explain.command import explain_command

CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def node(
    name: str,
    *,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    spec: dict[str, Any] = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }


def pod(
    name: str,
    *,
    cpu: str | None = None,
    memory: str | None = None,
    node_name: str = "",
    priority: int | None = None,
    labels: dict[str, str] | None = None,
    start: str | None = None,
    ports: list[int] | None = None,
    extra_requests: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(extra_requests or {})
    container: dict[str, Any] = {"name": "c", "image": "busybox"}
    if requests:
        container["resources"] = {"requests": requests, "limits": dict(extra_requests or {})}
    if ports:
        container["ports"] = [{"containerPort": p, "hostPort": p} for p in ports]
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": {"containers": [container], **spec},
    }
    if node_name:
        manifest["spec"]["nodeName"] = node_name
        manifest["status"] = {"phase": "Running"}
        if start:
            manifest["status"]["startTime"] = start
    if priority is not None:
        manifest["spec"]["priority"] = priority
    return manifest


def objects_text(*manifests: dict[str, Any]) -> str:
    return yaml.safe_dump_all(manifests, sort_keys=False)


def explain(*manifests: dict[str, Any], pod_name: str, config: str = CONFIG) -> dict[str, Any]:
    """The explain command's JSON for ``default/<pod_name>`` over these objects."""
    return explain_command(config, objects_text(*manifests), f"default/{pod_name}")
