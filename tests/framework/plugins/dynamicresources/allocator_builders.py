"""Builders for allocator tests, named after upstream's allocator_testing.go helpers.

They build manifests and read them through the API layer, so tests also cover parsing.
Devices and requests are dicts with upstream's ``with...`` modifiers as methods (snake case),
each returning a modified copy, so a case reads as upstream's does. Claims live in namespace
``default`` (upstream's have none), so messages name them ``default/claim-0`` where upstream's
tests print ``claim-0``.
"""

from __future__ import annotations

from typing import Any

from framework.api.device_class import DeviceClass
from framework.api.node import Node
from framework.api.resource_claim import ResourceClaim
from framework.api.resource_slice import ResourceSlice

REGION1, REGION2 = "region-1", "region-2"
NODE1, NODE2 = "node-1", "node-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL1, POOL2, POOL3, POOL4 = "pool-1", "pool-2", "pool-3", "pool-4"
REQ0, REQ1, REQ2, REQ3 = "req-0", "req-1", "req-2", "req-3"
SUB_REQ0, SUB_REQ1 = "subReq-0", "subReq-1"
REQ0_SUB_REQ0, REQ0_SUB_REQ1 = "req-0/subReq-0", "req-0/subReq-1"
REQ1_SUB_REQ0, REQ1_SUB_REQ1 = "req-1/subReq-0", "req-1/subReq-1"
REQ2_SUB_REQ0, REQ2_SUB_REQ1 = "req-2/subReq-0", "req-2/subReq-1"
CLAIM0, CLAIM1 = "claim-0", "claim-1"
SLICE1, SLICE2, SLICE3, SLICE4 = "slice-1", "slice-2", "slice-3", "slice-4"
DEVICE0, DEVICE1, DEVICE2, DEVICE3 = "device-0", "device-1", "device-2", "device-3"
DEVICE4 = "device-4"
COUNTER_SET1, COUNTER_SET2 = "counter-set-1", "counter-set-2"
CAPACITY0, CAPACITY1 = "capacity-0", "capacity-1"
FROM_COUNTERS = "fromCounters"
SHARE_ID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
"""The share ID that tests give the allocator, upstream's ``fixedShareID``."""
INT_ATTRIBUTE = f"{DRIVER_A}/numa"
VERSION_ATTRIBUTE = f"{DRIVER_A}/driverVersion"
STRING_ATTRIBUTE = f"{DRIVER_A}/stringAttribute"
BOOL_ATTRIBUTE = f"{DRIVER_A}/boolAttribute"
NON_EXISTENT_ATTRIBUTE = f"{DRIVER_A}/NonExistentAttribute"
TAINT_KEY = "taint-key"
TAINT_NONE = {"key": TAINT_KEY, "value": "taint-value", "effect": "None"}
TAINT_NO_SCHEDULE = {"key": TAINT_KEY, "value": "taint-value", "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": TAINT_KEY, "value": "taint-value-2", "effect": "NoExecute"}
TOLERATION_NO_SCHEDULE = {"operator": "Exists", "key": TAINT_KEY, "effect": "NoSchedule"}
TOLERATION_NO_EXECUTE = {
    "operator": "Equal",
    "key": TAINT_KEY,
    "value": "taint-value-2",
    "effect": "NoExecute",
}
TOLERATION_NO_SCHEDULE_KEY1 = {"operator": "Exists", "key": "key1", "effect": "NoSchedule"}
NODE_SELECTION_ALL = "nodeSelectionAll"
NODE_SELECTION_PER_DEVICE = "nodeSelectionPerDevice"


def node(name: str, region: str) -> Node:
    return Node.from_dict(
        {"metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}}
    )


def device_class(name: str, driver: str, config: list[dict[str, Any]] | None = None) -> DeviceClass:
    spec: dict[str, Any] = {"selectors": [cel(f'device.driver == "{driver}"')]}
    if config is not None:
        spec["config"] = config
    return DeviceClass.from_dict({"metadata": {"name": name}, "spec": spec})


def class_with_allow_multiple_allocations(name: str, driver: str, multiple: bool) -> DeviceClass:
    expression = (
        f'device.driver == "{driver}" && device.allowMultipleAllocations == {str(multiple).lower()}'
    )
    return DeviceClass.from_dict(
        {"metadata": {"name": name}, "spec": {"selectors": [cel(expression)]}}
    )


def device_configuration(driver: str, attribute: str) -> dict[str, Any]:
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def class_with_config(name: str, driver: str, attribute: str) -> DeviceClass:
    return device_class(name, driver, [device_configuration(driver, attribute)])


def cel(expression: str) -> dict[str, Any]:
    return {"cel": {"expression": expression}}


class WrapDeviceRequest(dict[str, Any]):
    """A request manifest with upstream's ``wrapDeviceRequest`` modifiers (each returns a copy)."""

    def with_capacity_request(self, quantity: str | None) -> WrapDeviceRequest:
        return WrapDeviceRequest(self, exactly={**self["exactly"], **capacity_requests(quantity)})

    def with_selectors(self, *selectors: dict[str, Any]) -> WrapDeviceRequest:
        return WrapDeviceRequest(self, exactly={**self["exactly"], "selectors": list(selectors)})


class WrapDeviceSubRequest(dict[str, Any]):
    """A subrequest manifest with upstream's ``wrapDeviceSubRequest`` modifiers."""

    def with_allocation_mode(self, mode: str) -> WrapDeviceSubRequest:
        return WrapDeviceSubRequest(self, allocationMode=mode)

    def with_capacity_request(self, quantity: str | None) -> WrapDeviceSubRequest:
        return WrapDeviceSubRequest(self, **capacity_requests(quantity))


def capacity_requests(quantity: str | None) -> dict[str, Any]:
    """upstream ``capacityRequests``: ``capacity-0`` asks for the quantity (nothing for None)."""
    return {"capacity": {"requests": {CAPACITY0: quantity} if quantity is not None else {}}}


def request(
    name: str, class_name: str, count: int, *selectors: dict[str, Any], **fields: Any
) -> WrapDeviceRequest:
    exactly = {
        "deviceClassName": class_name,
        "allocationMode": "ExactCount",
        "count": count,
        **fields,
    }
    if selectors:
        exactly["selectors"] = list(selectors)
    return WrapDeviceRequest(name=name, exactly=exactly)


def device_request(name: str, class_name: str, count: int) -> WrapDeviceRequest:
    return request(name, class_name, count)


def all_device_request(name: str, class_name: str, **fields: Any) -> WrapDeviceRequest:
    return WrapDeviceRequest(
        name=name, exactly={"deviceClassName": class_name, "allocationMode": "All", **fields}
    )


def sub_request(
    name: str, class_name: str, count: int, *selectors_or_tolerations: dict[str, Any], **fields: Any
) -> WrapDeviceSubRequest:
    """Selectors (``cel``) and tolerations may be mixed, as upstream's ``fields ...any``."""
    sub: dict[str, Any] = {
        "name": name,
        "deviceClassName": class_name,
        "allocationMode": "ExactCount",
        "count": count,
        **fields,
    }
    selectors = [f for f in selectors_or_tolerations if "cel" in f]
    tolerations = [f for f in selectors_or_tolerations if "cel" not in f]
    if selectors:
        sub["selectors"] = selectors
    if tolerations:
        sub["tolerations"] = tolerations
    return WrapDeviceSubRequest(sub)


def request_with_prioritized_list(name: str, *sub_requests: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(sub_requests)}


def claim(
    name: str,
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    config: list[dict[str, Any]] | None = None,
) -> ResourceClaim:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    return ResourceClaim.from_dict(
        {"metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices}}
    )


def claim_with_request(name: str, req: str, class_name: str, **kw: Any) -> ResourceClaim:
    return claim(name, request(req, class_name, 1), **kw)


def match_attribute(attribute: str, *requests: str) -> dict[str, Any]:
    constraint: dict[str, Any] = {"matchAttribute": attribute}
    if requests:
        constraint["requests"] = list(requests)
    return constraint


def distinct_attribute(attribute: str, *requests: str) -> dict[str, Any]:
    constraint: dict[str, Any] = {"distinctAttribute": attribute}
    if requests:
        constraint["requests"] = list(requests)
    return constraint


class WrapDevice(dict[str, Any]):
    """A device manifest with upstream's ``wrapDevice`` modifiers (each returns a copy)."""

    capacity_from_counters = False

    def with_taints(self, *taints: dict[str, Any]) -> WrapDevice:
        return WrapDevice(self, taints=[*self.get("taints", []), *taints])

    def with_device_counter_consumption(self, *consumptions: dict[str, Any]) -> WrapDevice:
        """Adds consumed counters; a ``fromCounters`` device gets them as its capacity."""
        consumes = [*self.get("consumesCounters", []), *consumptions]
        out = WrapDevice(self, consumesCounters=consumes)
        if self.capacity_from_counters:
            out["capacity"] = {
                name: dict(counter) for c in consumes for name, counter in c["counters"].items()
            }
        return out

    def with_node_selection(self, node_selection: Any) -> WrapDevice:
        if isinstance(node_selection, dict):
            return WrapDevice(self, nodeSelector=node_selection)
        if node_selection == NODE_SELECTION_ALL:
            return WrapDevice(self, allNodes=True)
        return WrapDevice(self, nodeName=node_selection)

    def with_binding_conditions(
        self, conditions: list[str], failure_conditions: list[str]
    ) -> WrapDevice:
        return WrapDevice(
            self, bindingConditions=conditions, bindingFailureConditions=failure_conditions
        )

    def with_binds_to_node(self, binds_to_node: bool) -> WrapDevice:
        return WrapDevice(self, bindsToNode=binds_to_node)

    def with_allow_multiple_allocations(self) -> WrapDevice:
        return WrapDevice(self, allowMultipleAllocations=True)

    def with_capacity_request_policy_range(self, capacity: dict[str, str]) -> WrapDevice:
        """Each capacity gets upstream's range policy: default 2, from 2 to 4 in steps of 2."""
        policy = {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}
        return self._with_policies(capacity, policy)

    def with_capacity_request_policy_valid_values(
        self, default: str, capacity: dict[str, str], additional: list[str] | None
    ) -> WrapDevice:
        """Each capacity allows the default (the minimum) and the additional values."""
        policy = {"default": default, "validValues": [default, *(additional or [])]}
        return self._with_policies(capacity, policy)

    def _with_policies(self, capacity: dict[str, str], policy: dict[str, Any]) -> WrapDevice:
        merged = dict(self.get("capacity", {}))
        for name, value in capacity.items():
            merged[name] = {"value": value, "requestPolicy": policy}
        return WrapDevice(self, capacity=merged)


def device(
    name: str,
    capacity: dict[str, str] | str | None = None,
    attributes: dict[str, dict[str, Any]] | None = None,
    **fields: Any,
) -> WrapDevice:
    """Capacity is a map of quantities, or ``FROM_COUNTERS``: the counters it will consume."""
    result = WrapDevice(name=name, **fields)
    if isinstance(capacity, dict) and capacity:
        result["capacity"] = {key: {"value": value} for key, value in capacity.items()}
    if attributes:
        result["attributes"] = attributes
    result.capacity_from_counters = capacity == FROM_COUNTERS
    return result


def counter_consumption(counter_set: str, counters: dict[str, str] | None) -> dict[str, Any]:
    return {
        "counterSet": counter_set,
        "counters": {name: {"value": value} for name, value in (counters or {}).items()},
    }


def device_from_counters(name: str, set_name: str, counters: dict[str, str]) -> dict[str, Any]:
    """upstream ``device(name, fromCounters, nil).withDeviceCounterConsumption(...)``."""
    return device(
        name, capacity=counters, consumesCounters=[counter_consumption(set_name, counters)]
    )


def counter_set(name: str, counters: dict[str, str] | None) -> dict[str, Any]:
    return {
        "name": name,
        "counters": {key: {"value": value} for key, value in (counters or {}).items()},
    }


def resource_pool(name: str, count: int, generation: int = 1) -> dict[str, Any]:
    return {"name": name, "resourceSliceCount": count, "generation": generation}


def slice_with_devices(
    name: str,
    node_selection: Any,
    pool: str | dict[str, Any],
    driver: str,
    *devices: dict[str, Any],
    shared_counters: list[dict[str, Any]] | None = None,
) -> ResourceSlice:
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": resource_pool(pool, 1) if isinstance(pool, str) else pool,
    }
    if isinstance(node_selection, dict):
        spec["nodeSelector"] = node_selection
    elif node_selection == NODE_SELECTION_ALL:
        spec["allNodes"] = True
    elif node_selection == NODE_SELECTION_PER_DEVICE:
        spec["perDeviceNodeSelection"] = True
    else:
        spec["nodeName"] = node_selection
    if devices:
        spec["devices"] = list(devices)
    if shared_counters:
        spec["sharedCounters"] = shared_counters
    return ResourceSlice.from_dict({"metadata": {"name": name}, "spec": spec})


def slice_with_counter_sets(
    name: str,
    node_selection: Any,
    pool: str | dict[str, Any],
    driver: str,
    *counter_sets: dict[str, Any],
) -> ResourceSlice:
    return slice_with_devices(
        name, node_selection, pool, driver, shared_counters=list(counter_sets)
    )


def slice_with_no_devices(
    name: str, node_selection: Any, pool: str | dict[str, Any], driver: str
) -> ResourceSlice:
    return slice_with_devices(name, node_selection, pool, driver)


def slice_with_one_device(
    name: str, node_selection: Any, pool: str | dict[str, Any], driver: str
) -> ResourceSlice:
    return slice_with_devices(name, node_selection, pool, driver, device(DEVICE1))


def slice_with_multiple_devices(
    name: str, node_selection: Any, pool: str | dict[str, Any], driver: str, count: int
) -> ResourceSlice:
    devices = [device(f"device-{i}") for i in range(count)]
    return slice_with_devices(name, node_selection, pool, driver, *devices)


def node_label_selector(key: str, *values: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}
        ]
    }


def local_node_selector(node_name: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
        ]
    }


def device_allocation_result(
    req: str,
    driver: str,
    pool: str,
    device_name: str,
    admin_access: bool = False,
    tolerations: list[dict[str, Any]] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    result: dict[str, Any] = {"request": req, "driver": driver, "pool": pool, "device": device_name}
    if admin_access:
        result["adminAccess"] = True
    if tolerations:
        result["tolerations"] = tolerations
    result.update(fields)
    return result


def multiple_device_allocation_results(
    req: str, driver: str, pool: str, count: int, start_index: int
) -> list[dict[str, Any]]:
    return [
        device_allocation_result(req, driver, pool, f"device-{i}")
        for i in range(start_index, start_index + count)
    ]


def allocation_result(
    selector: dict[str, Any] | None,
    *results: dict[str, Any],
    config: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    devices: dict[str, Any] = {}
    if results:
        devices["results"] = sorted(results, key=_result_order)
    if config:
        devices["config"] = config
    data: dict[str, Any] = {"devices": devices} if devices else {}
    if selector is not None:
        data["nodeSelector"] = selector
    return data


def normalized(allocation: dict[str, Any]) -> dict[str, Any]:
    """Results in a fixed order: upstream compares them as a set."""
    devices = allocation.get("devices", {})
    if "results" in devices:
        devices["results"] = sorted(devices["results"], key=_result_order)
    return allocation


def _result_order(result: dict[str, Any]) -> tuple[str, ...]:
    return (result["request"], result["driver"], result["pool"], result["device"])
