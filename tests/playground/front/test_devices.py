"""Devices in use per node, as the nodes page counts them from slices and claims."""

from __future__ import annotations

import pytest

from playground.front.devices import node_devices
from tests.playground.front.rows import store

pytestmark = pytest.mark.django_db


def gpu_slice(name: str, devices: list[dict], **spec) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
            **spec,
        },
    }


def claim(name: str, pool: str, device: str, **result) -> dict:
    allocated = {"request": "gpu", "driver": "gpu.example.com", "pool": pool, "device": device}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "g"}}]}},
        "status": {"allocation": {"devices": {"results": [{**allocated, **result}]}}},
    }


def counts(workspace, *nodes: str) -> dict[str, list[tuple[str, int, int]]]:
    return {
        node: [(u.resource, u.requested, u.allocatable) for u in usages]
        for node, usages in node_devices(workspace, nodes).items()
    }


def test_a_device_held_only_with_admin_access_is_not_in_use(workspace):
    store(workspace, gpu_slice("n1", [{"name": "gpu-0"}, {"name": "gpu-1"}], nodeName="n1"))
    store(workspace, claim("train", "n1", "gpu-0"))
    store(workspace, claim("monitor", "n1", "gpu-1", adminAccess=True))
    assert counts(workspace, "n1") == {"n1": [("gpu.example.com", 1, 2)]}


def test_per_device_node_selection_counts_each_device_on_its_node(workspace):
    devices = [{"name": "gpu-0", "nodeName": "n1"}, {"name": "gpu-1", "nodeName": "n2"}]
    store(workspace, gpu_slice("rack", devices, perDeviceNodeSelection=True))
    store(workspace, claim("train", "rack", "gpu-1"))
    assert counts(workspace, "n1", "n2", "n3") == {
        "n1": [("gpu.example.com", 0, 1)],
        "n2": [("gpu.example.com", 1, 1)],
    }
