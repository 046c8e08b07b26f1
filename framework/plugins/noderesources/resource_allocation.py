"""What every resource-based score shares: the pod's requests, the node's allocatable and
allocated amounts per configured resource, and a strategy that turns them into a score."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING

from framework.api.pod import Pod
from framework.api.resource_names import RESOURCE_CPU, RESOURCE_MEMORY
from framework.api.resources import (
    DEFAULT_NON_MISSING_CONTAINER_REQUESTS,
    RESOURCE_EPHEMERAL_STORAGE,
    is_scalar_resource_name,
    pod_requests,
)
from framework.config.types import ResourceSpec
from framework.interface.node_info import (
    AMOUNT_ALLOCATABLE_CPU,
    AMOUNT_ALLOCATABLE_MEMORY,
    AMOUNT_NON_ZERO_REQUESTED_CPU,
    AMOUNT_NON_ZERO_REQUESTED_MEMORY,
    AMOUNT_REQUESTED_CPU,
    AMOUNT_REQUESTED_MEMORY,
    NodeInfo,
)
from framework.interface.status import Code, Status
from framework.plugins.noderesources.dra_extended_resources import (
    DRAPreScoreState,
    dra_allocatable_and_allocated,
)

if TYPE_CHECKING:
    from framework.interface.placement import PodGroupAssignments

Scorer = Callable[[list[int], list[int], list[int]], int]
"""``scorer(requested, allocated, allocatable) -> score``, lists indexed like the resources.

``requested`` already includes the incoming pod; ``allocated`` is what the node's pods use.
"""

BatchScorer = Callable[[list[int], list[list[int]], list[list[int]]], list[int] | None]
"""``batch(pod_requests, allocatable, allocated) -> scores``: the Scorer over many nodes at once.

``allocatable`` and ``allocated`` hold one column per resource, one entry per node (a resource
left out is a column of zeros). Returns None for a shape it does not handle; the nodes are then
scored one by one.
"""

_COLUMNS: dict[tuple[str, bool], tuple[Callable[[NodeInfo], int], Callable[[NodeInfo], int]]] = {
    (RESOURCE_CPU, False): (
        attrgetter("allocatable.milli_cpu"),
        attrgetter("non_zero_requested.milli_cpu"),
    ),
    (RESOURCE_CPU, True): (attrgetter("allocatable.milli_cpu"), attrgetter("requested.milli_cpu")),
    (RESOURCE_MEMORY, False): (
        attrgetter("allocatable.memory"),
        attrgetter("non_zero_requested.memory"),
    ),
    (RESOURCE_MEMORY, True): (attrgetter("allocatable.memory"), attrgetter("requested.memory")),
}
"""(resource, use_requested) -> readers of a node's allocatable and allocated amounts."""

_AMOUNT_POSITIONS: dict[tuple[str, bool], tuple[int, int]] = {
    (RESOURCE_CPU, False): (AMOUNT_ALLOCATABLE_CPU, AMOUNT_NON_ZERO_REQUESTED_CPU),
    (RESOURCE_CPU, True): (AMOUNT_ALLOCATABLE_CPU, AMOUNT_REQUESTED_CPU),
    (RESOURCE_MEMORY, False): (AMOUNT_ALLOCATABLE_MEMORY, AMOUNT_NON_ZERO_REQUESTED_MEMORY),
    (RESOURCE_MEMORY, True): (AMOUNT_ALLOCATABLE_MEMORY, AMOUNT_REQUESTED_MEMORY),
}
"""The same amounts, as positions in ``NodeInfo.resource_amounts``."""

_RESOURCE_AMOUNTS = attrgetter("resource_amounts")


class ResourceAllocationScorer:
    """Scores a node from per-resource amounts, as configured by a strategy.

    ``use_requested`` picks the node's plain requested amounts for CPU and memory, and the
    pod's plain requests; otherwise both count containers without requests as 100m CPU and
    200Mi memory (the "non-zero" amounts), so empty pods still spread.
    """

    __slots__ = (
        "_is_scalar",
        "batch_scorer",
        "enable_in_place_pod_level_resources_vertical_scaling",
        "enable_in_place_pod_vertical_scaling",
        "enable_pod_level_resources",
        "name",
        "resources",
        "scorer",
        "use_requested",
    )

    def __init__(
        self,
        name: str,
        scorer: Scorer,
        resources: Sequence[ResourceSpec],
        *,
        use_requested: bool = False,
        enable_in_place_pod_vertical_scaling: bool = False,
        enable_pod_level_resources: bool = False,
        enable_in_place_pod_level_resources_vertical_scaling: bool = False,
        batch_scorer: BatchScorer | None = None,
    ) -> None:
        self.name = name
        self.scorer = scorer
        self.batch_scorer = batch_scorer
        self.resources = list(resources)
        self.use_requested = use_requested
        self.enable_in_place_pod_vertical_scaling = enable_in_place_pod_vertical_scaling
        self.enable_pod_level_resources = enable_pod_level_resources
        self.enable_in_place_pod_level_resources_vertical_scaling = (
            enable_in_place_pod_level_resources_vertical_scaling
        )
        self._is_scalar = [is_scalar_resource_name(spec.name) for spec in self.resources]

    def score(
        self, node_info: NodeInfo, pod_requests: list[int], dra: DRAPreScoreState | None = None
    ) -> tuple[int, Status | None]:
        """``dra``: set when a scored resource may be counted from ResourceSlices."""
        if not self.resources:
            return 0, Status(Code.ERROR, "resources not found")
        requested, allocated, allocatable = self.calculate_node_allocatable_request(
            node_info, pod_requests, dra
        )
        return self.scorer(requested, allocated, allocatable), None

    def score_nodes(
        self,
        node_infos: Sequence[NodeInfo],
        pod_requests: list[int],
        dra: DRAPreScoreState | None = None,
    ) -> tuple[list[int], Status | None]:
        """``score`` for every node, each distinct set of amounts scored once.

        Nodes with the same allocatable and allocated amounts get the same score, and most
        nodes of a cluster look alike. The distinct sets are scored by the strategy's batch
        form when it has one, else one by one with ``scorer``. For CPU and memory the node's
        ``resource_amounts`` tuple is read once per node and tells alike nodes apart.
        """
        if not self.resources:
            return [], Status(Code.ERROR, "resources not found")
        if not node_infos:
            return [], None
        positions = self._amount_positions(pod_requests)
        if positions is None:
            allocatable, allocated = self._columns(node_infos, pod_requests, dra)
            keys: list[Hashable] = list(zip(*allocatable, *allocated, strict=True))
            distinct = list(dict.fromkeys(keys))
            shapes = distinct
        else:
            # Nodes with equal amounts share one interned tuple (NodeInfo), so alike nodes are
            # told apart by the tuple's identity: hashing hundreds of tuples cost more than
            # scoring the few distinct ones.
            amounts = list(map(_RESOURCE_AMOUNTS, node_infos))
            keys = list(map(id, amounts))
            by_identity = dict(zip(keys, amounts, strict=True))
            distinct = list(by_identity)
            shapes = [
                tuple(row[i] if i is not None else 0 for i in positions)
                for row in by_identity.values()
            ]
        by_key = dict(zip(distinct, self._score_shapes(shapes, pod_requests), strict=True))
        return list(map(by_key.__getitem__, keys)), None

    def _amount_positions(self, pod_requests: list[int]) -> list[int | None] | None:
        """Where each resource's allocatable, then allocated, amount is in a node's
        ``resource_amounts`` (None: a scalar the pod does not request, always 0); None when
        some amount is not there (ephemeral storage, requested scalars): ``_columns`` reads
        those."""
        allocatable: list[int | None] = []
        allocated: list[int | None] = []
        for i, spec in enumerate(self.resources):
            if pod_requests[i] == 0 and self._is_scalar[i]:
                allocatable.append(None)
                allocated.append(None)
                continue
            positions = _AMOUNT_POSITIONS.get((spec.name, self.use_requested))
            if positions is None:
                return None
            allocatable.append(positions[0])
            allocated.append(positions[1])
        return allocatable + allocated

    def _score_shapes(self, shapes: list[tuple[int, ...]], pod_requests: list[int]) -> list[int]:
        """The scores of distinct shapes (each resource's allocatable, then allocated)."""
        if self.batch_scorer is not None:
            columns = [list(column) for column in zip(*shapes, strict=True)]
            count = len(self.resources)
            scores = self.batch_scorer(pod_requests, columns[:count], columns[count:])
            if scores is not None:
                return scores
        return [self.scorer(*self._amounts(shape, pod_requests)) for shape in shapes]

    def _amounts(
        self, shape: tuple[int, ...], pod_requests: list[int]
    ) -> tuple[list[int], list[int], list[int]]:
        """``calculate_node_allocatable_request``'s lists for a node of this shape."""
        count = len(self.resources)
        requested, allocated, allocatable = [0] * count, [0] * count, [0] * count
        for i in range(count):
            capacity = shape[i]
            if capacity == 0:
                continue
            allocatable[i] = capacity
            allocated[i] = shape[count + i]
            requested[i] = shape[count + i] + pod_requests[i]
        return requested, allocated, allocatable

    def _columns(
        self,
        node_infos: Sequence[NodeInfo],
        pod_requests: list[int],
        dra: DRAPreScoreState | None = None,
    ) -> tuple[list[list[int]], list[list[int]]]:
        """Per resource, every node's allocatable and allocated amounts, as
        ``calculate_node_allocatable_request`` reads them (a node without the resource: 0, 0)."""
        allocatable, allocated = [], []
        for i, spec in enumerate(self.resources):
            if pod_requests[i] == 0 and self._is_scalar[i]:
                zeros = [0] * len(node_infos)
                allocatable.append(zeros)
                allocated.append(zeros)
                continue
            readers = _COLUMNS.get((spec.name, self.use_requested))
            if readers is not None:
                allocatable.append(list(map(readers[0], node_infos)))
                allocated.append(list(map(readers[1], node_infos)))
                continue
            pairs = [
                self.calculate_resource_allocatable_request(n, spec.name, dra) for n in node_infos
            ]
            allocatable.append([capacity for capacity, _ in pairs])
            allocated.append([used if capacity else 0 for capacity, used in pairs])
        return allocatable, allocated

    def score_placement(self, placement: PodGroupAssignments) -> int:
        """The strategy's score of a placement's nodes taken as one: their allocatable and
        requested amounts summed, the proposed members' requests added."""
        count = len(self.resources)
        requested = [0] * count
        for assignment in placement.proposed_assignments:
            pod_requests = self.calculate_pod_resource_request_list(assignment.get_pod())
            requested = [a + b for a, b in zip(requested, pod_requests, strict=True)]
        allocated, allocatable = [0] * count, [0] * count
        for node_info in placement.placement.nodes:
            # ``requested`` only decides which scalar resources count here, as upstream's.
            _, node_allocated, node_allocatable = self.calculate_node_allocatable_request(
                node_info, requested
            )
            for i in range(count):
                allocatable[i] += node_allocatable[i]
                allocated[i] += node_allocated[i]
                requested[i] += node_allocated[i]
        return self.scorer(requested, allocated, allocatable)

    def calculate_node_allocatable_request(
        self, node_info: NodeInfo, pod_requests: list[int], dra: DRAPreScoreState | None = None
    ) -> tuple[list[int], list[int], list[int]]:
        """Per resource: node usage with the pod, node usage without it, node allocatable.

        A scalar resource the pod does not request, and any resource the node does not
        offer, stay 0 in all three lists, which the strategies read as "leave it out".
        """
        count = len(self.resources)
        requested, allocated, allocatable = [0] * count, [0] * count, [0] * count
        for i, spec in enumerate(self.resources):
            if pod_requests[i] == 0 and self._is_scalar[i]:
                continue
            node_allocatable, node_allocated = self.calculate_resource_allocatable_request(
                node_info, spec.name, dra
            )
            if node_allocatable == 0:
                continue
            allocatable[i] = node_allocatable
            allocated[i] = node_allocated
            requested[i] = node_allocated + pod_requests[i]
        return requested, allocated, allocatable

    def calculate_resource_allocatable_request(
        self, node_info: NodeInfo, resource: str, dra: DRAPreScoreState | None = None
    ) -> tuple[int, int]:
        """The node's allocatable amount of ``resource`` and the amount its pods request; for
        an extended resource the node lacks but a DeviceClass maps, its devices (``dra``)."""
        node_requested = node_info.requested if self.use_requested else node_info.non_zero_requested
        if resource == RESOURCE_CPU:
            return node_info.allocatable.milli_cpu, node_requested.milli_cpu
        if resource == RESOURCE_MEMORY:
            return node_info.allocatable.memory, node_requested.memory
        if resource == RESOURCE_EPHEMERAL_STORAGE:
            return node_info.allocatable.ephemeral_storage, node_info.requested.ephemeral_storage
        scalar_allocatable = node_info.allocatable.scalar_resources.get(resource)
        if not scalar_allocatable and dra is not None:
            devices, allocated = dra_allocatable_and_allocated(dra, node_info.node, resource)
            if devices > 0:
                return devices, allocated
        if scalar_allocatable is None:
            return 0, 0
        return scalar_allocatable, node_info.requested.scalar_resources.get(resource, 0)

    def calculate_pod_resource_request_list(self, pod: Pod) -> list[int]:
        """The pod's request of each configured resource (upstream computes the same
        requests once per resource; computing them once gives identical numbers)."""
        requests = pod_requests(
            pod,
            skip_pod_level_resources=not self.enable_pod_level_resources,
            non_missing_container_requests=(
                None if self.use_requested else DEFAULT_NON_MISSING_CONTAINER_REQUESTS
            ),
            use_status_resources=self.enable_in_place_pod_vertical_scaling,
            in_place_pod_level_resources_vertical_scaling=(
                self.enable_in_place_pod_level_resources_vertical_scaling
            ),
        )
        return [requests.get(spec.name, 0) for spec in self.resources]


def is_best_effort_pod(pod_requests: list[int]) -> bool:
    """No configured resource is requested at all."""
    return not any(pod_requests)
