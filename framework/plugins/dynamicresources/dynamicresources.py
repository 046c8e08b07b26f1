"""DynamicResources: ResourceClaims and extended resources backed by DRA.

What the simulator covers: every path a pod without ResourceClaims takes, exactly as upstream
(PreFilter Skip, PostFilter's "no new claims to deallocate", Score 0), including DRA extended
resources, for a cluster without ResourceSlices (none can be loaded). Pods that reference
ResourceClaims are rejected at PreFilter: claim allocation is not simulated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.api.field_errors import aggregate_message
from framework.api.pod import Pod
from framework.config.types import DynamicResourcesArgs
from framework.config.validation_pluginargs import validate_dynamic_resources_args
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import NodeInfo
from framework.interface.plugins import (
    BatchScoreExtensions,
    BatchScorePlugin,
    EnqueueExtensions,
    FilterPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
    SignPlugin,
)
from framework.interface.status import Code, Status
from framework.interface.types import (
    MAX_NODE_SCORE,
    NodeScore,
    NodeToStatus,
    PostFilterResult,
    PreBindPreFlightResult,
    PreFilterResult,
    SignFragment,
)
from framework.plugins import names
from framework.plugins.dynamicresources.extended_resources import (
    DeviceClassResolver,
    dra_extended_resources,
    has_device_class_mapped_resource,
    resources_needing_dra,
)
from framework.plugins.feature import Features
from framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from framework.storage import lookup

STATE_KEY = names.DYNAMIC_RESOURCES

ERR_CLAIMS_NOT_SIMULATED = "resource claims are not simulated yet"
RESOURCE_CLAIM_KIND = "ResourceClaim"


class _StateData:
    """The pod's claims: none, or only the in-memory claim for DRA extended resources."""

    __slots__ = ("extended_resource_claim", "pod_scalar_resources", "resolver")

    def __init__(self) -> None:
        self.extended_resource_claim = False
        self.pod_scalar_resources: dict[str, int] = {}
        self.resolver: DeviceClassResolver | None = None

    def claims_empty(self) -> bool:
        return not self.extended_resource_claim

    def clone(self) -> _StateData:
        return self


class DynamicResources(
    PreEnqueuePlugin,
    PreFilterPlugin,
    FilterPlugin,
    PostFilterPlugin,
    BatchScorePlugin,
    BatchScoreExtensions,
    ReservePlugin,
    PreBindPlugin,
    EnqueueExtensions,
    SignPlugin,
):
    """Allocates ResourceClaims in upstream; here: claim-less pods and DRA extended resources."""

    name = names.DYNAMIC_RESOURCES

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle
        self.features = features
        self.enabled = features.enable_dynamic_resource_allocation
        if not self.enabled:
            # Disabled: the plugin does nothing and needs no args.
            return
        if not isinstance(args, DynamicResourcesArgs):
            raise ValueError(f"got args of type {_type_name(args)}, want *DynamicResourcesArgs")
        errors = validate_dynamic_resources_args(None, args, _Gates(features))
        if errors:
            raise ValueError(aggregate_message(errors))
        self.args = args

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Claims may span nodes in ways a signature cannot show: such pods are not signed."""
        if pod_resource_claims(pod):
            return None, Status(
                Code.UNSCHEDULABLE, "pods with dra resource claims are not signable"
            )
        return None, None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enabled:
            return []
        # Without hints the queue's pre-check may swallow a Node/Add (upstream issue 109437).
        node_actions = (
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE
        )
        if not self.features.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        add_or_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.RESOURCE_CLAIM, add_or_update),
                self.is_schedulable_after_claim_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self.is_schedulable_after_pod_change,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_or_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_or_update)),
        ]

    def is_schedulable_after_claim_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """A deallocated claim frees devices; otherwise only the pod's own claims matter."""
        original = _of_kind(RESOURCE_CLAIM_KIND, old_obj)
        modified = _of_kind(RESOURCE_CLAIM_KIND, new_obj)
        if pod_resource_claims(pod):
            # Claims are not simulated: let the pod try again rather than strand it.
            return QueueingHint.QUEUE
        if (
            original is not None
            and _allocation(original) is not None
            and (_allocation(modified) is None)
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """The pod's generated claims got their names: schedulable if all claims exist."""
        if not isinstance(new_obj, Pod):
            raise TypeError(f"expected Pod, but got {type(new_obj).__name__}")
        if pod.uid != new_obj.uid:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # -- PreEnqueue, PreFilter -----------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        # Upstream checks that every claim exists; a pod without claims always passes, and a
        # pod with claims is let through so PreFilter can say they are not simulated.
        return None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.SKIP)
        data = _StateData()
        state.write(STATE_KEY, data)
        if pod_resource_claims(pod):
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_CLAIMS_NOT_SIMULATED)
        if self.features.enable_dra_extended_resource:
            self._pre_filter_extended_resources(pod, data)
        if data.claims_empty():
            return None, Status(Code.SKIP)
        return None, None

    def _pre_filter_extended_resources(self, pod: Pod, data: _StateData) -> None:
        """Notes the in-memory claim a pod gets when a DeviceClass serves its extended resources.

        A claim left by an earlier cycle cannot exist: the simulator holds no ResourceClaims.
        """
        scalar_resources = dra_extended_resources(pod)
        if scalar_resources is None:
            return
        resolver = DeviceClassResolver.of_cluster(self.handle.cluster())
        if not has_device_class_mapped_resource(scalar_resources, resolver):
            return
        data.extended_resource_claim = True
        data.pod_scalar_resources = scalar_resources
        data.resolver = resolver

    # -- Filter, PostFilter, Score -------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        data, status = _read_state(state)
        if data is None:
            return status
        if data.claims_empty():
            return None
        needed, unmet = resources_needing_dra(
            data.pod_scalar_resources,
            node_info,
            data.resolver,  # type: ignore[arg-type]
        )
        if unmet is not None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot fit resource")
        if not needed:
            # The node's device plugin provides them; NodeResourcesFit counts them.
            return None
        # Allocating needs devices from ResourceSlices, and the simulator has none.
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.UNSCHEDULABLE, "plugin disabled")
        data, status = _read_state(state)
        if data is None:
            return None, status
        if data.claims_empty():
            return None, Status(Code.UNSCHEDULABLE, "no new claims to deallocate")
        # Only the in-memory extended resource claim exists: nothing to deallocate or delete.
        return None, Status(Code.UNSCHEDULABLE, "still not schedulable")

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if not self.enabled or not self.features.enable_dra_prioritized_list:
            return 0, None
        data, status = _read_state(state)
        if data is None:
            return 0, status
        # Without allocated subrequests there is nothing to prefer.
        return 0, None

    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Every node scores the same, so the state is read once."""
        if not self.enabled or not self.features.enable_dra_prioritized_list:
            return [0] * len(node_infos), None
        data, status = _read_state(state)
        return [0] * len(node_infos), status if data is None else None

    def score_extensions(self) -> BatchScoreExtensions:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        if not self.enabled:
            return None
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def normalize_score_values(
        self, state: CycleState, pod: Pod, scores: list[int]
    ) -> Status | None:
        if not self.enabled:
            return None
        return default_normalize_score_values(MAX_NODE_SCORE, False, scores)

    # -- Reserve, PreBind ----------------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        data, status = _read_state(state)
        if data is None:
            return status
        # Nothing is allocated: the extended resources come from the node's device plugin.
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind_pre_flight(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[PreBindPreFlightResult | None, Status | None]:
        result = PreBindPreFlightResult(allow_parallel=True)
        if not self.enabled:
            return result, Status(Code.SKIP)
        data, status = _read_state(state)
        if data is None:
            return result, status
        if data.claims_empty():
            return result, Status(Code.SKIP)
        return result, None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        data, status = _read_state(state)
        if data is None:
            return status
        # The in-memory claim of a device-plugin node is not written to the cluster.
        return None


def pod_resource_claims(pod: Pod) -> list[Any]:
    """``spec.resourceClaims`` (read from the manifest: the API layer does not parse it)."""
    return lookup.manifest_field(pod, "spec", "resourceClaims") or []


def _read_state(state: CycleState) -> tuple[_StateData | None, Status | None]:
    try:
        return state.read(STATE_KEY), None  # type: ignore[return-value]
    except NotFoundError as err:
        return None, Status.as_status(err)


def _allocation(claim: Any) -> Any:
    return lookup.manifest_field(claim, "status", "allocation")


def _of_kind(kind: str, obj: Any) -> Any:
    if obj is not None and getattr(obj, "kind", None) != kind:
        raise TypeError(f"expected {kind}, but got {type(obj).__name__}")
    return obj


class _Gates:
    """The feature gates args validation asks about, answered from the plugin's switches."""

    def __init__(self, features: Features) -> None:
        self._enabled = {
            "DRASchedulerFilterTimeout": features.enable_dra_scheduler_filter_timeout,
            "DRADeviceBindingConditions": features.enable_dra_device_binding_conditions,
            "DRAResourceClaimDeviceStatus": features.enable_dra_resource_claim_device_status,
        }

    def enabled(self, name: str) -> bool:
        return self._enabled[name]


def _type_name(args: Any) -> str:
    """How upstream's ``%T`` shows unexpected args."""
    return "<nil>" if args is None else f"*config.{type(args).__name__}"
