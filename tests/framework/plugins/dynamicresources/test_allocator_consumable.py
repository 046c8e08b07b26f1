"""The structured allocator, consumable capacity: upstream's allocatortesting cases for devices
that allow multiple allocations (``consumable-capacity-*``, ``allow-multiple-allocations-*``,
distinct-attribute constraints on them, and list-valued attributes with DRAListTypeAttributes
off).

Ported as test_allocator.py's cases, with the same runner (allocator_table).
"""

from __future__ import annotations

import pytest

from framework.plugins.dynamicresources.structured.types import DeviceID, Features, SharedDeviceID
from tests.framework.plugins.dynamicresources.allocator_builders import (
    BOOL_ATTRIBUTE,
    CAPACITY0,
    CAPACITY1,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    COUNTER_SET1,
    COUNTER_SET2,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    FROM_COUNTERS,
    NODE1,
    POOL1,
    REGION1,
    REQ0,
    REQ0_SUB_REQ0,
    REQ0_SUB_REQ1,
    REQ1,
    REQ1_SUB_REQ1,
    REQ2,
    REQ2_SUB_REQ0,
    SHARE_ID,
    SLICE1,
    SLICE2,
    STRING_ATTRIBUTE,
    SUB_REQ0,
    SUB_REQ1,
    all_device_request,
    allocation_result,
    cel,
    claim,
    class_with_allow_multiple_allocations,
    counter_consumption,
    counter_set,
    device,
    device_allocation_result,
    device_class,
    device_request,
    distinct_attribute,
    local_node_selector,
    match_attribute,
    node,
    request,
    request_with_prioritized_list,
    resource_pool,
    slice_with_counter_sets,
    slice_with_devices,
    slice_with_one_device,
    sub_request,
)
from tests.framework.plugins.dynamicresources.allocator_table import Case, check

CASES: dict[str, Case] = {
    "consumable-capacity-disabled-feature": Case(
        features=Features(device_binding_and_status=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1"))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error=(
            "claim default/claim-0, request req-0: has capacity requests, but the "
            "DRAConsumableCapacity feature is disabled"
        ),
    ),
    "consumable-capacity-disabled-feature-with-prioritized-list": Case(
        features=Features(prioritized_list=True, device_binding_and_status=True),
        claims=[
            claim(
                CLAIM0,
                request_with_prioritized_list(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 1).with_capacity_request("1"),
                    sub_request(SUB_REQ1, CLASS_A, 1).with_capacity_request("1"),
                ),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error=(
            "claim default/claim-0, subrequest subReq-0: has capacity requests, but the "
            "DRAConsumableCapacity feature is disabled"
        ),
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request": Case(  # noqa: E501
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A).with_capacity_request("1"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY1: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1)),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1).with_allow_multiple_allocations()
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            # Both share the device, which has no capacity to consume.
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, shareID=SHARE_ID),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, shareID=SHARE_ID),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1)),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            # Without a policy a share takes the whole capacity: one device each.
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": Case(  # noqa: E501
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1)),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
        # Each share would take the whole of the only device.
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1)), claim(CLAIM1, request(REQ0, CLASS_A, 1))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            # Each share gets the policy's default, 2.
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1)), claim(CLAIM1, request(REQ0, CLASS_A, 1))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_valid_values("0", {CAPACITY0: "1"}, None),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "0"},
                ),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "0"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_valid_values("0", {CAPACITY0: "1"}, None),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            # Both fit on one device.
            allocation_result(
                local_node_selector(NODE1),
                # 1 is raised to the range's minimum, 2.
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
            allocation_result(
                local_node_selector(NODE1),
                # 1 is raised to the range's minimum, 2.
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("3"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                # 3 is rounded up to the next step, 4.
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "4"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("2"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_valid_values("1", {CAPACITY0: "4"}, ["2"]),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("2"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_valid_values("1", {CAPACITY0: "3"}, ["3"]),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "3"},
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1).with_capacity_request("2")),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("6"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "10"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
        # The range allows at most 4, so 6 is refused though the device has 10.
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("2"))],
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "2"}},
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("2"))],
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "2"}},
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
                device(DEVICE2)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            )
        ],
    ),
    "consumable-capacity-with-multi-allocatable-device-backtrack": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1).with_capacity_request("2"),
                device_request(REQ1, CLASS_A, 1).with_capacity_request("2"),
                constraints=[match_attribute(STRING_ATTRIBUTE)],
            ),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1).with_capacity_request("2")),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE2, attributes={"stringAttribute": {"string": "stringAttributeValue1"}})
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
                device(DEVICE1, attributes={"stringAttribute": {"string": "stringAttributeValue2"}})
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
                device_allocation_result(
                    REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-subrequest": Case(
        features=Features(consumable_capacity=True, prioritized_list=True),
        claims=[
            claim(
                CLAIM0,
                request_with_prioritized_list(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 1).with_capacity_request("4"),
                    sub_request(SUB_REQ1, CLASS_A, 1).with_capacity_request("2"),
                    sub_request(SUB_REQ1, CLASS_A, 1),
                ),
            )
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0_SUB_REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("2"))],
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "2"}},
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A).with_capacity_request("2"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
                device(DEVICE2).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            # Mode All skips the device that cannot give the capacity.
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity": Case(  # noqa: E501
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A).with_capacity_request("2"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            # Mode All skips the device that cannot give the capacity.
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1).with_capacity_request("1"),
                all_device_request(REQ1, CLASS_A).with_capacity_request("1"),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
                device_allocation_result(
                    REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
                device_allocation_result(
                    REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": Case(
        features=Features(consumable_capacity=True),
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "1"}},
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A).with_capacity_request("1"))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "2"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": Case(  # noqa: E501
        features=Features(consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1).with_capacity_request("1"),
                all_device_request(REQ1, CLASS_A).with_capacity_request("1"),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient": Case(
        features=Features(consumable_capacity=True),
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "1"}},
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A).with_capacity_request("1"))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
                device(DEVICE2, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1"},
                ),
            )
        ],
    ),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, False)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {CAPACITY0: "1"}))
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)
            )
        ],
    ),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
            claim(CLAIM1, device_request(REQ0, CLASS_A, 1).with_capacity_request("1")),
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, False)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1).with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": Case(
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, False)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {CAPACITY0: "1"}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated": Case(  # noqa: E501
        features=Features(consumable_capacity=True),
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1"))],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1)
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable": Case(  # noqa: E501
        features=Features(consumable_capacity=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1).with_capacity_request("1"))],
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "1"}},
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1).with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "allow-multiple-allocations-with-partitionable-device": Case(
        features=Features(
            prioritized_list=True, partitionable_devices=True, consumable_capacity=True
        ),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1),
                request_with_prioritized_list(
                    REQ1,
                    sub_request(
                        SUB_REQ0,
                        CLASS_A,
                        1,
                        cel(
                            f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("6Gi")) >= 0'
                        ),
                    ),
                    sub_request(
                        SUB_REQ1,
                        CLASS_A,
                        1,
                        cel(
                            f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("4Gi")) >= 0'
                        ),
                    ),
                ),
            )
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_allow_multiple_allocations(),
                device(DEVICE2, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi"})
                )
                .with_allow_multiple_allocations(),
                device(DEVICE3, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_allow_multiple_allocations(),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "8Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={"memory": "4Gi"},
                ),
                device_allocation_result(
                    REQ1_SUB_REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE3,
                    shareID=SHARE_ID,
                    consumedCapacity={"memory": "4Gi"},
                ),
            )
        ],
    ),
    "allow-multiple-allocations-with-shared-device-counter-cross-cycle": Case(
        features=Features(partitionable_devices=True, consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1)
                .with_capacity_request("1")
                .with_selectors(cel(f'device.attributes["{DRIVER_A}"].mode == "b"')),
            )
        ],
        allocated_shared_device_ids=[SharedDeviceID(DeviceID(DRIVER_A, POOL1, DEVICE1), SHARE_ID)],
        allocated_capacity={DeviceID(DRIVER_A, POOL1, DEVICE1): {CAPACITY0: "1"}},
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS, {"mode": {"string": "a"}})
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {CAPACITY0: "1"})
                )
                .with_allow_multiple_allocations(),
                device(DEVICE2, FROM_COUNTERS, {"mode": {"string": "b"}})
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {CAPACITY0: "1"})
                )
                .with_allow_multiple_allocations(),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {CAPACITY0: "1"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": Case(
        # Prioritized list, shared counters and consumable capacity together.
        features=Features(
            prioritized_list=True, partitionable_devices=True, consumable_capacity=True
        ),
        # req-0 and req-2 ask for 1 and 2 of capacity-0; req-1 prefers a device with
        # at least 4 of it over one with at least 2.
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1).with_capacity_request("1"),
                device_request(REQ2, CLASS_A, 1).with_capacity_request("2"),
                request_with_prioritized_list(
                    REQ1,
                    sub_request(
                        SUB_REQ0,
                        CLASS_A,
                        1,
                        cel(
                            f'device.capacity["{DRIVER_A}"]["{CAPACITY0}"]'
                            '.compareTo(quantity("4")) >= 0'
                        ),
                    ).with_capacity_request("1"),
                    sub_request(
                        SUB_REQ1,
                        CLASS_A,
                        1,
                        cel(
                            f'device.capacity["{DRIVER_A}"]["{CAPACITY0}"]'
                            '.compareTo(quantity("2")) >= 0'
                        ),
                    ).with_capacity_request("1"),
                ),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        # The counter sets hold capacity-0: 4 and capacity-1: 8; device-1, -2 and -3 take
        # (2, 4), (4, 4) and (2, 4), so device-1 with device-3, or device-2 alone, fit. Every
        # share takes capacity-1 at the range's minimum, 2.
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {CAPACITY0: "2"}),
                    counter_consumption(COUNTER_SET2, {CAPACITY1: "4"}),
                )
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY1: "4"}),
                device(DEVICE2, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {CAPACITY0: "4"}),
                    counter_consumption(COUNTER_SET2, {CAPACITY1: "4"}),
                )
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY1: "4"}),
                device(DEVICE3, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {CAPACITY0: "2"}),
                    counter_consumption(COUNTER_SET2, {CAPACITY1: "4"}),
                )
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY1: "4"}),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {CAPACITY0: "4"}),
                counter_set(COUNTER_SET2, {CAPACITY1: "8"}),
            ),
        ],
        node=node(NODE1, REGION1),
        # req-0 gets device-1; req-2 needs 2, more than device-1 has left, and device-2 would
        # break the counters, so device-3; req-1's first choice would need device-2, so its
        # second takes device-1's last unit.
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1", CAPACITY1: "2"},
                ),
                device_allocation_result(
                    REQ2,
                    DRIVER_A,
                    POOL1,
                    DEVICE3,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2", CAPACITY1: "2"},
                ),
                device_allocation_result(
                    REQ1_SUB_REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "1", CAPACITY1: "2"},
                ),
            )
        ],
    ),
    "with-distinct-constraints-unknown-type-attribute": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1),
                constraints=[distinct_attribute(BOOL_ATTRIBUTE, REQ0)],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, attributes={"boolAttribute": {}}).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
        expect_error="unsupported attribute value",
    ),
    "with-distinct-constraints-with-subrequests": Case(
        features=Features(consumable_capacity=True, prioritized_list=True),
        # All three requests prefer devices with boolAttribute; the constraint covers
        # req-0 and req-1 only.
        claims=[
            claim(
                CLAIM0,
                request_with_prioritized_list(
                    REQ0,
                    sub_request(
                        SUB_REQ0, CLASS_A, 1, cel(f'device.attributes["{DRIVER_A}"].boolAttribute')
                    ),
                    sub_request(SUB_REQ1, CLASS_A, 1),
                ),
                request_with_prioritized_list(
                    REQ1,
                    sub_request(
                        SUB_REQ0, CLASS_A, 1, cel(f'device.attributes["{DRIVER_A}"].boolAttribute')
                    ),
                    sub_request(SUB_REQ1, CLASS_A, 1),
                ),
                request_with_prioritized_list(
                    REQ2,
                    sub_request(
                        SUB_REQ0, CLASS_A, 1, cel(f'device.attributes["{DRIVER_A}"].boolAttribute')
                    ),
                    sub_request(SUB_REQ1, CLASS_A, 1),
                ),
                constraints=[distinct_attribute(BOOL_ATTRIBUTE, REQ0, REQ1)],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(
                    DEVICE1, attributes={"boolAttribute": {"bool": True}}
                ).with_allow_multiple_allocations(),
                device(
                    DEVICE2, attributes={"boolAttribute": {"bool": False}}
                ).with_allow_multiple_allocations(),
            )
        ],
        node=node(NODE1, REGION1),
        # req-1 cannot take req-0's device and falls back to device-2 (subReq-1);
        # req-2 is not constrained and shares device-1.
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0_SUB_REQ0, DRIVER_A, POOL1, DEVICE1, shareID=SHARE_ID),
                device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE2, shareID=SHARE_ID),
                device_allocation_result(REQ2_SUB_REQ0, DRIVER_A, POOL1, DEVICE1, shareID=SHARE_ID),
            )
        ],
    ),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1).with_capacity_request("1"),
                device_request(REQ1, CLASS_A, 1).with_capacity_request("1"),
                constraints=[distinct_attribute(STRING_ATTRIBUTE)],
            )
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, attributes={"stringAttribute": {"string": "stringAttributeValue"}})
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "2"}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
    ),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": Case(
        features=Features(consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                device_request(REQ0, CLASS_A, 1).with_capacity_request("2"),
                device_request(REQ1, CLASS_A, 1).with_capacity_request("2"),
                constraints=[distinct_attribute(STRING_ATTRIBUTE)],
            )
        ],
        classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, attributes={"stringAttribute": {"string": "stringAttributeValue1"}})
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            ),
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE2, attributes={"stringAttribute": {"string": "stringAttributeValue2"}})
                .with_allow_multiple_allocations()
                .with_capacity_request_policy_range({CAPACITY0: "4"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
                device_allocation_result(
                    REQ1,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    shareID=SHARE_ID,
                    consumedCapacity={CAPACITY0: "2"},
                ),
            )
        ],
    ),
    "list-attributes-disabled-match-constraint-with-lists": Case(
        features=Features(list_type_attributes=False),
        claims=[
            claim(
                CLAIM0, request(REQ0, CLASS_A, 2), constraints=[match_attribute(STRING_ATTRIBUTE)]
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(
                    DEVICE1,
                    attributes={
                        "stringAttribute": {"stringValues": ["value1", "value2", "value3"]}
                    },
                ),
                device(
                    DEVICE2,
                    attributes={
                        "stringAttribute": {"stringValues": ["value2", "value3", "value4"]}
                    },
                ),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
        expect_error="unsupported attribute value",
    ),
    "list-attributes-disabled-distinct-constraint-with-lists": Case(
        features=Features(list_type_attributes=False, consumable_capacity=True),
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 2),
                constraints=[distinct_attribute(STRING_ATTRIBUTE)],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(
                    DEVICE1,
                    attributes={
                        "stringAttribute": {"stringValues": ["value1", "value2", "value3"]}
                    },
                ),
                device(
                    DEVICE2,
                    attributes={
                        "stringAttribute": {"stringValues": ["value2", "value3", "value4"]}
                    },
                ),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[],
        expect_error="unsupported attribute value",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_allocator(case: Case) -> None:
    check(case)
