"""Extended resources backed by DRA: requests like ``example.com/gpu`` a DeviceClass serves.

With DRAExtendedResource on, a pod's extended resource that some DeviceClass maps (through
``spec.extendedResourceName``, or implicitly as ``deviceclass.resource.kubernetes.io/<class>``)
is satisfied either by a device plugin on the node (the node's allocatable lists it) or by
DRA devices. For the DRA part the plugin uses one special claim per pod: PreFilter makes it
in memory (name ``<extended-resources>``, no requests), Filter gives each node its own copy
with one request per container and resource the node must serve through DRA, the allocator
fills it, and PreBind creates it in the cluster, owned by the pod. This module builds those
claims and the pod's request mappings (``status.extendedResourceClaimStatus``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from framework.api.meta import controller_reference
from framework.api.pod import Container, Pod
from framework.api.quantity import Quantity
from framework.api.resource_claim import DEVICE_ALLOCATION_MODE_EXACT_COUNT, ResourceClaim
from framework.api.resources import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    is_dra_extended_resource_name,
    pod_request_list,
)
from framework.interface.node_info import NodeInfo, Resource
from framework.storage import lookup

DEVICE_CLASS_KIND = "DeviceClass"

SPECIAL_CLAIM_IN_MEM_NAME = "<extended-resources>"
"""The in-memory claim's name: not a valid name, so it never clashes with a real claim."""

EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
"""resourceapi.ExtendedResourceClaimAnnotation: set to "true" on the claim PreBind creates."""

_TEMPORARY_UID_NAMESPACE = uuid.UUID("3e0c8a51-2f6b-4c1e-9d7a-5b8e4f2a9c60")


class DeviceClassResolver:
    """Which DeviceClass serves an extended resource name (upstream's extended resource cache)."""

    def __init__(self, device_classes: list[Any]) -> None:
        self._classes: dict[str, Any] = {}
        for device_class in device_classes:
            self._classes[RESOURCE_DEVICE_CLASS_PREFIX + device_class.name] = device_class
            explicit = lookup.manifest_field(device_class, "spec", "extendedResourceName")
            if explicit:
                self._classes[explicit] = device_class

    @classmethod
    def of_cluster(cls, cluster: Any) -> DeviceClassResolver:
        return cls(lookup.list_objects(cluster, DEVICE_CLASS_KIND))

    def get_device_class(self, resource_name: str) -> Any | None:
        return self._classes.get(resource_name)


def dra_extended_resources(pod: Pod) -> dict[str, int] | None:
    """The pod's scalar requests when some could be DRA extended resources, else None.

    Reads the requests as upstream's ``PodRequests`` with default options does.
    """
    if not _names_any_extended_resource(pod):
        return None
    requests = pod_request_list(
        pod, use_status_resources=False, in_place_pod_level_resources_vertical_scaling=False
    )
    if not any(
        is_dra_extended_resource_name(name) and not quantity.is_zero()
        for name, quantity in requests.items()
    ):
        return None
    return Resource.from_resource_list(requests).scalar_resources


def _names_any_extended_resource(pod: Pod) -> bool:
    """A cheap first look, so most pods never have their requests summed here."""
    names_seen = set(pod.spec.overhead)
    for container in (*pod.spec.containers, *pod.spec.init_containers):
        names_seen.update(container.resources.requests)
        names_seen.update(container.resources.limits)
    return any(is_dra_extended_resource_name(name) for name in names_seen)


def has_device_class_mapped_resource(
    scalar_resources: Mapping[str, int], resolver: DeviceClassResolver
) -> bool:
    return any(
        amount != 0
        and is_dra_extended_resource_name(name)
        and resolver.get_device_class(name) is not None
        for name, amount in scalar_resources.items()
    )


def resources_needing_dra(
    scalar_resources: Mapping[str, int], node_info: NodeInfo, resolver: DeviceClassResolver
) -> tuple[dict[str, int], str | None]:
    """The requests the node could only meet through DRA, or the name of one it cannot meet.

    A resource the node's allocatable lists (a device plugin) is left to NodeResourcesFit.
    """
    needed: dict[str, int] = {}
    allocatable = node_info.allocatable.scalar_resources
    for name, amount in scalar_resources.items():
        if not is_dra_extended_resource_name(name) or amount == 0:
            continue
        backed_by_dra = resolver.get_device_class(name) is not None
        if backed_by_dra and allocatable.get(name, 0) == 0:
            needed[name] = amount
        elif name not in allocatable:
            return {}, name
    return needed, None


# -- the special claim ---------------------------------------------------------------------------


def find_extended_resource_claim(pod: Pod, claims: list[ResourceClaim]) -> ResourceClaim | None:
    """The claim an earlier cycle created for the pod: annotated and controlled by the pod."""
    for claim in claims:
        if claim.metadata.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for owner in claim.metadata.owner_references:
            if owner.name == pod.name and owner.controller and owner.uid == pod.uid:
                return claim
    return None


def in_memory_claim(pod: Pod) -> ResourceClaim:
    """The claim PreFilter starts from: no requests yet, owned by the pod, a temporary UID.

    Upstream's temporary UID is random; this one is derived from the pod's UID, so that
    simulations are reproducible (it is only used to track the allocation in flight).
    """
    return ResourceClaim.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": SPECIAL_CLAIM_IN_MEM_NAME,
                "generateName": f"{pod.name}-extended-resources-",
                "namespace": pod.namespace,
                "uid": str(uuid.uuid5(_TEMPORARY_UID_NAMESPACE, pod.uid)),
                "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
                "ownerReferences": [controller_reference(pod)],
            },
            "spec": {},
        }
    )


def is_special_claim_name(name: str) -> bool:
    return name == SPECIAL_CLAIM_IN_MEM_NAME


def with_requests(claim: ResourceClaim, requests: list[dict[str, Any]]) -> ResourceClaim:
    """A copy of the in-memory claim asking for ``requests`` (one node's variant)."""
    manifest = claim.to_dict()
    manifest["spec"] = {"devices": {"requests": requests}}
    return ResourceClaim.from_dict(manifest)


def for_creation(claim: ResourceClaim, name: str) -> ResourceClaim:
    """The node's claim as PreBind creates it: its generated name, no UID, no status."""
    manifest = claim.to_dict()
    metadata = dict(manifest["metadata"])
    metadata["name"] = name
    metadata.pop("uid", None)
    manifest["metadata"] = metadata
    manifest.pop("status", None)
    return ResourceClaim.from_dict(manifest)


# -- requests and mappings -----------------------------------------------------------------------


def create_requests_and_mappings(
    pod: Pod, extended_resources: Mapping[str, int], resolver: DeviceClassResolver
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The device requests for what the node serves through DRA, and which container and
    resource each request is for (``createRequestsAndMappings``).

    Requests are named ``container-<i>-request-<j>``: ``i`` indexes init containers then
    containers, ``j`` the resource among the container's sorted request names. Long-lived
    containers (regular ones and sidecars) get their own devices; the other init containers
    run one at a time, so they reuse the devices of the long-lived containers after them and
    share the largest extra request among themselves.
    """
    containers = [*pod.spec.init_containers, *pod.spec.containers]
    num_init = len(pod.spec.init_containers)
    long_lived, short_lived = _partition_container_indices(containers, num_init)
    requests: list[dict[str, Any]] = []
    mappings: list[dict[str, str]] = []
    for resource in sorted(extended_resources):
        device_class = resolver.get_device_class(resource)
        if device_class is None:
            continue
        long_lived_requests: list[dict[str, Any] | None] = [None] * len(containers)
        long_lived_mappings: list[dict[str, str]] = []
        for i in long_lived:
            request, container_mappings = _request_and_mappings(
                i, containers[i], resource, device_class.name, []
            )
            long_lived_requests[i] = request
            long_lived_mappings.extend(container_mappings)
        largest_short_lived: dict[str, Any] | None = None
        short_lived_names: set[str] = set()
        short_lived_mappings: list[dict[str, str]] = []
        for i in short_lived:
            request, container_mappings = _request_and_mappings(
                i, containers[i], resource, device_class.name, long_lived_requests[i:]
            )
            if request is not None:
                short_lived_names.add(request["name"])
                if largest_short_lived is None or _count(largest_short_lived) < _count(request):
                    largest_short_lived = request
            short_lived_mappings.extend(container_mappings)
        if largest_short_lived is not None and len(short_lived_names) > 1:
            short_lived_names.discard(largest_short_lived["name"])
            for mapping in short_lived_mappings:
                if mapping["requestName"] in short_lived_names:
                    mapping["requestName"] = largest_short_lived["name"]
        if largest_short_lived is not None:
            requests.append(largest_short_lived)
        requests.extend(r for r in long_lived_requests if r is not None)
        mappings.extend(long_lived_mappings)
        mappings.extend(short_lived_mappings)
    requests.sort(key=lambda request: request["name"])
    return requests, mappings


def _partition_container_indices(
    containers: list[Container], num_init: int
) -> tuple[list[int], list[int]]:
    """Indices of long-lived containers (regular and sidecars) and of the other init ones."""
    long_lived, short_lived = [], []
    for i, container in enumerate(containers):
        if i < num_init and not container.is_restartable_init_container:
            short_lived.append(i)
        else:
            long_lived.append(i)
    return long_lived, short_lived


def _request_and_mappings(
    index: int,
    container: Container,
    resource: str,
    class_name: str,
    reusable: list[dict[str, Any] | None],
) -> tuple[dict[str, Any] | None, list[dict[str, str]]]:
    """The container's request for the resource (None if reused devices suffice or it asks
    for none) and its mappings (``createResourceRequestAndMappings``)."""
    requests = container.resources.requests
    quantity = requests.get(resource)
    wanted = _as_int64(quantity) if quantity is not None else None
    if not wanted:
        return None, []
    mappings: list[dict[str, str]] = []
    covered = 0
    for request in reusable:
        if request is None:
            continue
        covered += _count(request)
        mappings.append(_mapping(container, resource, request["name"]))
        if covered >= wanted:
            return None, mappings
    position = sorted(requests).index(resource)
    name = f"container-{index}-request-{position}"
    request = {
        "name": name,
        "exactly": {
            "deviceClassName": class_name,
            "allocationMode": DEVICE_ALLOCATION_MODE_EXACT_COUNT,
            "count": wanted - covered,
        },
    }
    mappings.append(_mapping(container, resource, name))
    return request, mappings


def _mapping(container: Container, resource: str, request_name: str) -> dict[str, str]:
    """One ``ContainerExtendedResourceRequest`` of the pod's status."""
    return {"containerName": container.name, "resourceName": resource, "requestName": request_name}


def _count(request: dict[str, Any]) -> int:
    return request["exactly"]["count"]


def _as_int64(quantity: Quantity) -> int | None:
    """The quantity as a whole number, None when it has a fraction (``AsInt64``)."""
    whole, fraction = divmod(quantity.nanos, 1_000_000_000)
    return None if fraction else whole
