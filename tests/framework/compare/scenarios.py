"""Inputs the comparison tests share: the examples' two profiles and cluster, and a recording
in the playground's format built line by line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from framework.compare.variant import VariantSpec

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "compare"
SPREADING = VariantSpec("spreading", (EXAMPLE / "spreading.yaml").read_text())
BIN_PACKING = VariantSpec("bin-packing", (EXAMPLE / "bin-packing.yaml").read_text())
CLUSTER = (EXAMPLE / "cluster.yaml").read_text()


def node(name: str, cpu: str = "2", memory: str = "4Gi", **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def pod(name: str, cpu: str = "500m", node_name: str = "", app: str = "web") -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": {
            "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]
        },
    }
    if node_name:
        manifest["spec"]["nodeName"] = node_name
    return manifest


def recording(*lines: tuple[float, str, dict[str, Any]]) -> str:
    """A recording file's text: the header, then ``(t, type, object)`` lines."""
    header = {"recording": 1, "connection": "test", "kinds": ["Node", "Pod"]}
    rows = [json.dumps(header)]
    rows += [json.dumps({"t": t, "type": kind, "object": obj}) for t, kind, obj in lines]
    return "\n".join(rows) + "\n"
