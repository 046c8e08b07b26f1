"""DRA devices as the pages show them: each node's devices in use, each pod's claims.

A node's devices are those its ResourceSlices publish for it (a node-local slice, or a device
of a slice with per-device node selection that names the node); a device is in use when a
ResourceClaim's ``status.allocation`` holds it without admin access, as the DynamicResources
plugin counts it. The
pages read the stored objects, so they show what the API server holds: an allocation made in
Reserve shows once PreBind has written it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from framework.api.loader import parse_object
from framework.api.pod import Pod, PodResourceClaim
from framework.api.resource_claim import AllocationResult, ResourceClaim
from framework.api.resource_slice import ResourceSlice
from framework.plugins.dynamicresources.pod_claims import ClaimError, claim_name
from playground.front.usage import Usage
from playground.workspaces.models import ClusterObject, Workspace

DeviceID = tuple[str, str, str]
"""(driver, pool, device): how an allocation names a device."""


def node_devices(workspace: Workspace, node_names: Iterable[str]) -> dict[str, list[Usage]]:
    """Per node, one usage bar per driver: devices allocated of those published."""
    wanted = set(node_names)
    published: dict[str, dict[str, list[DeviceID]]] = defaultdict(lambda: defaultdict(list))
    for resource_slice in _parsed(workspace, "ResourceSlice"):
        for node, device in _node_local_devices(resource_slice):
            if node in wanted:
                published[node][device[0]].append(device)
    if not published:
        return {}
    allocated = _allocated_devices(workspace)
    return {
        node: [
            Usage(driver, sum(device in allocated for device in devices), len(devices))
            for driver, devices in sorted(by_driver.items())
        ]
        for node, by_driver in published.items()
    }


@dataclass(frozen=True, slots=True)
class PodClaimRow:
    """A claim of the pod (an entry of ``spec.resourceClaims``, or the claim the scheduler
    made for its DRA extended resources) and the ResourceClaim behind it."""

    name: str
    claim: ClusterObject | None
    problem: str
    devices: list[str]
    node: str
    reserved_for: list[str]

    @property
    def allocated(self) -> bool:
        return bool(self.devices)


def pod_claim_rows(workspace: Workspace, pod_row: ClusterObject) -> list[PodClaimRow]:
    """The pod's claims in ``spec.resourceClaims`` order, then the one the scheduler made for
    its extended resources if it has one, each with its allocation if any."""
    pod = parse_object(pod_row.manifest)
    assert isinstance(pod, Pod)
    rows = [_pod_claim_row(workspace, pod, pod_claim) for pod_claim in pod.spec.resource_claims]
    extended = (pod_row.manifest.get("status") or {}).get("extendedResourceClaimStatus")
    if extended:
        rows.append(_extended_resources_row(workspace, pod, extended))
    return rows


def _extended_resources_row(
    workspace: Workspace, pod: Pod, status: Mapping[str, Any]
) -> PodClaimRow:
    """The claim the scheduler made for extended resources a DeviceClass serves, named by
    the resources it holds (``status.extendedResourceClaimStatus``)."""
    resources = sorted({m.get("resourceName", "") for m in status.get("requestMappings") or ()})
    label = f"extended resources ({', '.join(resources)})"
    return _claim_row(workspace, pod, label, status.get("resourceClaimName") or "")


def _pod_claim_row(workspace: Workspace, pod: Pod, pod_claim: PodResourceClaim) -> PodClaimRow:
    try:
        name, _ = claim_name(pod, pod_claim)
    except ClaimError as err:
        return PodClaimRow(pod_claim.name, None, str(err), [], "", [])
    return _claim_row(workspace, pod, pod_claim.name, name or "")


def _claim_row(workspace: Workspace, pod: Pod, label: str, name: str) -> PodClaimRow:
    row = ClusterObject.objects.filter(
        workspace=workspace, kind="ResourceClaim", namespace=pod.namespace, name=name
    ).first()
    if row is None:
        return PodClaimRow(label, None, f'ResourceClaim "{name}" not found', [], "", [])
    claim = parse_object(row.manifest)
    assert isinstance(claim, ResourceClaim)
    allocation = claim.status.allocation
    devices = [f"{r.driver}/{r.pool}/{r.device}" for r in allocation.results] if allocation else []
    return PodClaimRow(
        name=label,
        claim=row,
        problem="",
        devices=devices,
        node=_allocated_node(allocation) if allocation else "",
        reserved_for=[ref.name for ref in claim.status.reserved_for],
    )


def _allocated_node(allocation: AllocationResult) -> str:
    """The node an allocation is pinned to, when its node selector names one by hostname."""
    selector = allocation.node_selector
    if selector is None:
        return ""
    for term in selector.node_selector_terms:
        for requirement in term.match_fields:
            if requirement.key == "metadata.name" and len(requirement.values) == 1:
                return requirement.values[0]
    return ""


def _parsed(workspace: Workspace, kind: str) -> list[Any]:
    rows = ClusterObject.objects.filter(workspace=workspace, kind=kind).order_by("name")
    return [parse_object(row.manifest) for row in rows]


def _node_local_devices(resource_slice: ResourceSlice) -> list[tuple[str, DeviceID]]:
    spec = resource_slice.spec
    devices = []
    for device in spec.devices:
        node = spec.node_name or device.node_name
        if node:
            devices.append((node, (spec.driver, spec.pool.name, device.name)))
    return devices


def _allocated_devices(workspace: Workspace) -> set[DeviceID]:
    allocated: set[DeviceID] = set()
    for claim in _parsed(workspace, "ResourceClaim"):
        allocation = claim.status.allocation
        if allocation is not None:
            # As upstream's allocated state: an admin-access result leaves the device free.
            allocated.update(
                (r.driver, r.pool, r.device) for r in allocation.results if not r.admin_access
            )
    return allocated


def object_summary(row: ClusterObject) -> str:
    """One line on the objects page for the DRA kinds: what is allocated, published, asked."""
    summarize = _SUMMARIES.get(row.kind)
    return summarize(parse_object(row.manifest)) if summarize else ""


def _claim_summary(claim: ResourceClaim) -> str:
    allocation = claim.status.allocation
    if allocation is None:
        return "not allocated"
    devices = ", ".join(f"{r.driver}/{r.pool}/{r.device}" for r in allocation.results)
    reserved = ", ".join(ref.name for ref in claim.status.reserved_for) or "nobody"
    return f"allocated {devices or 'no devices'}; reserved for {reserved}"


def _slice_summary(resource_slice: ResourceSlice) -> str:
    spec = resource_slice.spec
    where = spec.node_name or ("all nodes" if spec.all_nodes else "selected nodes")
    count = len(spec.devices)
    return f"{spec.driver} pool {spec.pool.name}: {count} device{'s' * (count != 1)} on {where}"


def _template_summary(template: Any) -> str:
    return "; ".join(_request_summary(request) for request in template.spec.requests)


def _request_summary(request: Any) -> str:
    if request.exactly is None:
        options = " or ".join(sub.exactly.device_class_name for sub in request.first_available)
        return f"{request.name}: first available of {options}"
    exactly = request.exactly
    amount = "all" if exactly.allocation_mode == "All" else str(exactly.count)
    return f"{request.name}: {amount} of {exactly.device_class_name}"


def _device_class_summary(device_class: Any) -> str:
    expressions = [s.cel_expression for s in device_class.spec.selectors if s.cel_expression]
    return " && ".join(expressions) or "every device"


_SUMMARIES = {
    "ResourceClaim": _claim_summary,
    "ResourceSlice": _slice_summary,
    "ResourceClaimTemplate": _template_summary,
    "DeviceClass": _device_class_summary,
}
