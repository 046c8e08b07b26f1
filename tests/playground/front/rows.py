"""Cluster objects stored straight into the database, for pages that only read them."""

from __future__ import annotations

import itertools
from typing import Any

from playground.workspaces.models import ClusterObject, Workspace

_uids = itertools.count(1)


def store(workspace: Workspace, manifest: dict[str, Any]) -> ClusterObject:
    metadata = manifest.setdefault("metadata", {})
    metadata.setdefault("uid", f"uid-{next(_uids)}")
    spec = manifest.get("spec") or {}
    return ClusterObject.objects.create(
        workspace=workspace,
        kind=manifest["kind"],
        namespace=metadata.get("namespace", ""),
        name=metadata["name"],
        uid=metadata["uid"],
        manifest=manifest,
        node_name=spec.get("nodeName", "") if manifest["kind"] == "Pod" else "",
        priority=spec.get("priority", 0) if manifest["kind"] == "Pod" else 0,
        phase=(manifest.get("status") or {}).get("phase", ""),
    )


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: str = "110", **spec: Any) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }


def pod(name: str, cpu: str = "100m", memory: str = "128Mi", **spec: Any) -> dict:
    requests = {"cpu": cpu, "memory": memory}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {
            "containers": [{"name": "c", "image": "app", "resources": {"requests": requests}}],
            **spec,
        },
    }
