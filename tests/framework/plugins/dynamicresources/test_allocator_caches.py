"""What one allocator does once for all the nodes of a pod's cycle (not upstream behaviour:
the same answers, found with less work)."""

from __future__ import annotations

from unittest import mock

from framework.plugins.dynamicresources.cel import compile as cel
from framework.plugins.dynamicresources.structured.allocator import Allocator
from framework.plugins.dynamicresources.structured.types import AllocatedState, Features
from tests.framework.plugins.dynamicresources.allocator_builders import (
    DRIVER_A,
    REGION1,
    claim_with_request,
    device_class,
    node,
    slice_with_multiple_devices,
)


def test_each_selector_is_compiled_once_per_allocator_whatever_the_nodes() -> None:
    nodes = [node(f"node-{i}", REGION1) for i in range(3)]
    slices = [
        slice_with_multiple_devices(f"slice-{n.name}", n.name, f"pool-{n.name}", DRIVER_A, 2)
        for n in nodes
    ]
    allocator = Allocator(
        Features(), AllocatedState(), {"class-a": device_class("class-a", DRIVER_A)}.get, slices
    )
    claim = claim_with_request("claim", "req-0", "class-a")
    with mock.patch.object(
        cel, "compile_cel_expression", side_effect=cel.compile_cel_expression
    ) as compile_expression:
        results = [allocator.allocate(n, [claim]) for n in nodes]
    assert [r[0].results[0].pool for r in results] == [f"pool-{n.name}" for n in nodes]
    compile_expression.assert_called_once_with(f'device.driver == "{DRIVER_A}"')
