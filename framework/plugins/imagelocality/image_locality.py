"""ImageLocality: favours nodes that already hold the pod's images, weighted by image size.

An image's size counts in proportion to how many nodes have it, so one popular image does not
pull every pod onto the few nodes that happen to have it (the "node heating" problem).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.plugins import BatchScorePlugin, SignPlugin
from framework.interface.signers import IMAGE_NAMES_SIGNER_NAME
from framework.interface.status import Status
from framework.interface.types import MAX_NODE_SCORE, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.util.gomath import go_div

if TYPE_CHECKING:
    from framework.interface.node_info import ImageStateSummary, NodeInfo

MB = 1024 * 1024
# Bounds of the score range: about the 90th percentile of compressed image sizes on registries.
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB

_IMAGE_VOLUME = "image"


class ImageLocality(BatchScorePlugin, SignPlugin):
    """Scores by the spread-scaled total size of the pod's images present on the node."""

    name = names.IMAGE_LOCALITY

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """The score depends on the (normalized) images of the containers and init containers."""
        images = {
            normalized_image_name(c.image)
            for c in (*pod.spec.containers, *pod.spec.init_containers)
        }
        return [SignFragment(IMAGE_NAMES_SIGNER_NAME, sorted(images))], None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        total_num_nodes = len(self.handle.snapshot_shared_lister().node_infos().list())
        image_scores = sum_image_scores(node_info, pod, total_num_nodes)
        num_containers = len(pod.spec.init_containers) + len(pod.spec.containers)
        return calculate_priority(image_scores, num_containers), None

    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Names are normalized once; a node that has none of the images scores the floor."""
        total_num_nodes = len(self.handle.snapshot_shared_lister().node_infos().list())
        images = [normalized_image_name(image) for image in _pod_images(pod)]
        num_containers = len(pod.spec.init_containers) + len(pod.spec.containers)
        floor = calculate_priority(0, num_containers)
        scores = [floor] * len(node_infos)
        for index, node_info in enumerate(node_infos):
            image_states = node_info.image_states
            if not image_states or not any(name in image_states for name in images):
                continue
            total = sum(
                scaled_image_score(image_states[name], total_num_nodes)
                for name in images
                if name in image_states
            )
            scores[index] = calculate_priority(total, num_containers)
        return scores, None


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Maps the summed image score linearly onto [0, 100] between the two thresholds."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    """Scaled sizes of the pod's images already on the node: init containers, containers and
    image volumes."""
    image_states = node_info.image_states
    total = 0
    for image in _pod_images(pod):
        image_state = image_states.get(normalized_image_name(image))
        if image_state is not None:
            total += scaled_image_score(image_state, total_num_nodes)
    return total


def scaled_image_score(image_state: ImageStateSummary, total_num_nodes: int) -> int:
    """The image size times the fraction of nodes that have it (float math, as upstream)."""
    spread = float(image_state.num_nodes) / float(total_num_nodes)
    return int(float(image_state.size) * spread)


def normalized_image_name(name: str) -> str:
    """Appends ``:latest`` when the name carries no tag, as container runtimes report it."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def _pod_images(pod: Pod) -> list[str]:
    images = [c.image for c in pod.spec.init_containers]
    images.extend(c.image for c in pod.spec.containers)
    images.extend(
        v.source.get("reference", "") for v in pod.spec.volumes if v.source_kind == _IMAGE_VOLUME
    )
    return images
