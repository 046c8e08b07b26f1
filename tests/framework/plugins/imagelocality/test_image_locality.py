"""ImageLocality: spread-scaled image sizes between the 23Mi and 1000Mi-per-container bounds."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any

import pytest

from framework.api.node import Node
from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import ImageStateSummary, NodeInfo
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins import names
from framework.plugins.imagelocality.image_locality import (
    ImageLocality,
    calculate_priority,
    normalized_image_name,
)
from tests.framework.builders import StaticLister
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import framework_of

MB = 1024 * 1024


def image(size_mb: int, *image_names: str) -> dict[str, Any]:
    return {"names": list(image_names), "sizeBytes": size_mb * MB}


def image_node(name: str, *images: dict[str, Any]) -> Node:
    return Node.from_dict(
        {"kind": "Node", "metadata": {"name": name}, "status": {"images": list(images)}}
    )


def pod_spec(*images: str, init: tuple[str, ...] = (), image_volumes: tuple[str, ...] = ()) -> Pod:
    spec: dict[str, Any] = {
        "containers": [{"name": f"c{i}", "image": x} for i, x in enumerate(images)]
    }
    if init:
        spec["initContainers"] = [{"name": f"i{i}", "image": x} for i, x in enumerate(init)]
    if image_volumes:
        spec["volumes"] = [
            {"name": f"v{i}", "image": {"reference": ref}} for i, ref in enumerate(image_volumes)
        ]
    return Pod.from_dict({"kind": "Pod", "metadata": {"name": "p"}, "spec": spec})


def snapshot(nodes: list[Node]) -> list[NodeInfo]:
    """NodeInfos with image states as the scheduler cache builds them: every name of every
    image, with its size and on how many nodes that name is present."""
    holders: dict[str, set[str]] = defaultdict(set)
    for node in nodes:
        for img in node.status.images:
            for image_name in img.names:
                holders[image_name].add(node.name)
    node_infos = []
    for node in nodes:
        node_info = NodeInfo()
        node_info.set_node(node)
        node_info.image_states = {
            image_name: ImageStateSummary(img.size_bytes, len(holders[image_name]))
            for img in node.status.images
            for image_name in img.names
        }
        node_infos.append(node_info)
    return node_infos


NODE_40_300_2000 = (
    image(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
    image(300, "gcr.io/300:latest", "gcr.io/300:v1"),
    image(2000, "gcr.io/2000:latest"),
)
NODE_250_10 = (image(250, "gcr.io/250:latest"), image(10, "gcr.io/10:latest", "gcr.io/10:v1"))
NODE_600_40_900 = (
    image(600, "gcr.io/600:latest"),
    image(40, "gcr.io/40:latest"),
    image(900, "gcr.io/900:latest"),
)
NODE_300_600_900 = (
    image(300, "gcr.io/300:latest"),
    image(600, "gcr.io/600:latest"),
    image(900, "gcr.io/900:latest"),
)
NODE_4000_30 = (image(4000, "gcr.io/4000:latest"), image(30, "gcr.io/30:latest"))
NODE_20_30_40 = (
    image(20, "gcr.io/20:latest"),
    image(30, "gcr.io/30:latest"),
    image(40, "gcr.io/40:latest"),
)


@pytest.mark.parametrize(
    ("pod", "nodes", "want"),
    [
        # node1: 40M/2 < 23M -> 0; node2: 100 * (250M/2 - 23M) / (1000M * 2 - 23M) = 5
        (
            pod_spec("gcr.io/40", "gcr.io/250"),
            [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_250_10)],
            {"node1": 0, "node2": 5},
        ),
        # node1: 100 * ((40M + 300M)/2 - 23M) / (1000M * 2 - 23M) = 7
        (
            pod_spec("gcr.io/40", "gcr.io/300"),
            [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_250_10)],
            {"node1": 7, "node2": 0},
        ),
        # node1: 4000M/2 >= 1000M * 2 -> 100; node2: 10M/2 < 23M -> 0
        (
            pod_spec("gcr.io/10", "gcr.io/4000"),
            [image_node("node1", *NODE_4000_30), image_node("node2", *NODE_250_10)],
            {"node1": MAX_NODE_SCORE, "node2": 0},
        ),
        # node1: 100 * (4000M/3 - 23M) / (1000M * 2 - 23M) = 66
        (
            pod_spec("gcr.io/10", "gcr.io/4000"),
            [
                image_node("node1", *NODE_4000_30),
                image_node("node2", *NODE_250_10),
                image_node("node3"),
            ],
            {"node1": 66, "node2": 0, "node3": 0},
        ),
        # node1: 100 * (600M * 2/3 + 900M * 2/3 - 23M) / (1000M * 3 - 23M) = 32
        # node2: 100 * (300M * 1/3 + 600M * 2/3 + 900M * 2/3 - 23M) / (1000M * 3 - 23M) = 36
        (
            pod_spec("gcr.io/300", "gcr.io/600", "gcr.io/900"),
            [
                image_node("node1", *NODE_600_40_900),
                image_node("node2", *NODE_300_600_900),
                image_node("node3"),
            ],
            {"node1": 32, "node2": 36, "node3": 0},
        ),
        # node1: 100 * (30M + 40M/2 - 23M) / (1000M * 2 - 23M) = 1
        (
            pod_spec("gcr.io/30", "gcr.io/40"),
            [image_node("node1", *NODE_20_30_40), image_node("node2", *NODE_4000_30)],
            {"node1": 1, "node2": 0},
        ),
        # node1: 100 * (300M/2 - 23M) / (1000M - 23M) = 12
        (
            pod_spec("gcr.io/30", image_volumes=("gcr.io/300",)),
            [image_node("node1", *NODE_300_600_900), image_node("node2", *NODE_4000_30)],
            {"node1": 12, "node2": 0},
        ),
        # node1: 100 * (300M/2 - 23M) / (1000M * 2 - 23M) = 6
        (
            pod_spec("gcr.io/30", init=("gcr.io/300",)),
            [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_20_30_40)],
            {"node1": 6, "node2": 0},
        ),
    ],
    ids=[
        "two images spread on two nodes, prefer the larger image one",
        "two images on one node, prefer this node",
        "if exceed limit, use limit",
        "if exceed limit, use limit (with node which has no images present)",
        "pod with multiple large images, node2 is preferred",
        "pod with multiple small images",
        "pod with an image volume",
        "init containers count: two images spread on two nodes, prefer the larger image one",
    ],
)
def test_it_scores_nodes_by_the_spread_scaled_size_of_present_images(pod, nodes, want):
    node_infos = snapshot(nodes)
    in_tree = InTree(ImageLocality)
    framework_of(
        [in_tree],
        points={"score": [names.IMAGE_LOCALITY]},
        snapshot_shared_lister=StaticLister(node_infos),
    )
    got = {}
    for node_info in node_infos:
        score, status = in_tree.built.score(CycleState(), pod, node_info)
        assert status is None
        got[node_info.node_name] = score
    assert got == want


def fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("root", "root:latest"),
        ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
        ("root:tag", "root:tag"),
        ("root@" + fake_digest("root"), "root@" + fake_digest("root")),
        ("docker.io/library/nginx", "docker.io/library/nginx:latest"),
    ],
    ids=[
        "it adds the latest tag to a bare name",
        "it adds the latest tag after a registry port",
        "it keeps a tag",
        "it keeps a digest",
        "it does not strip or add the default registry",
    ],
)
def test_it_normalizes_image_names_only_by_adding_the_latest_tag(name, want):
    assert normalized_image_name(name) == want


@pytest.mark.parametrize(
    ("sum_scores", "num_containers", "want"),
    [
        (0, 1, 0),
        (23 * MB, 1, 0),
        (1000 * MB, 1, MAX_NODE_SCORE),
        (5000 * MB, 2, MAX_NODE_SCORE),
        (200 * MB, 1, 18),
    ],
    ids=[
        "nothing present scores 0",
        "the minimum threshold scores 0",
        "the per-container maximum scores 100",
        "anything above the maximum is capped",
        "in between it scales linearly, rounding down",
    ],
)
def test_it_maps_the_image_sum_between_the_thresholds(sum_scores, num_containers, want):
    assert calculate_priority(sum_scores, num_containers) == want
