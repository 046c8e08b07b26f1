"""Extended resources backed by DRA: requests like ``example.com/gpu`` a DeviceClass serves.

With DRAExtendedResource on, a pod's extended resource that some DeviceClass maps (through
``spec.extendedResourceName``, or implicitly as ``deviceclass.resource.kubernetes.io/<class>``)
may be satisfied either by a device plugin on the node or by DRA devices. The simulator holds
no ResourceSlices, so no node ever offers DRA devices: a node satisfies such a request only
through its allocatable (device plugin), which is what upstream concludes on such a cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.pod import Pod
from framework.api.resources import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    is_dra_extended_resource_name,
    pod_request_list,
)
from framework.interface.node_info import NodeInfo, Resource
from framework.storage import lookup

DEVICE_CLASS_KIND = "DeviceClass"


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
