"""The structured allocator: upstream's allocatortesting table (allocator_testing.go).

Each case keeps upstream's name, features (all off unless the case names some), objects and
expected results; results of one claim are compared as a set, as upstream's ``ConsistOf``.
Error messages name claims ``default/claim-0`` (see allocator_builders).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.device_class import DeviceClass
from framework.api.resource_claim import ResourceClaim
from framework.api.resource_slice import ResourceSlice
from framework.plugins.dynamicresources.structured.allocator import (
    ALLOCATION_RESULTS_MAX_SIZE,
)
from framework.plugins.dynamicresources.structured.types import (
    DeviceID,
    Features,
)
from tests.framework.plugins.dynamicresources.allocator_builders import (
    BOOL_ATTRIBUTE,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    CLASS_B,
    COUNTER_SET1,
    DEVICE0,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DEVICE4,
    DRIVER_A,
    DRIVER_B,
    INT_ATTRIBUTE,
    NODE1,
    NODE2,
    NODE_SELECTION_ALL,
    NON_EXISTENT_ATTRIBUTE,
    POOL1,
    POOL2,
    POOL3,
    POOL4,
    REGION1,
    REGION2,
    REQ0,
    REQ0_SUB_REQ0,
    REQ0_SUB_REQ1,
    REQ1,
    REQ1_SUB_REQ0,
    REQ1_SUB_REQ1,
    REQ2,
    REQ2_SUB_REQ1,
    REQ3,
    SHARE_ID,
    SLICE1,
    SLICE2,
    SLICE3,
    STRING_ATTRIBUTE,
    SUB_REQ0,
    SUB_REQ1,
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    TAINT_NONE,
    TOLERATION_NO_EXECUTE,
    TOLERATION_NO_SCHEDULE,
    VERSION_ATTRIBUTE,
    all_device_request,
    allocation_result,
    cel,
    claim,
    claim_with_request,
    class_with_allow_multiple_allocations,
    class_with_config,
    counter_consumption,
    counter_set,
    device,
    device_allocation_result,
    device_class,
    device_configuration,
    device_from_counters,
    device_request,
    distinct_attribute,
    local_node_selector,
    match_attribute,
    multiple_device_allocation_results,
    node,
    node_label_selector,
    request,
    request_with_prioritized_list,
    resource_pool,
    slice_with_devices,
    slice_with_multiple_devices,
    slice_with_no_devices,
    slice_with_one_device,
    sub_request,
)
from tests.framework.plugins.dynamicresources.allocator_table import Case, check


def memory_device(name: str, memory: str) -> dict[str, Any]:
    return device(name, {"memory": memory})


def memory_request(name: str, at_least: str) -> dict[str, Any]:
    return request(
        name,
        CLASS_A,
        1,
        cel(f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{at_least}")) >= 0'),
    )


def all_attributes(version: str, numa: int, text: str, flag: bool) -> dict[str, Any]:
    return {
        "driverVersion": {"version": version},
        "numa": {"int": numa},
        "stringAttribute": {"string": text},
        "boolAttribute": {"bool": flag},
    }


ADMIN = {"adminAccess": True}

CASES: dict[str, Case] = {
    "empty": Case(),
    "simple": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "other-node": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
            slice_with_one_device(SLICE2, NODE2, POOL2, DRIVER_A),
        ],
        node=node(NODE2, REGION2),
        expect_results=[
            allocation_result(
                local_node_selector(NODE2),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "small-and-large": Case(
        claims=[claim(CLAIM0, memory_request(REQ0, "1Gi"), memory_request(REQ1, "2Gi"))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                memory_device(DEVICE1, "1Gi"),
                memory_device(DEVICE2, "2Gi"),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "small-and-large-backtrack-requests": Case(
        claims=[claim(CLAIM0, memory_request(REQ0, "1Gi"), memory_request(REQ1, "2Gi"))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        # The large device comes first and is taken for the small request at first.
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                memory_device(DEVICE2, "2Gi"),
                memory_device(DEVICE1, "1Gi"),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "small-and-large-backtrack-claims": Case(
        claims=[
            claim(CLAIM0, memory_request(REQ0, "1Gi")),
            claim(CLAIM1, memory_request(REQ1, "2Gi")),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                memory_device(DEVICE2, "2Gi"),
                memory_device(DEVICE1, "1Gi"),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)
            ),
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2)
            ),
        ],
    ),
    "devices-split-across-different-slices": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_A),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "obsolete-slice": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                "slice-1-obsolete", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
            ),
            # A newer generation makes the other slice obsolete.
            slice_with_devices(
                "slice-1-obsolete", NODE1, resource_pool(POOL1, 2, 2), DRIVER_A, device(DEVICE2)
            ),
        ],
        node=node(NODE1, REGION1),
    ),
    "duplicate-slice": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)),
            slice_with_devices(
                SLICE1 + "-2", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
            ),
        ],
        node=node(NODE1, REGION1),
        expect_error="invalid resource pools were encountered",
    ),
    "no-slices": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "not-enough-suitable-devices": Case(
        claims=[
            claim_with_request(CLAIM0, REQ0, CLASS_A),
            claim_with_request(CLAIM0, REQ1, CLASS_A),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "no-classes": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="could not retrieve device class class-a",
    ),
    "unknown-class": Case(
        claims=[claim_with_request(CLAIM0, REQ0, "unknown-class")],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="could not retrieve device class unknown-class",
    ),
    "empty-class": Case(
        claims=[claim_with_request(CLAIM0, REQ0, "")],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error=(
            "claim default/claim-0, request req-0: missing device class name"
            " (unsupported request type?)"
        ),
    ),
    "no-claims-to-allocate": Case(
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "all-devices-single": Case(
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "all-devices-with-consumed-counters": Case(
        features=Features(partitionable_devices=True),
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                device(
                    DEVICE1,
                    consumesCounters=[counter_consumption("counter-set-1", {"memory": "4Gi"})],
                ),
            ),
            slice_with_devices(
                SLICE2,
                NODE1,
                resource_pool(POOL1, 2),
                DRIVER_A,
                shared_counters=[counter_set("counter-set-1", {"memory": "8Gi"})],
            ),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "all-devices-many": Case(
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE1, POOL2, DRIVER_A),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "all-devices-no-solution": Case(
        claims=[
            claim(CLAIM1, request(REQ0, CLASS_A, 1)),
            claim(CLAIM0, all_device_request(REQ0, CLASS_A)),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "all-devices-no-solution-reversed": Case(
        claims=[
            claim(CLAIM0, all_device_request(REQ0, CLASS_A)),
            claim(CLAIM1, request(REQ0, CLASS_A, 1)),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "all-devices-slice-without-devices": Case(
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "all-devices-some-allocated": Case(
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
        ],
        node=node(NODE1, REGION1),
    ),
    "all-devices-some-allocated-admin-access": Case(
        features=Features(admin_access=True),
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A, **ADMIN))],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2, True),
            )
        ],
    ),
    "all-devices-some-allocating-admin-access": Case(
        features=Features(admin_access=True),
        # The second request asks for all devices, but the first takes one of them.
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, **ADMIN),
                all_device_request(REQ1, CLASS_A, **ADMIN),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
        ],
        node=node(NODE1, REGION1),
    ),
    "count-devices-some-allocated-admin-access": Case(
        features=Features(admin_access=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2, **ADMIN))],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2, True),
            )
        ],
    ),
    "separate-claims-share-device-admin-access": Case(
        features=Features(admin_access=True),
        claims=[
            claim(CLAIM0, request(REQ0, CLASS_A, 1, **ADMIN)),
            claim(CLAIM1, request(REQ0, CLASS_A, 1, **ADMIN)),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
            ),
        ],
    ),
    "admin-access-claims-device-allocating-for-non-admin-access": Case(
        features=Features(admin_access=True),
        claims=[
            claim_with_request(CLAIM0, REQ0, CLASS_A),
            claim(CLAIM1, request(REQ0, CLASS_A, 1, **ADMIN)),
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
            ),
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
            ),
        ],
    ),
    "network-attached-device": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A)
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                node_label_selector("region", REGION1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "unsuccessful-allocation-network-attached-device": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A)
        ],
        node=node(NODE2, REGION2),
    ),
    "many-network-attached-devices": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 4))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE_SELECTION_ALL, POOL2, DRIVER_A),
            slice_with_one_device(SLICE1, node_label_selector("planet", "earth"), POOL3, DRIVER_A),
            slice_with_one_device(SLICE1, local_node_selector(NODE1), POOL4, DRIVER_A),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "region", "operator": "In", "values": [REGION1]},
                                {"key": "planet", "operator": "In", "values": ["earth"]},
                            ],
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [NODE1]}
                            ],
                        }
                    ]
                },
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL3, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL4, DEVICE1),
            )
        ],
    ),
    "local-and-network-attached-devices": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE1, POOL2, DRIVER_A),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "several-different-drivers": Case(
        claims=[
            claim_with_request(CLAIM0, REQ0, CLASS_A),
            claim_with_request(CLAIM0, REQ0, CLASS_B),
        ],
        classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
        slices=[
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)),
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1)
            ),
            allocation_result(
                local_node_selector(NODE1), device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1)
            ),
        ],
    ),
    "already-allocated-devices": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1), DeviceID(DRIVER_A, POOL1, DEVICE2)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    "admin-access-disabled": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, **ADMIN))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error=(
            "claim default/claim-0, request req-0: admin access is requested, but the feature"
            " is disabled"
        ),
    ),
    "admin-access-enabled": Case(
        features=Features(admin_access=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, **ADMIN))],
        allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1), DeviceID(DRIVER_A, POOL1, DEVICE2)],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
            )
        ],
    ),
    "with-constraint": Case(
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                constraints=[
                    match_attribute(INT_ATTRIBUTE),
                    match_attribute(VERSION_ATTRIBUTE),
                    match_attribute(STRING_ATTRIBUTE),
                    match_attribute(BOOL_ATTRIBUTE),
                ],
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
                    DEVICE1, attributes=all_attributes("1.0.0", 1, "stringAttributeValue", True)
                ),
                device(
                    DEVICE2, attributes=all_attributes("1.0.0", 1, "stringAttributeValue", True)
                ),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "with-constraint-non-existent-attribute": Case(
        claims=[
            claim_with_request(
                CLAIM0, REQ0, CLASS_A, constraints=[match_attribute(NON_EXISTENT_ATTRIBUTE)]
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
    ),
    **{
        f"with-constraint-not-matching-{kind}-attribute": Case(
            claims=[
                claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[match_attribute(attribute)])
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={attribute.split("/")[1]: {key: first}}),
                    device(DEVICE2, attributes={attribute.split("/")[1]: {key: second}}),
                )
            ],
            node=node(NODE1, REGION1),
        )
        for kind, attribute, key, first, second in [
            ("int", INT_ATTRIBUTE, "int", 1, 2),
            ("string", STRING_ATTRIBUTE, "string", "stringAttributeValue", "stringAttributeValue2"),
            ("bool", BOOL_ATTRIBUTE, "bool", True, False),
            ("version", VERSION_ATTRIBUTE, "version", "1.0.0", "2.0.0"),
        ]
    },
    "with-constraint-not-matching-int-attribute-all-devices": Case(
        claims=[
            claim(
                CLAIM0,
                all_device_request(REQ0, CLASS_A),
                constraints=[match_attribute(INT_ATTRIBUTE)],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, attributes={"numa": {"int": 1}}),
                device(DEVICE2, attributes={"numa": {"int": 2}}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_error=(
            "claim default/claim-0, request req-0: cannot add device driver-a/pool-1/device-2"
            " because a claim constraint would not be satisfied"
        ),
    ),
    "with-constraint-for-request": Case(
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                constraints=[match_attribute(VERSION_ATTRIBUTE, REQ0)],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, attributes={"driverVersion": {"version": "1.0.0"}}),
                device(DEVICE2, attributes={"driverVersion": {"version": "2.0.0"}}),
            )
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "with-constraint-for-request-retry": Case(
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                constraints=[
                    match_attribute(VERSION_ATTRIBUTE, REQ0),
                    match_attribute(STRING_ATTRIBUTE),
                ],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(
                    DEVICE1,
                    attributes={
                        "driverVersion": {"version": "1.0.0"},
                        "stringAttribute": {"string": "a"},
                    },
                ),
                device(
                    DEVICE2,
                    attributes={
                        "driverVersion": {"version": "2.0.0"},
                        "stringAttribute": {"string": "b"},
                    },
                ),
                device(
                    DEVICE3,
                    attributes={
                        "driverVersion": {"version": "3.0.0"},
                        "stringAttribute": {"string": "b"},
                    },
                ),
            )
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
    "with-class-device-config": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[class_with_config(CLASS_A, DRIVER_A, "classAttribute")],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                config=[
                    {
                        "source": "FromClass",
                        "requests": [REQ0],
                        **device_configuration(DRIVER_A, "classAttribute"),
                    }
                ],
            )
        ],
    ),
    "with-class-device-config-with-multiple-request-and-configs": Case(
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                request(REQ2, CLASS_B, 1),
            )
        ],
        classes=[
            class_with_config(CLASS_A, DRIVER_A, "classAttribute-A"),
            class_with_config(CLASS_B, DRIVER_B, "classAttribute-B"),
        ],
        slices=[
            slice_with_multiple_devices(SLICE1, NODE1, POOL1, DRIVER_A, 2),
            slice_with_one_device(SLICE2, NODE1, POOL1, DRIVER_B),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE0),
                device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ2, DRIVER_B, POOL1, DEVICE1),
                config=[
                    {
                        "source": "FromClass",
                        "requests": [REQ0, REQ1],
                        **device_configuration(DRIVER_A, "classAttribute-A"),
                    },
                    {
                        "source": "FromClass",
                        "requests": [REQ2],
                        **device_configuration(DRIVER_B, "classAttribute-B"),
                    },
                ],
            )
        ],
    ),
    "claim-with-device-config": Case(
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                config=[{"requests": [REQ0], **device_configuration(DRIVER_A, "deviceAttribute")}],
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                config=[
                    {
                        "source": "FromClaim",
                        "requests": [REQ0],
                        **device_configuration(DRIVER_A, "deviceAttribute"),
                    }
                ],
            )
        ],
    ),
    "unknown-selector": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, {}))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="CEL expression empty (unsupported selector type?)",
    ),
    "unknown-allocation-mode": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, allocationMode="future-mode"))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="unsupported count mode future-mode",
    ),
    "unknown-constraint": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A, constraints=[{"requests": []}])],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="empty constraint (unsupported constraint type?)",
    ),
    "invalid-CEL-one-device": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, cel("noSuchVar")))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="undeclared reference",
    ),
    "invalid-CEL-one-device-class": Case(
        claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
        classes=[
            DeviceClass.from_dict(
                {"metadata": {"name": CLASS_A}, "spec": {"selectors": [cel("noSuchVar")]}}
            )
        ],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="undeclared reference",
    ),
    "invalid-CEL-all-devices": Case(
        claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A, selectors=[cel("noSuchVar")]))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        node=node(NODE1, REGION1),
        expect_error="undeclared reference",
    ),
    "too-many-devices-single-request": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 500))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        expect_error="exceeds the claim limit",
    ),
    "many-devices-okay": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE))],
        classes=[device_class(CLASS_A, DRIVER_A)],
    ),
    "too-many-devices-total": Case(
        claims=[
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE),
                request(REQ1, CLASS_A, 1),
            )
        ],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_multiple_devices(
                SLICE1, NODE1, POOL1, DRIVER_A, ALLOCATION_RESULTS_MAX_SIZE + 1
            )
        ],
        node=node(NODE1, REGION1),
        expect_error="exceeds the claim limit",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_allocator(case: Case) -> None:
    check(case)


# -- prioritized lists, taints, partitionable devices -------------------------------------------

PRIORITIZED = Features(prioritized_list=True)
TAINTS = Features(device_taints=True)
PARTITIONABLE = Features(partitionable_devices=True)


def memory_selector(at_least: str) -> dict[str, Any]:
    return cel(f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{at_least}")) >= 0')


def memory_version_device(name: str, memory: str, version: str) -> dict[str, Any]:
    return device(name, {"memory": memory}, {"driverVersion": {"version": version}})


def one_device_tainted(*taints: dict[str, Any]) -> list[ResourceSlice]:
    return [
        slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, taints=list(taints)))
    ]


def two_tainted_devices() -> list[ResourceSlice]:
    return [
        slice_with_devices(
            SLICE1,
            NODE1,
            POOL1,
            DRIVER_A,
            device(DEVICE1, taints=[TAINT_NO_SCHEDULE]),
            device(DEVICE2, taints=[TAINT_NO_EXECUTE]),
        )
    ]


def counter_pool(*devices: dict[str, Any], memory: str = "8Gi") -> list[ResourceSlice]:
    """A pool of two slices: the devices, and counter set 1 with the memory."""
    return [
        slice_with_devices(SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, *devices),
        slice_with_devices(
            SLICE2,
            NODE1,
            resource_pool(POOL1, 2),
            DRIVER_A,
            shared_counters=[counter_set(COUNTER_SET1, {"memory": memory})],
        ),
    ]


CASES.update(
    {
        "prioritized-list-first-unavailable": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_B, 1), sub_request(SUB_REQ1, CLASS_A, 1)
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "prioritized-list-non-available": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_B, 2), sub_request(SUB_REQ1, CLASS_A, 2)
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
                slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
        ),
        "prioritized-list-device-config": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_A, 1), sub_request(SUB_REQ1, CLASS_B, 2)
                    ),
                    config=[
                        {"requests": [REQ0_SUB_REQ0], **device_configuration(DRIVER_A, "foo")},
                        {"requests": [REQ0_SUB_REQ1], **device_configuration(DRIVER_B, "bar")},
                    ],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_B, device(DEVICE1), device(DEVICE2))
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE2),
                    config=[
                        {
                            "source": "FromClaim",
                            "requests": [REQ0_SUB_REQ1],
                            **device_configuration(DRIVER_B, "bar"),
                        }
                    ],
                )
            ],
        ),
        "prioritized-list-class-config": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_A, 2), sub_request(SUB_REQ1, CLASS_B, 2)
                    ),
                )
            ],
            classes=[
                class_with_config(CLASS_A, DRIVER_A, "foo"),
                class_with_config(CLASS_B, DRIVER_B, "bar"),
            ],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_B, device(DEVICE1), device(DEVICE2)
                ),
                slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE3)),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE2),
                    config=[
                        {
                            "source": "FromClass",
                            "requests": [REQ0_SUB_REQ1],
                            **device_configuration(DRIVER_B, "bar"),
                        }
                    ],
                )
            ],
        ),
        "prioritized-list-subrequests-with-expressions": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1, memory_selector("1Gi")),
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(SUB_REQ0, CLASS_A, 1, memory_selector("4Gi")),
                        sub_request(SUB_REQ1, CLASS_A, 2, memory_selector("2Gi")),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    memory_device(DEVICE1, "2Gi"),
                    memory_device(DEVICE2, "2Gi"),
                    memory_device(DEVICE3, "1Gi"),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE3),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE2),
                )
            ],
        ),
        "prioritized-list-subrequests-with-constraints-ref-parent-request": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1, memory_selector("8Gi")),
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(SUB_REQ0, CLASS_A, 1, memory_selector("2Gi")),
                        sub_request(SUB_REQ1, CLASS_A, 1, memory_selector("1Gi")),
                    ),
                    constraints=[match_attribute(VERSION_ATTRIBUTE, REQ0, REQ1)],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, memory_version_device(DEVICE1, "8Gi", "1.0.0")
                ),
                slice_with_devices(
                    SLICE2,
                    NODE1,
                    POOL2,
                    DRIVER_A,
                    memory_version_device(DEVICE2, "2Gi", "2.0.0"),
                    memory_version_device(DEVICE3, "1Gi", "1.0.0"),
                ),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL2, DEVICE3),
                )
            ],
        ),
        "prioritized-list-subrequests-with-constraints-ref-sub-request": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1, memory_selector("8Gi")),
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(SUB_REQ0, CLASS_A, 1, memory_selector("2Gi")),
                        sub_request(SUB_REQ1, CLASS_A, 1, memory_selector("1Gi")),
                    ),
                    constraints=[match_attribute(VERSION_ATTRIBUTE, REQ0, REQ1_SUB_REQ0)],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, memory_version_device(DEVICE1, "8Gi", "1.0.0")
                ),
                slice_with_devices(
                    SLICE2, NODE1, POOL2, DRIVER_A, memory_version_device(DEVICE2, "2Gi", "2.0.0")
                ),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL2, DEVICE2),
                )
            ],
        ),
        "prioritized-list-subrequests-with-allocation-mode-all": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, 0, allocationMode="All"),
                        sub_request(SUB_REQ1, CLASS_A, 1),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
            ],
            allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE2),
                )
            ],
        ),
        "prioritized-list-allocation-mode-all-multiple-requests": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(SUB_REQ0, CLASS_A, 0, allocationMode="All"),
                        sub_request(SUB_REQ1, CLASS_A, 1),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE2),
                )
            ],
        ),
        "prioritized-list-disabled": Case(
            claims=[
                claim(
                    CLAIM0, request_with_prioritized_list(REQ0, sub_request(SUB_REQ0, CLASS_A, 1))
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            expect_error=(
                "claim default/claim-0, request req-0: has subrequests, but the"
                " DRAPrioritizedList feature is disabled"
            ),
        ),
        "prioritized-list-multi-request": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ1, CLASS_A, 1, memory_selector("8Gi")),
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, 1, memory_selector("8Gi")),
                        sub_request(SUB_REQ1, CLASS_A, 1, memory_selector("4Gi")),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, memory_device(DEVICE1, "8Gi")),
                slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, memory_device(DEVICE2, "4Gi")),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL2, DEVICE2),
                )
            ],
        ),
        "prioritized-list-with-backtracking": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, 1, memory_selector("8Gi")),
                        sub_request(SUB_REQ1, CLASS_A, 1, memory_selector("4Gi")),
                    ),
                    request(REQ1, CLASS_A, 1, memory_selector("8Gi")),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, memory_device(DEVICE1, "8Gi")),
                slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, memory_device(DEVICE2, "4Gi")),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL2, DEVICE2),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "prioritized-list-too-many-in-first-subrequest": Case(
            features=PRIORITIZED,
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_B, 500), sub_request(SUB_REQ1, CLASS_A, 1)
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "partitionable-devices-single-device": Case(
            features=PARTITIONABLE,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=counter_pool(
                device(
                    DEVICE1,
                    consumesCounters=[counter_consumption(COUNTER_SET1, {"memory": "4Gi"})],
                )
            ),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "partitionable-devices-prioritized-list": Case(
            features=Features(prioritized_list=True, partitionable_devices=True),
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(SUB_REQ0, CLASS_A, 1, memory_selector("6Gi")),
                        sub_request(SUB_REQ1, CLASS_A, 1, memory_selector("4Gi")),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=counter_pool(
                device_from_counters(DEVICE1, COUNTER_SET1, {"memory": "4Gi"}),
                device_from_counters(DEVICE2, COUNTER_SET1, {"memory": "6Gi"}),
                device_from_counters(DEVICE3, COUNTER_SET1, {"memory": "4Gi"}),
            ),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE3),
                )
            ],
        ),
        "partitionable-devices-multiple-devices": Case(
            features=PARTITIONABLE,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=counter_pool(
                device_from_counters(DEVICE1, COUNTER_SET1, {"memory": "4Gi"}),
                device_from_counters(DEVICE2, COUNTER_SET1, {"memory": "6Gi"}),
                device_from_counters(DEVICE3, COUNTER_SET1, {"memory": "4Gi"}),
            ),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE3),
                )
            ],
        ),
        "partitionable-devices-no-capacity-available": Case(
            features=PARTITIONABLE,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device_from_counters(DEVICE1, COUNTER_SET1, {"memory": "4Gi"}),
                    device_from_counters(DEVICE2, COUNTER_SET1, {"memory": "16Gi"}),
                ),
                slice_with_devices(
                    SLICE2,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    shared_counters=[counter_set(COUNTER_SET1, {"memory": "18Gi"})],
                ),
            ],
            allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE2)],
            node=node(NODE1, REGION1),
        ),
        "tainted-two-devices": Case(
            features=TAINTS,
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=two_tainted_devices(),
            node=node(NODE1, REGION1),
        ),
        "tainted-one-device-two-taints": Case(
            features=TAINTS,
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE),
            node=node(NODE1, REGION1),
        ),
        "tainted-two-devices-tolerated": Case(
            features=TAINTS,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, tolerations=[TOLERATION_NO_EXECUTE]))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=two_tainted_devices(),
            node=node(NODE1, REGION1),
            # Only the second device's taint is tolerated.
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(
                        REQ0, DRIVER_A, POOL1, DEVICE2, tolerations=[TOLERATION_NO_EXECUTE]
                    ),
                )
            ],
        ),
        "tainted-two-devices-prioritized-list-tolerated": Case(
            features=Features(device_taints=True, prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, 1),
                        sub_request(SUB_REQ1, CLASS_A, 1, tolerations=[TOLERATION_NO_EXECUTE]),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=two_tainted_devices(),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(
                        REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE2, tolerations=[TOLERATION_NO_EXECUTE]
                    ),
                )
            ],
        ),
        "tainted-no-effect": Case(
            features=TAINTS,
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NONE),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "tainted-one-device-two-taints-both-tolerated": Case(
            features=TAINTS,
            claims=[
                claim(
                    CLAIM0,
                    request(
                        REQ0,
                        CLASS_A,
                        1,
                        tolerations=[TOLERATION_NO_SCHEDULE, TOLERATION_NO_EXECUTE],
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(
                        REQ0,
                        DRIVER_A,
                        POOL1,
                        DEVICE1,
                        tolerations=[TOLERATION_NO_SCHEDULE, TOLERATION_NO_EXECUTE],
                    ),
                )
            ],
        ),
        "tainted-disabled": Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "tainted-prioritized-list": Case(
            features=Features(device_taints=True, prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_B, 1), sub_request(SUB_REQ1, CLASS_A, 1)
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE),
            node=node(NODE1, REGION1),
        ),
        "tainted-admin-access": Case(
            features=Features(device_taints=True, admin_access=True),
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, **ADMIN))],
            allocated_devices=[
                DeviceID(DRIVER_A, POOL1, DEVICE1),
                DeviceID(DRIVER_A, POOL1, DEVICE2),
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE),
            node=node(NODE1, REGION1),
        ),
        "tainted-admin-access-disabled": Case(
            features=Features(admin_access=True),
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, **ADMIN))],
            allocated_devices=[
                DeviceID(DRIVER_A, POOL1, DEVICE1),
                DeviceID(DRIVER_A, POOL1, DEVICE2),
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE),
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                )
            ],
        ),
        "tainted-all-devices-single": Case(
            features=TAINTS,
            claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=one_device_tainted(TAINT_NO_SCHEDULE),
            node=node(NODE1, REGION1),
        ),
    }
)


# -- binding conditions, consumable capacity, distinct attributes -------------------------------

BINDING = Features(device_binding_and_status=True)
CONSUMABLE = Features(consumable_capacity=True)


def with_binding_conditions(name: str, suffix: str = "") -> dict[str, Any]:
    return device(
        name,
        bindingConditions=[f"IsPrepare{suffix}"],
        bindingFailureConditions=[f"BindingFailed{suffix}"],
    )


def binding_result(req: str, device_name: str, suffix: str = "") -> dict[str, Any]:
    return device_allocation_result(
        req,
        DRIVER_A,
        POOL1,
        device_name,
        bindingConditions=[f"IsPrepare{suffix}"],
        bindingFailureConditions=[f"BindingFailed{suffix}"],
    )


def shared_device(
    name: str, capacity: dict[str, str] | None = None, **fields: Any
) -> dict[str, Any]:
    return device(name, capacity, allowMultipleAllocations=True, **fields)


def share_result(
    req: str, device_name: str, consumed: dict[str, str] | None = None
) -> dict[str, Any]:
    fields: dict[str, Any] = {"shareID": SHARE_ID}
    if consumed:
        fields["consumedCapacity"] = consumed
    return device_allocation_result(req, DRIVER_A, POOL1, device_name, **fields)


def distinct_device(name: str, version: str, numa: int, flag: bool) -> dict[str, Any]:
    attributes = {
        "driverVersion": {"version": version},
        "numa": {"int": numa},
        "boolAttribute": {"bool": flag},
    }
    return shared_device(name, attributes=attributes)


CASES.update(
    {
        "device-binding-conditions": Case(
            features=BINDING,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, with_binding_conditions(DEVICE1))
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(local_node_selector(NODE1), binding_result(REQ0, DEVICE1))
            ],
        ),
        "binding-conditions-multiple-devices": Case(
            features=BINDING,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2), request(REQ1, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    with_binding_conditions(DEVICE1),
                    with_binding_conditions(DEVICE2, "2"),
                    with_binding_conditions(DEVICE3, "3"),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    binding_result(REQ0, DEVICE1),
                    binding_result(REQ0, DEVICE2, "2"),
                    binding_result(REQ1, DEVICE3, "3"),
                )
            ],
        ),
        "binding-conditions-with-and-without": Case(
            features=BINDING,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1), request(REQ1, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1),
                    with_binding_conditions(DEVICE2),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    binding_result(REQ1, DEVICE2),
                )
            ],
        ),
        "binding-conditions-without-feature-gate": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, with_binding_conditions(DEVICE1))
            ],
            node=node(NODE1, REGION1),
        ),
        "node-restriction": Case(
            features=BINDING,
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    node_label_selector("planet", "earth"),
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, bindsToNode=True),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": Case(
            features=CONSUMABLE,
            claims=[
                claim(CLAIM0, request(REQ0, CLASS_A, 1, capacity={"requests": {"capacity-0": "1"}}))
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, shared_device(DEVICE1, {"capacity-1": "1"})
                )
            ],
            node=node(NODE1, REGION1),
        ),
        "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": (
            Case(
                features=CONSUMABLE,
                claims=[
                    claim(CLAIM0, request(REQ0, CLASS_A, 1)),
                    claim(CLAIM1, request(REQ0, CLASS_A, 1)),
                ],
                classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
                slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, shared_device(DEVICE1))],
                node=node(NODE1, REGION1),
                # Both share the device; it defines no capacity, so none is consumed.
                expect_results=[
                    allocation_result(local_node_selector(NODE1), share_result(REQ0, DEVICE1)),
                    allocation_result(local_node_selector(NODE1), share_result(REQ0, DEVICE1)),
                ],
            )
        ),
        "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": (
            Case(
                features=CONSUMABLE,
                claims=[
                    claim(CLAIM0, request(REQ0, CLASS_A, 1)),
                    claim(CLAIM1, request(REQ0, CLASS_A, 1)),
                ],
                classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
                slices=[
                    slice_with_devices(
                        SLICE1,
                        NODE1,
                        POOL1,
                        DRIVER_A,
                        shared_device(DEVICE1, {"capacity-0": "1"}),
                        shared_device(DEVICE2, {"capacity-0": "1"}),
                    )
                ],
                node=node(NODE1, REGION1),
                # Each takes a whole device's capacity, so each gets its own device.
                expect_results=[
                    allocation_result(
                        local_node_selector(NODE1),
                        share_result(REQ0, DEVICE1, {"capacity-0": "1"}),
                    ),
                    allocation_result(
                        local_node_selector(NODE1),
                        share_result(REQ0, DEVICE2, {"capacity-0": "1"}),
                    ),
                ],
            )
        ),
        "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": (  # noqa: E501
            Case(
                features=CONSUMABLE,
                claims=[
                    claim(CLAIM0, request(REQ0, CLASS_A, 1)),
                    claim(CLAIM1, request(REQ0, CLASS_A, 1)),
                ],
                classes=[class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)],
                slices=[
                    slice_with_devices(
                        SLICE1, NODE1, POOL1, DRIVER_A, shared_device(DEVICE1, {"capacity-0": "2"})
                    )
                ],
                node=node(NODE1, REGION1),
            )
        ),
        "with-distinct-constraints": Case(
            features=CONSUMABLE,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    request(REQ1, CLASS_A, 1),
                    request(REQ2, CLASS_A, 1),
                    request(REQ3, CLASS_A, 1),
                    constraints=[
                        distinct_attribute(BOOL_ATTRIBUTE, REQ0, REQ1),
                        distinct_attribute(VERSION_ATTRIBUTE, REQ0, REQ1, REQ2),
                        distinct_attribute(INT_ATTRIBUTE, REQ0, REQ1, REQ2, REQ3),
                    ],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    distinct_device(DEVICE1, "1.0.0", 0, True),
                    distinct_device(DEVICE2, "1.0.1", 1, False),
                    distinct_device(DEVICE3, "1.0.2", 2, True),
                    distinct_device(DEVICE4, "1.0.0", 3, True),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    share_result(REQ0, DEVICE1),
                    share_result(REQ1, DEVICE2),
                    share_result(REQ2, DEVICE3),
                    share_result(REQ3, DEVICE4),
                )
            ],
        ),
        "with-distinct-constraints-attribute-not-set": Case(
            features=CONSUMABLE,
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    constraints=[distinct_attribute(BOOL_ATTRIBUTE, REQ0)],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, shared_device(DEVICE1))],
            node=node(NODE1, REGION1),
        ),
    }
)


# -- pools spanning nodes, invalid pools, combinations ------------------------------------------


def pool_slice(name: str, node_name: str, device_name: str, generation: int) -> ResourceSlice:
    return slice_with_devices(
        name, node_name, resource_pool(POOL1, 2, generation), DRIVER_A, device(device_name)
    )


def typed_device(name: str, kind: str, **fields: Any) -> dict[str, Any]:
    return device(name, attributes={"type": {"string": kind}}, **fields)


TYPE_X = cel(f'device.attributes["{DRIVER_A}"].type == "X"')
FOUR_DEVICES = [device(DEVICE1), device(DEVICE2), device(DEVICE3), device(DEVICE4)]

CASES.update(
    {
        "allocation-mode-all-with-multi-host-resource-pool": Case(
            claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[pool_slice(SLICE1, NODE1, DEVICE1, 1), pool_slice(SLICE2, NODE2, DEVICE2, 1)],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "multi-host-resource-pool-with-stale-slice-for-current-node": Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[pool_slice(SLICE1, NODE1, DEVICE1, 1), pool_slice(SLICE2, NODE2, DEVICE2, 2)],
            node=node(NODE1, REGION1),
        ),
        "multi-host-resource-pool-complete-update-from-node-1-to-node-2": Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                pool_slice(SLICE1, NODE1, DEVICE1, 1),
                pool_slice(SLICE1, NODE1, DEVICE2, 1),
                pool_slice(SLICE2, NODE2, DEVICE1, 2),
                pool_slice(SLICE2, NODE2, DEVICE2, 2),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "multi-host-resource-pool-complete-update-from-node-2-to-node-1": Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                pool_slice(SLICE1, NODE2, DEVICE1, 1),
                pool_slice(SLICE1, NODE2, DEVICE2, 1),
                pool_slice(SLICE2, NODE1, DEVICE1, 2),
                pool_slice(SLICE2, NODE1, DEVICE2, 2),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2": Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                pool_slice(SLICE1, NODE1, DEVICE1, 1),
                pool_slice(SLICE1, NODE1, DEVICE2, 1),
                pool_slice(SLICE2, NODE2, DEVICE1, 2),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1": Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                pool_slice(SLICE1, NODE2, DEVICE1, 1),
                pool_slice(SLICE1, NODE2, DEVICE2, 1),
                pool_slice(SLICE2, NODE1, DEVICE1, 2),
            ],
            node=node(NODE1, REGION1),
        ),
        "partitionable-devices-same-counter-set-name-in-different-resource-slices": Case(
            features=PARTITIONABLE,
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 4), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    SLICE2,
                    NODE1,
                    resource_pool(POOL1, 4),
                    DRIVER_A,
                    shared_counters=[{"name": COUNTER_SET1}],
                ),
                slice_with_devices(
                    "slice-3", NODE1, resource_pool(POOL1, 4), DRIVER_A, device(DEVICE2)
                ),
                slice_with_devices(
                    "slice-4",
                    NODE1,
                    resource_pool(POOL1, 4),
                    DRIVER_A,
                    shared_counters=[{"name": COUNTER_SET1}],
                ),
            ],
            node=node(NODE1, REGION1),
            expect_error="invalid resource pools were encountered",
        ),
        "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    "slice-3", NODE1, resource_pool(POOL2, 1), DRIVER_A, device(DEVICE2)
                ),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE2),
                )
            ],
        ),
        "invalid-pool-is-error-if-no-other-device-can-be-allocated": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    "slice-3", NODE1, resource_pool(POOL2, 1), DRIVER_A, device(DEVICE2)
                ),
            ],
            allocated_devices=[DeviceID(DRIVER_A, POOL2, DEVICE2)],
            node=node(NODE1, REGION1),
            expect_error="invalid resource pools were encountered",
        ),
        "no-allocation-from-incomplete-pools": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                )
            ],
            node=node(NODE1, REGION1),
        ),
        "check-combinations-within-single-request-single-pool-single-slice": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 5))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, *FOUR_DEVICES)],
            node=node(NODE1, REGION1),
            expect_num_allocate_one_invocations=16,
        ),
        "check-combinations-within-single-request-single-pool-multiple-slices": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 5))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, *FOUR_DEVICES[:2]
                ),
                slice_with_devices(
                    SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, *FOUR_DEVICES[2:]
                ),
            ],
            node=node(NODE1, REGION1),
            expect_num_allocate_one_invocations=16,
        ),
        "check-combinations-within-single-request-many-pools": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 5))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(f"slice-{i + 1}", NODE1, pool, DRIVER_A, one)
                for i, (pool, one) in enumerate(
                    zip((POOL1, POOL2, POOL3, POOL4), FOUR_DEVICES, strict=True)
                )
            ],
            node=node(NODE1, REGION1),
            expect_num_allocate_one_invocations=16,
        ),
        "check-combinations-with-backtracking": Case(
            claims=[claim(CLAIM0, request(REQ1, CLASS_A, 2), request(REQ2, CLASS_A, 1, TYPE_X))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    typed_device(DEVICE1, "X"),
                    typed_device(DEVICE2, "Y"),
                    typed_device(DEVICE3, "Y"),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE3),
                    device_allocation_result(REQ2, DRIVER_A, POOL1, DEVICE1),
                )
            ],
            expect_num_allocate_one_invocations=12,
        ),
        "check-combinations-with-backtracking-across-slices-and-pools": Case(
            features=BINDING,
            claims=[claim(CLAIM0, request(REQ1, CLASS_A, 2), request(REQ2, CLASS_A, 1, TYPE_X))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, typed_device(DEVICE1, "X")
                ),
                slice_with_devices(
                    SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, typed_device(DEVICE2, "Y")
                ),
                slice_with_devices(
                    "slice-3",
                    NODE1,
                    POOL2,
                    DRIVER_A,
                    typed_device(DEVICE3, "Y", bindingConditions=["IsPrepare"]),
                ),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ1, DRIVER_A, POOL1, DEVICE2),
                    device_allocation_result(
                        REQ1, DRIVER_A, POOL2, DEVICE3, bindingConditions=["IsPrepare"]
                    ),
                    device_allocation_result(REQ2, DRIVER_A, POOL1, DEVICE1),
                )
            ],
            expect_num_allocate_one_invocations=12,
        ),
    }
)


# -- allocation mode All, constraints that do not match, limits, prioritized lists -------------


def all_of_class_a_or_one_of_class_b() -> ResourceClaim:
    """Upstream's claim for all devices of class A or, failing that, one device of class B."""
    return claim(
        CLAIM0,
        request_with_prioritized_list(
            REQ0,
            sub_request(SUB_REQ0, CLASS_A, 0).with_allocation_mode("All"),
            sub_request(SUB_REQ1, CLASS_B, 1),
        ),
    )


SELECTED_CLASS_A = DeviceClass.from_dict(
    {
        "metadata": {"name": CLASS_A},
        "spec": {
            "selectors": [
                cel(f'device.driver == "{DRIVER_A}" && device.attributes["{DRIVER_A}"].selected')
            ]
        },
    }
)
"""Class A with a selector that takes only the devices marked ``selected``."""

CASES.update(
    {
        "all-devices-of-the-incomplete-pool": Case(
            claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A, count=1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                # The pool should have two slices but has only this one.
                slice_with_one_device(SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A)
            ],
            node=node(NODE1, REGION1),
            expect_error=(
                "claim default/claim-0, request req-0: asks for all devices, but resource pool "
                "driver-a/pool-1 is currently being updated"
            ),
        ),
        "all-devices-plus-another": Case(
            claims=[
                claim(CLAIM0, all_device_request(REQ0, CLASS_A)),
                claim(CLAIM1, request(REQ0, CLASS_B, 1)),
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                ),
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1),
                ),
            ],
        ),
        "all-devices-plus-another-reversed": Case(
            claims=[
                claim(CLAIM1, request(REQ0, CLASS_B, 1)),
                claim(CLAIM0, all_device_request(REQ0, CLASS_A)),
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1),
                ),
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                ),
            ],
        ),
        "all-devices-many-plus-another": Case(
            claims=[
                claim(CLAIM0, all_device_request(REQ0, CLASS_A)),
                claim(CLAIM1, request(REQ0, CLASS_B, 1)),
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)
                ),
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                ),
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1),
                ),
            ],
        ),
        "all-devices-many-plus-another-reversed": Case(
            claims=[
                claim(CLAIM1, request(REQ0, CLASS_B, 1)),
                claim(CLAIM0, all_device_request(REQ0, CLASS_A)),
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)
                ),
                slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_B, POOL1, DEVICE1),
                ),
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                ),
            ],
        ),
        "all-devices-no-slices": Case(
            claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            node=node(NODE1, REGION1),
        ),
        "all-devices-slice-without-devices-prioritized-list": Case(
            features=Features(prioritized_list=True),
            claims=[all_of_class_a_or_one_of_class_b()],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_no_devices(SLICE1, NODE1, POOL1, DRIVER_A),
                slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL2, DEVICE1),
                )
            ],
        ),
        "all-devices-no-slices-prioritized-list": Case(
            features=Features(prioritized_list=True),
            claims=[all_of_class_a_or_one_of_class_b()],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL2, DEVICE1),
                )
            ],
        ),
        "all-devices-some-allocated-prioritized-list": Case(
            features=Features(prioritized_list=True),
            claims=[all_of_class_a_or_one_of_class_b()],
            allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)
                ),
                slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_B, POOL2, DEVICE1),
                )
            ],
        ),
        "with-constraint-not-matching-int-attribute": Case(
            claims=[
                claim(
                    CLAIM0, request(REQ0, CLASS_A, 2), constraints=[match_attribute(INT_ATTRIBUTE)]
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"numa": {"int": 1}}),
                    device(DEVICE2, attributes={"numa": {"int": 2}}),
                )
            ],
            node=node(NODE1, REGION1),
        ),
        "with-constraint-not-matching-string-attribute": Case(
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 2),
                    constraints=[match_attribute(STRING_ATTRIBUTE)],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(
                        DEVICE1, attributes={"stringAttribute": {"string": "stringAttributeValue"}}
                    ),
                    device(
                        DEVICE2, attributes={"stringAttribute": {"string": "stringAttributeValue2"}}
                    ),
                )
            ],
            node=node(NODE1, REGION1),
        ),
        "with-constraint-not-matching-bool-attribute": Case(
            claims=[
                claim(
                    CLAIM0, request(REQ0, CLASS_A, 2), constraints=[match_attribute(BOOL_ATTRIBUTE)]
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"boolAttribute": {"bool": True}}),
                    device(DEVICE2, attributes={"boolAttribute": {"bool": False}}),
                )
            ],
            node=node(NODE1, REGION1),
        ),
        "with-constraint-not-matching-version-attribute": Case(
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 2),
                    constraints=[match_attribute(VERSION_ATTRIBUTE)],
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"driverVersion": {"version": "1.0.0"}}),
                    device(DEVICE2, attributes={"driverVersion": {"version": "2.0.0"}}),
                )
            ],
            node=node(NODE1, REGION1),
        ),
        "all-devices-invalid-CEL": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 500))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            expect_error="exceeds the claim limit",
        ),
        "tainted-prioritized-list-disabled": Case(
            features=Features(device_taints=False, prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0, sub_request(SUB_REQ0, CLASS_B, 1), sub_request(SUB_REQ1, CLASS_A, 1)
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1).with_taints(TAINT_NO_SCHEDULE)
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "tainted-all-devices-single-disabled": Case(
            features=Features(device_taints=False),
            claims=[claim(CLAIM0, all_device_request(REQ0, CLASS_A))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1).with_taints(TAINT_NO_SCHEDULE)
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "prioritized-list-allocation-mode-all": Case(
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, 0).with_allocation_mode("All"),
                        sub_request(SUB_REQ1, CLASS_A, 1),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
            ],
            allocated_devices=[DeviceID(DRIVER_A, POOL1, DEVICE2)],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "prioritized-list-allocation-mode-all-with-selectors": Case(
            # Mode All must get at least one device, else the next subrequest is tried.
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(
                            SUB_REQ0,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v6"'),
                        ).with_allocation_mode("All"),
                        sub_request(
                            SUB_REQ1,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v5"'),
                        ).with_allocation_mode("All"),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"generation": {"string": "v5"}}),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
        ),
        "prioritized-list-allocation-mode-all-with-selectors-multiple-pools": Case(
            # Mode All takes the class's devices from every pool.
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(
                            SUB_REQ0,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v6"'),
                        ).with_allocation_mode("All"),
                        sub_request(
                            SUB_REQ1,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v5"'),
                        ).with_allocation_mode("All"),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"generation": {"string": "v5"}}),
                ),
                slice_with_devices(
                    SLICE2,
                    NODE1,
                    POOL2,
                    DRIVER_A,
                    device(DEVICE1, attributes={"generation": {"string": "v5"}}),
                ),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL2, DEVICE1),
                )
            ],
        ),
        "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes": Case(
            # Mode All takes the class's devices of every pool, but only those the node can use.
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(
                            SUB_REQ0,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v6"'),
                        ).with_allocation_mode("All"),
                        sub_request(
                            SUB_REQ1,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v5"'),
                        ).with_allocation_mode("All"),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"generation": {"string": "v5"}}),
                ),
                slice_with_devices(
                    SLICE2,
                    NODE2,
                    POOL2,
                    DRIVER_A,
                    device(DEVICE1, attributes={"generation": {"string": "v5"}}),
                    device(DEVICE2, attributes={"generation": {"string": "v6"}}),
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
        "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset": Case(
            # The class's own selector narrows what mode All takes.
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(
                            SUB_REQ0,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v6"'),
                        ).with_allocation_mode("All"),
                        sub_request(
                            SUB_REQ1,
                            CLASS_A,
                            0,
                            cel(f'device.attributes["{DRIVER_A}"].generation == "v5"'),
                        ).with_allocation_mode("All"),
                    ),
                )
            ],
            classes=[SELECTED_CLASS_A],
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(
                        DEVICE1,
                        attributes={"generation": {"string": "v6"}, "selected": {"bool": False}},
                    ),
                    device(
                        DEVICE2,
                        attributes={"generation": {"string": "v5"}, "selected": {"bool": False}},
                    ),
                    device(
                        DEVICE3,
                        attributes={"generation": {"string": "v5"}, "selected": {"bool": True}},
                    ),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE3),
                )
            ],
        ),
        "max-number-devices": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_multiple_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, ALLOCATION_RESULTS_MAX_SIZE
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    *multiple_device_allocation_results(
                        REQ0, DRIVER_A, POOL1, ALLOCATION_RESULTS_MAX_SIZE, 0
                    ),
                )
            ],
        ),
        "prioritized-list-max-allocation-limit-request": Case(
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE),
                        sub_request(SUB_REQ1, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE // 2),
                    ),
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(SUB_REQ0, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE),
                        sub_request(SUB_REQ1, CLASS_A, ALLOCATION_RESULTS_MAX_SIZE // 2),
                    ),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_multiple_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, ALLOCATION_RESULTS_MAX_SIZE * 2
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    *multiple_device_allocation_results(
                        REQ0_SUB_REQ1, DRIVER_A, POOL1, ALLOCATION_RESULTS_MAX_SIZE // 2, 0
                    )
                    + multiple_device_allocation_results(
                        REQ1_SUB_REQ1,
                        DRIVER_A,
                        POOL1,
                        ALLOCATION_RESULTS_MAX_SIZE // 2,
                        ALLOCATION_RESULTS_MAX_SIZE // 2,
                    ),
                )
            ],
            expect_num_allocate_one_invocations=75,
        ),
        "prioritized-list-max-allocation-allocation-mode-all": Case(
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request_with_prioritized_list(
                        REQ0,
                        sub_request(SUB_REQ0, CLASS_A, 0).with_allocation_mode("All"),
                        sub_request(SUB_REQ1, CLASS_A, 2),
                    ),
                    device_request(REQ1, CLASS_B, 2),
                )
            ],
            classes=[device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)],
            slices=[
                slice_with_multiple_devices(
                    SLICE1, NODE1, POOL1, DRIVER_A, ALLOCATION_RESULTS_MAX_SIZE - 1
                ),
                slice_with_multiple_devices(SLICE2, NODE1, POOL2, DRIVER_B, 2),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, "device-0"),
                    device_allocation_result(REQ0_SUB_REQ1, DRIVER_A, POOL1, "device-1"),
                    device_allocation_result(REQ1, DRIVER_B, POOL2, "device-0"),
                    device_allocation_result(REQ1, DRIVER_B, POOL2, "device-1"),
                )
            ],
            expect_num_allocate_one_invocations=42,
        ),
        "different-resourceslices-in-pool-can-target-different-nodes": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE2, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE2)
                ),
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
                )
            ],
        ),
        "check-combinations-within-single-request-multiple-pools-multiple-slices": Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 5))],
            classes=[device_class(CLASS_A, DRIVER_A)],
            slices=[
                slice_with_devices(
                    SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
                ),
                slice_with_devices(
                    SLICE2, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE2)
                ),
                slice_with_devices(
                    SLICE3, NODE1, POOL2, DRIVER_A, device(DEVICE3), device(DEVICE4)
                ),
            ],
            node=node(NODE1, REGION1),
            expect_num_allocate_one_invocations=16,
        ),
        "check-combinations-with-prioritized-list": Case(
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    # Too few devices of type Y: all are tried before the second subrequest is.
                    request_with_prioritized_list(
                        REQ1,
                        sub_request(
                            SUB_REQ0,
                            CLASS_A,
                            3,
                            cel(f'device.attributes["{DRIVER_A}"].type == "Y"'),
                        ),
                        sub_request(SUB_REQ1, CLASS_A, 2),
                    ),
                    # Two devices are too many, so the second subrequest is used.
                    request_with_prioritized_list(
                        REQ2,
                        sub_request(SUB_REQ0, CLASS_A, 2),
                        sub_request(
                            SUB_REQ1,
                            CLASS_A,
                            1,
                            cel(f'device.attributes["{DRIVER_A}"].type == "X"'),
                        ),
                    ),
                ),
            ],
            classes=[device_class(CLASS_A, DRIVER_A)],
            # In this order the search first gives device-1 and device-2 to req-1, then has to
            # backtrack because req-2 needs device-1.
            slices=[
                slice_with_devices(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEVICE1, attributes={"type": {"string": "X"}}),
                    device(DEVICE2, attributes={"type": {"string": "Y"}}),
                    device(DEVICE3, attributes={"type": {"string": "Y"}}),
                )
            ],
            node=node(NODE1, REGION1),
            expect_results=[
                allocation_result(
                    local_node_selector(NODE1),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE2),
                    device_allocation_result(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE3),
                    device_allocation_result(REQ2_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                )
            ],
            expect_num_allocate_one_invocations=26,
        ),
    }
)


# -- lexicographical_testing.go: pools and slices are tried in name order ----------------------

LEXICOGRAPHICAL_CASES: dict[str, Case] = {
    "lexicographical-sorting-pools": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            # Pools listed in reverse name order.
            slice_with_one_device(SLICE1, NODE1, resource_pool(POOL3, 1), DRIVER_A),
            slice_with_one_device(SLICE2, NODE1, resource_pool(POOL2, 1), DRIVER_A),
            slice_with_one_device(SLICE3, NODE1, resource_pool(POOL1, 1), DRIVER_A),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "lexicographical-sorting-pools-with-binding-conditions": Case(
        features=Features(device_binding_and_status=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            # Devices with binding conditions come last, whatever their pool's name.
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 1),
                DRIVER_A,
                device(DEVICE1).with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
            ),
            slice_with_devices(SLICE3, NODE1, resource_pool(POOL3, 1), DRIVER_A, device(DEVICE3)),
            slice_with_devices(SLICE2, NODE1, resource_pool(POOL2, 1), DRIVER_A, device(DEVICE2)),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL2, DEVICE2),
                device_allocation_result(REQ0, DRIVER_A, POOL3, DEVICE3),
            )
        ],
    ),
    "lexicographical-sorting-slices": Case(
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            # Slices listed in reverse name order.
            slice_with_devices(SLICE3, NODE1, resource_pool(POOL1, 3), DRIVER_A, device(DEVICE3)),
            slice_with_devices(SLICE2, NODE1, resource_pool(POOL1, 3), DRIVER_A, device(DEVICE2)),
            slice_with_devices(SLICE1, NODE1, resource_pool(POOL1, 3), DRIVER_A, device(DEVICE1)),
        ],
        node=node(NODE1, REGION1),
        expect_results=[
            allocation_result(
                local_node_selector(NODE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE1),
                device_allocation_result(REQ0, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "lexicographical-sorting-slices-with-binding-conditions": Case(
        features=Features(device_binding_and_status=True),
        claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        classes=[device_class(CLASS_A, DRIVER_A)],
        slices=[
            slice_with_devices(
                SLICE1,
                NODE1,
                resource_pool(POOL1, 3),
                DRIVER_A,
                device(DEVICE1).with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
            ),
            slice_with_devices(SLICE3, NODE1, resource_pool(POOL1, 3), DRIVER_A, device(DEVICE3)),
            slice_with_devices(SLICE2, NODE1, resource_pool(POOL1, 3), DRIVER_A, device(DEVICE2)),
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
            )
        ],
    ),
}


@pytest.mark.parametrize("case", LEXICOGRAPHICAL_CASES.values(), ids=LEXICOGRAPHICAL_CASES.keys())
def test_lexicographical_allocator(case: Case) -> None:
    check(case)
