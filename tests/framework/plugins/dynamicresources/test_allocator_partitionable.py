"""The structured allocator, partitionable devices: upstream's allocatortesting cases
``partitionable-devices-*`` (shared counters, per-device node selection, and their mix with
binding conditions and taints).

Ported as test_allocator.py's cases, with the same runner (allocator_table).
"""

from __future__ import annotations

import pytest

from framework.plugins.dynamicresources.structured.types import DeviceID, Features
from tests.framework.plugins.dynamicresources.allocator_builders import (
    CLAIM0,
    CLASS_A,
    CLASS_B,
    COUNTER_SET1,
    COUNTER_SET2,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    DRIVER_B,
    FROM_COUNTERS,
    NODE1,
    NODE2,
    NODE_SELECTION_ALL,
    NODE_SELECTION_PER_DEVICE,
    POOL1,
    POOL2,
    REGION1,
    REQ0,
    REQ0_SUB_REQ1,
    REQ1,
    REQ1_SUB_REQ1,
    SLICE1,
    SLICE2,
    SLICE3,
    SLICE4,
    SUB_REQ0,
    SUB_REQ1,
    TOLERATION_NO_SCHEDULE_KEY1,
    allocation_result,
    cel,
    claim,
    counter_consumption,
    counter_set,
    device,
    device_allocation_result,
    device_class,
    device_request,
    local_node_selector,
    node,
    node_label_selector,
    request,
    request_with_prioritized_list,
    resource_pool,
    slice_with_counter_sets,
    slice_with_devices,
    sub_request,
)
from tests.framework.plugins.dynamicresources.allocator_table import Case, check

CASES: dict[str, Case] = {
    "partitionable-devices-multiple-capacity-pools": Case(
        features=Features(prioritized_list=True, partitionable_devices=True),
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
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"}),
                    counter_consumption(COUNTER_SET2, {"cpus": "4"}),
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi"}),
                    counter_consumption(COUNTER_SET2, {"cpus": "6"}),
                ),
                device(DEVICE3, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"}),
                    counter_consumption(COUNTER_SET2, {"cpus": "4"}),
                ),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "18Gi"}),
                counter_set(COUNTER_SET2, {"cpus": "8"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    "partitionable-devices-multiple-counters": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi", "cpus": "6"}),
                    counter_consumption(COUNTER_SET2, {"cpus": "4", "memory": "2Gi"}),
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi", "cpus": "4"}),
                    counter_consumption(COUNTER_SET2, {"cpus": "6", "memory": "6Gi"}),
                ),
                device(DEVICE3, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi", "cpus": "4"}),
                    counter_consumption(COUNTER_SET2, {"cpus": "4", "memory": "4Gi"}),
                ),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"cpus": "8", "memory": "18Gi"}),
                counter_set(COUNTER_SET2, {"cpus": "12", "memory": "18Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    "partitionable-devices-multiple-pools": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpus": "6", "memory": "4Gi"})
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpus": "4", "memory": "6Gi"})
                ),
                device(DEVICE3, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpus": "4", "memory": "4Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"cpus": "8", "memory": "18Gi"}),
            ),
            slice_with_devices(
                SLICE3,
                NODE1,
                resource_pool(POOL2, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpus": "6", "memory": "4Gi"})
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpus": "1", "memory": "7Gi"})
                ),
                device(DEVICE3, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpus": "1", "memory": "7Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE4,
                NODE1,
                resource_pool(POOL2, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"cpus": "8", "memory": "18Gi"}),
            ),
        ],
        allocated_devices=[
            DeviceID(DRIVER_A, POOL1, DEVICE2),
            DeviceID(DRIVER_A, POOL1, DEVICE3),
            DeviceID(DRIVER_A, POOL2, DEVICE1),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE2),
                device_allocation_result(REQ1, DRIVER_A, POOL2, DEVICE3),
            )
        ],
    ),
    "partitionable-devices-unused-counters-in-counter-set": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "5Gi"})
                ),
                device(DEVICE2).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
                device(DEVICE3).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "8Gi", "unused": "1Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    "partitionable-devices-overallocated-capacity-pool": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "20Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2, NODE1, POOL1, DRIVER_A, counter_set(COUNTER_SET1, {"memory": "18Gi"})
            ),
        ],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE2)],
        node=node(NODE1, REGION1),
    ),
    "partitionable-devices-disabled-device-consumes-counters": Case(
        features=Features(partitionable_devices=False),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2, NODE1, POOL1, DRIVER_A, counter_set(COUNTER_SET1, {"memory": "18Gi"})
            ),
        ],
        node=node(NODE1, REGION1),
    ),
    "partitionable-devices-disabled-other-device-do-not-consume-counters": Case(
        features=Features(partitionable_devices=False),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
                device(DEVICE2),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "18Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2)
            )
        ],
    ),
    "partitionable-devices-disabled-per-device-node-selection": Case(
        features=Features(partitionable_devices=False),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE_SELECTION_PER_DEVICE,
                POOL1,
                DRIVER_A,
                device(DEVICE2).with_node_selection(NODE1),
            )
        ],
        node=node(NODE1, REGION1),
    ),
    "partitionable-devices-per-device-node-selection-nodename": Case(
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims=[
            claim(
                CLAIM0,
                request_with_prioritized_list(
                    REQ0,
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
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE_SELECTION_PER_DEVICE,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_node_selection(NODE1),
                device(DEVICE2, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi"})
                )
                .with_node_selection(NODE2),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE_SELECTION_PER_DEVICE,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "18Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector": Case(
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE_SELECTION_PER_DEVICE,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_node_selection(node_label_selector("region", REGION1)),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE_SELECTION_PER_DEVICE,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "18Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                node_label_selector("region", REGION1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices": Case(
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 3), request(REQ1, CLASS_B, 3))],
        classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE_SELECTION_PER_DEVICE,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_node_selection(node_label_selector("region", REGION1)),
                device(DEVICE2, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_node_selection(NODE1),
                device(DEVICE3, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_node_selection(NODE_SELECTION_ALL),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE_SELECTION_PER_DEVICE,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "18Gi"}),
            ),
            slice_with_devices(
                SLICE3,
                NODE1,
                resource_pool(POOL2, 2),
                DRIVER_B,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET2, {"memory": "4Gi"})
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET2, {"memory": "4Gi"})
                ),
                device(DEVICE3, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET2, {"memory": "4Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE4,
                NODE1,
                resource_pool(POOL2, 2),
                DRIVER_B,
                counter_set(COUNTER_SET2, {"memory": "12Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE3),
                device_allocation_result(REQ1, DRIVER_B, POOL2, DEVICE1),
                device_allocation_result(REQ1, DRIVER_B, POOL2, DEVICE2),
                device_allocation_result(REQ1, DRIVER_B, POOL2, DEVICE3),
            )
        ],
    ),
    "partitionable-devices-with-attribute-selector": Case(
        features=Features(partitionable_devices=True),
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 2),
                request(REQ1, CLASS_A, 1, cel(f'device.attributes["{DRIVER_A}"].special')),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(
                    DEVICE1, attributes={"special": {"bool": True}}
                ).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpu1": "1"}),
                    counter_consumption(COUNTER_SET2, {"mem": "10Gi"}),
                ),
                device(
                    DEVICE2, attributes={"special": {"bool": False}}
                ).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpu2": "1"}),
                    counter_consumption(COUNTER_SET2, {"mem": "10Gi"}),
                ),
                device(
                    DEVICE3, attributes={"special": {"bool": False}}
                ).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"cpu3": "1"}),
                    counter_consumption(COUNTER_SET2, {"mem": "10Gi"}),
                ),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"cpu1": "1", "cpu2": "1", "cpu3": "1"}),
                counter_set(COUNTER_SET2, {"mem": "30Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE3),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions": Case(
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
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
                .with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
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
                    bindingConditions=["IsPrepare"],
                    bindingFailureConditions=["BindingFailed"],
                ),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-multiple": Case(
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
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
                .with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
                device(DEVICE2, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_binding_conditions(["IsPrepare2"], ["BindingFailed2"]),
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
                    bindingConditions=["IsPrepare"],
                    bindingFailureConditions=["BindingFailed"],
                ),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE2,
                    bindingConditions=["IsPrepare2"],
                    bindingFailureConditions=["BindingFailed2"],
                ),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions": Case(
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 3))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "2Gi"})
                )
                .with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "2Gi"})
                ),
                device(DEVICE3, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_binding_conditions(["IsReady"], ["BindingTimeout"]),
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
                    bindingConditions=["IsPrepare"],
                    bindingFailureConditions=["BindingFailed"],
                ),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE3,
                    bindingConditions=["IsReady"],
                    bindingFailureConditions=["BindingTimeout"],
                ),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-multi-slices": Case(
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE4,
                NODE1,
                resource_pool(POOL1, 4),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
            ),
            slice_with_counter_sets(
                SLICE3,
                NODE1,
                resource_pool(POOL1, 4),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "8Gi"}),
            ),
            slice_with_devices(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 4),
                DRIVER_A,
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET2, {"memory": "4Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 4),
                DRIVER_A,
                counter_set(COUNTER_SET2, {"memory": "8Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                device_allocation_result(
                    REQ0,
                    DRIVER_A,
                    POOL1,
                    DEVICE1,
                    bindingConditions=["IsPrepare"],
                    bindingFailureConditions=["BindingFailed"],
                ),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-and-taints": Case(
        features=Features(
            partitionable_devices=True, device_binding_and_status=True, device_taints=True
        ),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS)
                .with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                )
                .with_binding_conditions(["IsPrepare"], ["BindingFailed"])
                .with_taints({"key": "key1", "value": "value1", "effect": "NoSchedule"}),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2, NODE1, POOL1, DRIVER_A, counter_set(COUNTER_SET1, {"memory": "8Gi"})
            ),
        ],
        node=node(NODE1, REGION1),
    ),
    "partitionable-devices-with-binding-conditions-and-taints-tolerated": Case(
        features=Features(
            partitionable_devices=True, device_binding_and_status=True, device_taints=True
        ),
        claims=[
            claim(CLAIM0, request(REQ0, CLASS_A, 2, tolerations=[TOLERATION_NO_SCHEDULE_KEY1]))
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
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
                .with_binding_conditions(["IsPrepare"], ["BindingFailed"])
                .with_taints({"key": "key1", "value": "value1", "effect": "NoSchedule"}),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "4Gi"})
                ),
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
                    bindingConditions=["IsPrepare"],
                    bindingFailureConditions=["BindingFailed"],
                    tolerations=[TOLERATION_NO_SCHEDULE_KEY1],
                ),
                device_allocation_result(
                    REQ0, DRIVER_A, POOL1, DEVICE2, tolerations=[TOLERATION_NO_SCHEDULE_KEY1]
                ),
            )
        ],
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET2, None)
                ),
            ),
            slice_with_counter_sets(
                SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, counter_set(COUNTER_SET1, None)
            ),
        ],
        node=node(NODE1, REGION1),
        expect_error="invalid resource pools were encountered",
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set": Case(  # noqa: E501
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(DEVICE1).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "8Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"other-memory": "8Gi"}),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_error="invalid resource pools were encountered",
    ),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, device_request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "8Gi"})
                ),
            ),
            slice_with_counter_sets(
                SLICE2, NODE1, POOL2, DRIVER_A, counter_set(COUNTER_SET1, {"memory": "8Gi"})
            ),
        ],
        node=node(NODE1, REGION1),
        expect_error="invalid resource pools were encountered",
    ),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": Case(
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims=[
            claim(
                CLAIM0,
                request_with_prioritized_list(
                    REQ0,
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
                            f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("2Gi")) >= 0'
                        ),
                    ),
                ),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_counter_sets(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 3),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "8Gi"}),
            ),
            slice_with_devices(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 3),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi"})
                ),
                device(DEVICE2, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "2Gi"})
                ),
            ),
            slice_with_devices(
                SLICE3,
                NODE2,
                resource_pool(POOL1, 3),
                DRIVER_A,
                device(DEVICE3).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi"})
                ),
            ),
        ],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE3)],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "partitionable-devices-validation-error-on-non-targeting-slice": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_counter_sets(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 3),
                DRIVER_A,
                counter_set(COUNTER_SET1, {"memory": "8Gi"}),
            ),
            slice_with_devices(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 3),
                DRIVER_A,
                device(DEVICE1, FROM_COUNTERS).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET1, {"memory": "6Gi"})
                ),
            ),
            slice_with_devices(
                SLICE3,
                NODE2,
                resource_pool(POOL1, 3),
                DRIVER_A,
                device(DEVICE3).with_device_counter_consumption(
                    counter_consumption(COUNTER_SET2, {"memory": "6Gi"})
                ),
            ),
        ],
        node=node(NODE1, REGION1),
        expect_error="invalid resource pools were encountered",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_allocator(case: Case) -> None:
    check(case)
