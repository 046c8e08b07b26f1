"""Pod resource requests and resource-name rules, as the scheduler computes them.

``pod_request_list`` follows ``component-helpers/resource`` ``PodRequests``: the sum of the app
containers and the sidecars running beside them, at least the largest init container plus
the sidecars started before it, pod-level requests when set, plus the pod overhead. The
v1.36 feature defaults apply: pod-level resources and in-place resize (status resources)
are on. ``pod_requests`` gives the same in the integers the scheduler works with: milli-CPU
for ``cpu``, whole units (bytes, counts) for everything else.
"""

from __future__ import annotations

from collections.abc import Mapping

from framework.api.container_totals import ResourceList, add_into, aggregate, max_into
from framework.api.pod import (
    POD_REASON_INFEASIBLE,
    POD_RESIZE_PENDING,
    Container,
    ContainerStatus,
    Pod,
)
from framework.api.quantity import Quantity
from framework.api.resource_names import (
    RESOURCE_CPU,
    RESOURCE_MEMORY,
    is_hugepage_resource_name,
    is_native_resource,
    is_prefixed_native_resource,
    is_supported_pod_level_resource,
)
from framework.api.validation.content import is_qualified_name

RESOURCE_EPHEMERAL_STORAGE = "ephemeral-storage"
RESOURCE_STORAGE = "storage"
RESOURCE_PODS = "pods"
RESOURCE_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"

# What a container that requests nothing counts as when scoring spreads load
# (pkg/scheduler/util/pod_resources.go); never used for fitting.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
DEFAULT_NON_MISSING_CONTAINER_REQUESTS: Mapping[str, Quantity] = {
    RESOURCE_CPU: Quantity.from_milli(DEFAULT_MILLI_CPU_REQUEST),
    RESOURCE_MEMORY: Quantity.from_value(DEFAULT_MEMORY_REQUEST),
}


# -- pod requests ------------------------------------------------------------------------------


def pod_requests(
    pod: Pod,
    *,
    exclude_overhead: bool = False,
    skip_pod_level_resources: bool = False,
    non_missing_container_requests: Mapping[str, Quantity | int] | None = None,
    use_status_resources: bool = True,
    in_place_pod_level_resources_vertical_scaling: bool = True,
) -> dict[str, int]:
    """The pod's requests in scheduler units: milli-CPU for ``cpu``, whole units otherwise.

    ``non_missing_container_requests`` fills in requests a container leaves out (not ones
    set to zero); plain integers there are in the same units as the result.
    """
    requests = pod_request_list(
        pod,
        exclude_overhead=exclude_overhead,
        skip_pod_level_resources=skip_pod_level_resources,
        non_missing_container_requests=non_missing_container_requests,
        use_status_resources=use_status_resources,
        in_place_pod_level_resources_vertical_scaling=in_place_pod_level_resources_vertical_scaling,
    )
    return {name: to_scheduler_units(name, quantity) for name, quantity in requests.items()}


def pod_request_list(
    pod: Pod,
    *,
    exclude_overhead: bool = False,
    skip_pod_level_resources: bool = False,
    non_missing_container_requests: Mapping[str, Quantity | int] | None = None,
    use_status_resources: bool = True,
    in_place_pod_level_resources_vertical_scaling: bool = True,
) -> ResourceList:
    """The pod's requests as exact quantities (upstream ``PodRequests``)."""
    non_missing = _as_quantities(non_missing_container_requests or {})
    requests = aggregate_container_requests(pod, non_missing, use_status_resources)
    pod_level = pod.spec.resources
    if pod_level is not None and not skip_pod_level_resources and is_pod_level_requests_set(pod):
        effective = None
        if in_place_pod_level_resources_vertical_scaling and use_status_resources:
            effective = _effective_pod_level_requests(pod)
        for name, quantity in pod_level.requests.items():
            if is_supported_pod_level_resource(name):
                requests[name] = quantity if effective is None else effective.get(name, Quantity())
    if not exclude_overhead:
        add_into(requests, pod.spec.overhead)
    return requests


def aggregate_container_requests(
    pod: Pod, non_missing: Mapping[str, Quantity], use_status_resources: bool = True
) -> ResourceList:
    """Container-level requests with sidecar semantics (upstream ``AggregateContainerRequests``)."""
    statuses = _container_statuses(pod) if use_status_resources else {}

    def running(container: Container) -> Mapping[str, Quantity]:
        # Status resources (a resize) count for app containers and sidecars only.
        requests = _effective_container_requests(pod, container, statuses)
        return _apply_non_missing(requests, non_missing)

    def init(container: Container) -> Mapping[str, Quantity]:
        return _apply_non_missing(container.resources.requests, non_missing)

    return aggregate(pod.spec.containers, pod.spec.init_containers, running, init)


def aggregate_container_limits(pod: Pod) -> ResourceList:
    """Container-level limits with sidecar semantics (upstream ``AggregateContainerLimits``,
    without status resources): what API validation holds pod-level hugepage limits to."""
    return aggregate(pod.spec.containers, pod.spec.init_containers, lambda c: c.resources.limits)


def non_missing_container_requests(
    requests: Mapping[str, Quantity], pod_level_requests_set: bool
) -> ResourceList:
    """The defaults scoring fills in for missing CPU and memory requests
    (upstream ``getNonMissingContainerRequests``): both without pod-level requests, otherwise
    only those missing at both the container and the pod level."""
    if not pod_level_requests_set:
        return dict(DEFAULT_NON_MISSING_CONTAINER_REQUESTS)
    return {
        name: quantity
        for name, quantity in DEFAULT_NON_MISSING_CONTAINER_REQUESTS.items()
        if name not in requests
    }


def non_zero_requests(pod: Pod, requests: Mapping[str, Quantity] | None = None) -> tuple[int, int]:
    """Milli-CPU and memory bytes with the scoring defaults filled in, as ``NodeInfo`` keeps
    in ``non_zero_requested`` (upstream ``PodInfo.CalculateResource``). Pass the pod's
    ``pod_request_list`` as ``requests`` if it is already at hand."""
    if requests is None:
        requests = pod_request_list(pod)
    defaults = non_missing_container_requests(requests, is_pod_level_requests_set(pod))
    if defaults:
        requests = pod_request_list(pod, non_missing_container_requests=defaults)
    cpu = requests.get(RESOURCE_CPU, Quantity())
    memory = requests.get(RESOURCE_MEMORY, Quantity())
    return cpu.milli_value(), memory.value()


def to_scheduler_units(name: str, quantity: Quantity) -> int:
    """Milli-units for CPU, whole units for every other resource."""
    return quantity.milli_value() if name == RESOURCE_CPU else quantity.value()


# -- pod-level resources -----------------------------------------------------------------------


def is_pod_level_requests_set(pod: Pod) -> bool:
    resources = pod.spec.resources
    return resources is not None and any(
        is_supported_pod_level_resource(name) for name in resources.requests
    )


def is_pod_level_resources_set(pod: Pod) -> bool:
    resources = pod.spec.resources
    return resources is not None and any(
        is_supported_pod_level_resource(name) for name in (*resources.requests, *resources.limits)
    )


# -- in-place resize ---------------------------------------------------------------------------


def is_pod_resize_infeasible(pod: Pod) -> bool:
    condition = pod.status.condition(POD_RESIZE_PENDING)
    return condition is not None and condition.reason == POD_REASON_INFEASIBLE


def _effective_requests(
    pod: Pod,
    spec: Mapping[str, Quantity],
    actuated: Mapping[str, Quantity],
    allocated: Mapping[str, Quantity],
) -> ResourceList:
    """While a resize is pending, reserve the larger of what is asked, running and allocated;
    an infeasible resize no longer counts what was asked."""
    if is_pod_resize_infeasible(pod):
        return _max_of(actuated, allocated)
    return _max_of(spec, actuated, allocated)


def _effective_container_requests(
    pod: Pod, container: Container, statuses: Mapping[str, ContainerStatus]
) -> Mapping[str, Quantity]:
    status = statuses.get(container.name)
    if status is None or status.resources is None:
        return container.resources.requests
    return _effective_requests(
        pod, container.resources.requests, status.resources.requests, status.allocated_resources
    )


def _effective_pod_level_requests(pod: Pod) -> ResourceList | None:
    if pod.status.resources is None or pod.spec.resources is None:
        return None
    return _effective_requests(
        pod,
        pod.spec.resources.requests,
        pod.status.resources.requests,
        pod.status.allocated_resources,
    )


def _container_statuses(pod: Pod) -> dict[str, ContainerStatus]:
    statuses = {s.name: s for s in pod.status.container_statuses}
    statuses.update((s.name, s) for s in pod.status.init_container_statuses)
    return statuses


# -- resource lists ----------------------------------------------------------------------------


def _max_of(first: Mapping[str, Quantity], *others: Mapping[str, Quantity]) -> ResourceList:
    result = dict(first)
    for other in others:
        max_into(result, other)
    return result


def _apply_non_missing(
    requests: Mapping[str, Quantity], non_missing: Mapping[str, Quantity]
) -> Mapping[str, Quantity]:
    if not non_missing:
        return requests
    filled = dict(requests)
    for name, quantity in non_missing.items():
        if name not in requests:
            filled[name] = quantity
    return filled


def _as_quantities(values: Mapping[str, Quantity | int]) -> ResourceList:
    result: ResourceList = {}
    for name, value in values.items():
        if isinstance(value, Quantity):
            result[name] = value
        elif name == RESOURCE_CPU:
            result[name] = Quantity.from_milli(value)
        else:
            result[name] = Quantity.from_value(value)
    return result


# -- resource names ----------------------------------------------------------------------------


def is_extended_resource_name(name: str) -> bool:
    """A vendor resource such as ``example.com/gpu``."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


def is_attachable_volume_resource_name(name: str) -> bool:
    return name.startswith(RESOURCE_ATTACHABLE_VOLUMES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    """Resources ``NodeInfo`` tracks in ``scalar_resources`` rather than in named fields."""
    return (
        is_extended_resource_name(name)
        or is_hugepage_resource_name(name)
        or is_prefixed_native_resource(name)
        or is_attachable_volume_resource_name(name)
    )


def is_dra_extended_resource_name(name: str) -> bool:
    return is_extended_resource_name(name) or name.startswith(RESOURCE_DEVICE_CLASS_PREFIX)
