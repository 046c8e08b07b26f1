"""resource.k8s.io/v1 kinds: what the structured allocator and the DynamicResources plugin read."""

from __future__ import annotations

import pytest

from framework.api.device_class import DeviceClass
from framework.api.errors import ObjectError
from framework.api.loader import dump_objects, load_objects
from framework.api.pod import Pod, PodResourceClaim, PodResourceClaimStatus
from framework.api.quantity import Quantity
from framework.api.resource_claim import (
    AllocationResult,
    DeviceRequestAllocationResult,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
)
from framework.api.resource_slice import DeviceAttribute, ResourceSlice
from framework.api.taints import Taint, Toleration

GPU_POOL = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-counters}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 2, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0
    counters: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 2, resourceSliceCount: 2}
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      cores: {int: 108}
      mig: {bool: false}
      driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 40Gi}
    consumesCounters:
    - counterSet: gpu-0
      counters: {memory: {value: 40Gi}}
    taints:
    - {key: broken, value: "yes", effect: NoSchedule}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: team}
spec:
  metadata: {labels: {app: train}}
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}
          tolerations: [{key: broken, operator: Exists}]
      - name: big-or-small
        firstAvailable:
        - {name: big, deviceClassName: gpu.example.com, allocationMode: All}
        - {name: small, deviceClassName: gpu.example.com, count: 2}
      constraints:
      - requests: [gpu, big-or-small]
        matchAttribute: gpu.example.com/model
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team}
spec:
  containers: [{name: c, image: trainer, resources: {claims: [{name: gpu}]}}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: shared, resourceClaimName: shared-gpu}
status:
  resourceClaimStatuses:
  - {name: gpu, resourceClaimName: trainer-gpu-x7k2}
"""


def load_pool() -> tuple[DeviceClass, ResourceSlice, ResourceClaimTemplate, Pod]:
    """The class, the slice with the devices, the template and the pod (a pool's counters
    and its devices are in different slices since v1.35)."""
    device_class, _, resource_slice, template, pod = load_objects(GPU_POOL)
    assert isinstance(device_class, DeviceClass)
    assert isinstance(resource_slice, ResourceSlice)
    assert isinstance(template, ResourceClaimTemplate)
    assert isinstance(pod, Pod)
    return device_class, resource_slice, template, pod


def test_a_device_class_has_its_selectors_and_extended_resource_name():
    device_class, _, _, _ = load_pool()
    assert not device_class.NAMESPACED
    assert device_class.key == "gpu.example.com"
    assert [s.cel_expression for s in device_class.spec.selectors] == [
        'device.driver == "gpu.example.com"'
    ]
    assert device_class.spec.extended_resource_name == "example.com/gpu"


def test_a_resource_slice_types_its_devices_attributes_capacity_and_counters():
    _, resource_slice, _, _ = load_pool()
    spec = resource_slice.spec
    assert (spec.driver, spec.node_name, spec.all_nodes) == ("gpu.example.com", "node-1", None)
    assert (spec.pool.name, spec.pool.generation, spec.pool.resource_slice_count) == (
        "node-1",
        2,
        2,
    )
    counters = load_objects(GPU_POOL)[1]
    assert isinstance(counters, ResourceSlice)
    assert counters.spec.shared_counters[0].counters == {"memory": Quantity.parse("40Gi")}
    device = spec.devices[0]
    assert device.attributes == {
        "model": DeviceAttribute(string_value="a100"),
        "cores": DeviceAttribute(int_value=108),
        "mig": DeviceAttribute(bool_value=False),
        "driverVersion": DeviceAttribute(version_value="1.2.3"),
    }
    assert device.capacity["memory"].value == Quantity.parse("40Gi")
    assert device.consumes_counters[0].counter_set == "gpu-0"
    assert device.taints == [Taint("broken", "yes", "NoSchedule")]


def test_a_claim_template_applies_the_api_servers_defaults_to_its_requests():
    _, _, template, _ = load_pool()
    assert template.claim_metadata == {"labels": {"app": "train"}}
    gpu, big_or_small = template.spec.requests
    assert gpu.exactly is not None
    assert (gpu.exactly.allocation_mode, gpu.exactly.count) == ("ExactCount", 1)
    assert gpu.exactly.tolerations == [Toleration(key="broken", operator="Exists")]
    assert gpu.first_available == []
    assert big_or_small.exactly is None
    big, small = big_or_small.first_available
    assert (big.name, big.exactly.allocation_mode, big.exactly.count) == ("big", "All", 0)
    assert (small.name, small.exactly.allocation_mode, small.exactly.count) == (
        "small",
        "ExactCount",
        2,
    )
    constraint = template.spec.constraints[0]
    assert constraint.requests == ["gpu", "big-or-small"]
    assert constraint.match_attribute == "gpu.example.com/model"


def test_a_pod_names_its_claims_and_the_claims_made_for_it():
    _, _, _, pod = load_pool()
    assert pod.spec.resource_claims == [
        PodResourceClaim("gpu", resource_claim_template_name="one-gpu"),
        PodResourceClaim("shared", resource_claim_name="shared-gpu"),
    ]
    assert pod.status.resource_claim_statuses == [PodResourceClaimStatus("gpu", "trainer-gpu-x7k2")]


def test_a_claims_allocation_and_reservations_are_written_back():
    (claim,) = load_objects(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
        "metadata: {name: c, namespace: team}\n"
        "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}\n"
    )
    assert isinstance(claim, ResourceClaim)
    assert claim.status.allocation is None
    claim.status.allocation = AllocationResult(
        results=[DeviceRequestAllocationResult("gpu", "gpu.example.com", "node-1", "gpu-0")],
        node_selector_dict={
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}
            ]
        },
    )
    claim.status.reserved_for = [ResourceClaimConsumerReference("pods", "p", "uid-1")]
    (again,) = load_objects(dump_objects([claim]))
    assert again.to_dict()["status"] == {
        "allocation": {
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": "gpu.example.com",
                        "pool": "node-1",
                        "device": "gpu-0",
                    }
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}
                ]
            },
        },
        "reservedFor": [{"resource": "pods", "name": "p", "uid": "uid-1"}],
    }
    assert again.status.allocation.results[0].device == "gpu-0"
    assert again.status.allocation.node_selector.node_selector_terms[0].match_fields


def test_a_wrong_type_names_the_field_path():
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
        "spec: {driver: d, pool: {name: p}, devices: [{name: x, attributes: {a: {int: yes}}}]}\n"
    )
    with pytest.raises(ObjectError) as raised:
        load_objects(text)
    assert "spec.devices[0].attributes.a.int" in str(raised.value)
