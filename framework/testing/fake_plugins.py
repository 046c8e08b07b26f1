"""Configurable fake plugins, one per extension point, plus one that implements them all.

Each records its calls in ``calls`` so tests can assert order, and returns what it was told.
A factory for the registry is ``lambda args, handle: FakeFilter(...)`` or ``fake.factory()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from framework.interface.cycle_state import CycleState
from framework.interface.events import ClusterEventWithHint
from framework.interface.placement import (
    GeneratePlacementsResult,
    Placement,
    PlacementScore,
    PodGroupAssignments,
)
from framework.interface.plugins import (
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    PermitPlugin,
    PlacementGeneratePlugin,
    PlacementScoreExtensions,
    PlacementScorePlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from framework.interface.status import Code, Status
from framework.interface.types import (
    NodeScore,
    NodeToStatus,
    PostFilterResult,
    PreBindPreFlightResult,
    PreFilterResult,
    QueuedPodInfo,
)

CallLog = list[tuple[str, str]]
"""Shared, ordered record of (plugin name, method) calls."""


class FakePlugin(Plugin):
    """Base: a name and a call log (shared between plugins when a test passes one in)."""

    def __init__(self, name: str, calls: CallLog | None = None) -> None:
        self.name = name
        self.calls: CallLog = calls if calls is not None else []

    def _record(self, method: str) -> None:
        self.calls.append((self.name, method))

    def factory(self) -> Callable[[Any, Any], Plugin]:
        """A registry factory returning this very instance (so tests can inspect it)."""
        return lambda args, handle: self


def _status(code: Code, message: str = "") -> Status | None:
    if code == Code.SUCCESS:
        return None
    return Status(code, message) if message else Status(code)


class FakePreEnqueue(FakePlugin, PreEnqueuePlugin):
    def __init__(self, name: str, code: Code = Code.SUCCESS, message: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self.code, self.message = code, message

    def pre_enqueue(self, pod: Any) -> Status | None:
        self._record("PreEnqueue")
        return _status(self.code, self.message)


class FakeQueueSort(FakePlugin, QueueSortPlugin):
    """Higher priority first, then earlier timestamp (what PrioritySort does)."""

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = a.pod.spec.priority, b.pod.spec.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class FakePreFilter(FakePlugin, PreFilterPlugin, PreFilterExtensions, EnqueueExtensions):
    """Returns ``result`` and ``code``; counts AddPod / RemovePod calls."""

    def __init__(
        self,
        name: str,
        code: Code = Code.SUCCESS,
        message: str = "",
        result: PreFilterResult | None = None,
        with_extensions: bool = True,
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.code, self.message, self.result = code, message, result
        self.with_extensions = with_extensions
        self.extension_code = Code.SUCCESS

    def pre_filter(
        self, state: CycleState, pod: Any, nodes: list[Any]
    ) -> tuple[PreFilterResult | None, Status | None]:
        self._record("PreFilter")
        return self.result, _status(self.code, self.message)

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self if self.with_extensions else None

    def add_pod(self, state: CycleState, pod: Any, pod_info: Any, node_info: Any) -> Status | None:
        self._record("AddPod")
        return _status(self.extension_code, "injected")

    def remove_pod(
        self, state: CycleState, pod: Any, pod_info: Any, node_info: Any
    ) -> Status | None:
        self._record("RemovePod")
        return _status(self.extension_code, "injected")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []


class FakeFilter(FakePlugin, FilterPlugin, EnqueueExtensions):
    """Fails the nodes in ``fail_nodes`` with ``code`` (every node when ``fail_nodes`` is None)."""

    def __init__(
        self,
        name: str,
        code: Code = Code.SUCCESS,
        message: str = "",
        fail_nodes: set[str] | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.code, self.message, self.fail_nodes = code, message, fail_nodes
        self.num_calls = 0

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status | None:
        self.num_calls += 1
        self._record("Filter")
        if self.fail_nodes is not None and node_info.node_name not in self.fail_nodes:
            return None
        return _status(self.code, self.message)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []


class FakePostFilter(FakePlugin, PostFilterPlugin):
    def __init__(
        self,
        name: str,
        code: Code = Code.UNSCHEDULABLE,
        message: str = "",
        result: PostFilterResult | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.code, self.message, self.result = code, message, result

    def post_filter(
        self, state: CycleState, pod: Any, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        self._record("PostFilter")
        return self.result, _status(self.code, self.message)


class FakePreScore(FakePlugin, PreScorePlugin):
    def __init__(self, name: str, code: Code = Code.SUCCESS, message: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self.code, self.message = code, message

    def pre_score(self, state: CycleState, pod: Any, nodes: list[Any]) -> Status | None:
        self._record("PreScore")
        return _status(self.code, self.message)


class FakeScore(FakePlugin, ScorePlugin, ScoreExtensions):
    """Scores from ``scores`` (node -> int, default ``default``); normalizes by ``normalize``."""

    def __init__(
        self,
        name: str,
        scores: dict[str, int] | None = None,
        default: int = 1,
        code: Code = Code.SUCCESS,
        normalize: Callable[[list[NodeScore]], Status | None] | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.scores, self.default, self.code, self.normalize = (
            scores or {},
            default,
            code,
            normalize,
        )

    def score(self, state: CycleState, pod: Any, node_info: Any) -> tuple[int, Status | None]:
        self._record("Score")
        return self.scores.get(node_info.node_name, self.default), _status(self.code, "injected")

    def score_extensions(self) -> ScoreExtensions | None:
        return self if self.normalize is not None else None

    def normalize_score(
        self, state: CycleState, pod: Any, scores: list[NodeScore]
    ) -> Status | None:
        self._record("NormalizeScore")
        return self.normalize(scores) if self.normalize is not None else None


class FakeReserve(FakePlugin, ReservePlugin, EnqueueExtensions):
    def __init__(self, name: str, code: Code = Code.SUCCESS, message: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self.code, self.message = code, message

    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        self._record("Reserve")
        return _status(self.code, self.message)

    def unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        self._record("Unreserve")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []


class FakePermit(FakePlugin, PermitPlugin, EnqueueExtensions):
    def __init__(
        self,
        name: str,
        code: Code = Code.SUCCESS,
        timeout: float = 0.0,
        message: str = "",
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.code, self.timeout, self.message = code, timeout, message

    def permit(self, state: CycleState, pod: Any, node_name: str) -> tuple[Status | None, float]:
        self._record("Permit")
        return _status(self.code, self.message), self.timeout

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []


class FakePreBind(FakePlugin, PreBindPlugin):
    def __init__(
        self,
        name: str,
        code: Code = Code.SUCCESS,
        pre_flight_code: Code = Code.SUCCESS,
        allow_parallel: bool = False,
        message: str = "",
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.code, self.pre_flight_code, self.message = code, pre_flight_code, message
        self.allow_parallel = allow_parallel

    def pre_bind_pre_flight(
        self, state: CycleState, pod: Any, node_name: str
    ) -> tuple[PreBindPreFlightResult | None, Status | None]:
        self._record("PreBindPreFlight")
        return PreBindPreFlightResult(self.allow_parallel), _status(
            self.pre_flight_code, self.message
        )

    def pre_bind(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        self._record("PreBind")
        return _status(self.code, self.message)


class FakeBind(FakePlugin, BindPlugin):
    def __init__(self, name: str, code: Code = Code.SUCCESS, message: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self.code, self.message = code, message
        self.bound: list[tuple[str, str]] = []

    def bind(self, state: CycleState, pod: Any, node_name: str) -> Status | None:
        self._record("Bind")
        if self.code == Code.SUCCESS:
            self.bound.append((pod.key, node_name))
        return _status(self.code, self.message)


class FakePostBind(FakePlugin, PostBindPlugin):
    def post_bind(self, state: CycleState, pod: Any, node_name: str) -> None:
        self._record("PostBind")


class AllPointsPlugin(
    FakeQueueSort,
    FakePreFilter,
    FakeFilter,
    FakePostFilter,
    FakePreScore,
    FakeScore,
    FakeReserve,
    FakePermit,
    FakePreBind,
    FakeBind,
    FakePostBind,
    FakePreEnqueue,
):
    """Implements every extension point with success (upstream's ``TestPlugin``)."""

    def __init__(self, name: str, calls: CallLog | None = None) -> None:
        FakePlugin.__init__(self, name, calls)
        self.code = Code.SUCCESS
        self.message = ""
        self.result = None
        self.with_extensions = True
        self.extension_code = Code.SUCCESS
        self.fail_nodes = None
        self.num_calls = 0
        self.scores, self.default, self.normalize = {}, 1, None
        self.timeout = 0.0
        self.pre_flight_code = Code.SUCCESS
        self.allow_parallel = False
        self.bound = []


class FakePlacementGenerate(FakePlugin, PlacementGeneratePlugin):
    """Proposes ``placements`` with ``code`` (upstream's TestPlacementGeneratePlugin)."""

    def __init__(
        self,
        name: str,
        placements: list[Placement] | None = None,
        code: Code = Code.SUCCESS,
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.placements, self.code = placements or [], code

    def generate_placements(
        self, state: Any, pod_group: Any, parent_placement: Placement
    ) -> tuple[GeneratePlacementsResult | None, Status | None]:
        self._record("GeneratePlacements")
        return GeneratePlacementsResult(list(self.placements)), _status(self.code, "injected")


class FakePlacementScore(FakePlugin, PlacementScorePlugin, PlacementScoreExtensions):
    """Scores placements from ``results`` (placement -> (score, status)); normalizes by
    ``normalize`` when given (upstream's testPlacementScorePlugin)."""

    def __init__(
        self,
        name: str,
        results: list[tuple[Placement, int, Status | None]] = (),  # type: ignore[assignment]
        normalize: Callable[[list[PlacementScore]], Status | None] | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(name, **kw)
        self.results = {id(placement): (score, status) for placement, score, status in results}
        self.normalize = normalize

    def score_placement(
        self, state: Any, pod_group: Any, placement: PodGroupAssignments
    ) -> tuple[int, Status | None]:
        self._record("ScorePlacement")
        return self.results.get(id(placement.placement), (0, None))

    def placement_score_extensions(self) -> PlacementScoreExtensions | None:
        return self if self.normalize is not None else None

    def normalize_placement_score(
        self, state: Any, pod_group: Any, scores: list[PlacementScore]
    ) -> Status | None:
        self._record("NormalizePlacementScore")
        return self.normalize(scores) if self.normalize is not None else None


@dataclass(slots=True)
class FakeProposedAssignment:
    """A member and its proposed node, as placement score plugins receive them."""

    pod: Any
    node_name: str

    def get_pod(self) -> Any:
        return self.pod

    def get_node_name(self) -> str:
        return self.node_name
