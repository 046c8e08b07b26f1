"""Workspaces the scheduler service really schedules, for the explain panels' tests.

``stuck``: a pod asking for 4 CPU on three nodes where it fits nowhere. node-a has 2.5 CPU
free of 4 (a running pod holds 1.5): it lacks exactly 1.5 CPU and fails NodeResourcesFit
only; node-b has 2 CPU; node-c has room but a taint the pod does not tolerate.

``preempting``: a high-priority pod that fits only by evicting one pod, on one of two nodes:
node-a's victim has priority 10, node-b's priority 5; no PodDisruptionBudget, so the second
criterion, the highest-priority victim lowest, picks node-b.
"""

from __future__ import annotations

from typing import Any

from tests.playground.scheduling.manifests import node_manifest, pod_manifest

BIG_CPU = "4"


def tainted(manifest: dict[str, Any]) -> dict[str, Any]:
    manifest["spec"] = {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]}
    return manifest


def stuck_objects() -> list[dict[str, Any]]:
    return [
        node_manifest("node-a", cpu="4"),
        node_manifest("node-b", cpu="2"),
        tainted(node_manifest("node-c", cpu="8")),
        pod_manifest("busy", cpu="1500m", node_name="node-a"),
        pod_manifest("big", cpu=BIG_CPU),
    ]


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def preempting_objects() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The cluster with its victims running, and the preemptor (created after them)."""
    cluster = [
        priority_class("low", 5),
        priority_class("mid", 10),
        priority_class("high", 1000),
        node_manifest("node-a", cpu="2"),
        node_manifest("node-b", cpu="2"),
        pod_manifest("victim-a", cpu="2", node_name="node-a", priorityClassName="mid"),
        pod_manifest("victim-b", cpu="2", node_name="node-b", priorityClassName="low"),
    ]
    return cluster, pod_manifest("urgent", cpu="2", priorityClassName="high")
