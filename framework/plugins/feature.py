"""The feature switches plugins read, resolved once from the feature gates (upstream plfeature)."""

from __future__ import annotations

from dataclasses import dataclass

from framework.features import DEFAULT_FEATURE_GATES, FeatureGates


@dataclass(frozen=True, slots=True)
class Features:
    enable_dra_extended_resource: bool = False
    enable_dra_prioritized_list: bool = False
    enable_dra_admin_access: bool = False
    enable_dra_consumable_capacity: bool = False
    enable_dra_device_taints: bool = False
    enable_dra_device_binding_conditions: bool = False
    enable_dra_list_type_attributes: bool = False
    enable_dra_node_allocatable_resources: bool = False
    enable_dra_partitionable_devices: bool = False
    enable_dra_resource_claim_device_status: bool = False
    enable_dra_scheduler_filter_timeout: bool = False
    enable_dra_workload_resource_claims: bool = False
    enable_dynamic_resource_allocation: bool = False
    enable_volume_attributes_class: bool = False
    enable_volume_limit_scaling: bool = False
    enable_node_inclusion_policy_in_pod_topology_spread: bool = False
    enable_match_label_keys_in_pod_topology_spread: bool = False
    enable_in_place_pod_vertical_scaling: bool = False
    enable_sidecar_containers: bool = False
    enable_scheduling_queue_hint: bool = False
    enable_async_preemption: bool = False
    enable_pod_level_resources: bool = False
    enable_storage_capacity_scoring: bool = False
    enable_node_declared_features: bool = False
    enable_gang_scheduling: bool = False
    enable_generic_workload: bool = False
    enable_taint_toleration_comparison_operators: bool = False
    enable_in_place_pod_level_resources_vertical_scaling: bool = False
    enable_topology_aware_workload_scheduling: bool = False
    enable_workload_aware_preemption: bool = False

    @classmethod
    def from_gates(cls, gates: FeatureGates = DEFAULT_FEATURE_GATES) -> Features:
        return cls(**{field: gates.enabled(gate) for field, gate in _GATES.items()})


_GATES = {
    "enable_dra_extended_resource": "DRAExtendedResource",
    "enable_dra_prioritized_list": "DRAPrioritizedList",
    "enable_dra_admin_access": "DRAAdminAccess",
    "enable_dra_consumable_capacity": "DRAConsumableCapacity",
    "enable_dra_device_taints": "DRADeviceTaints",
    "enable_dra_device_binding_conditions": "DRADeviceBindingConditions",
    "enable_dra_list_type_attributes": "DRAListTypeAttributes",
    "enable_dra_node_allocatable_resources": "DRANodeAllocatableResources",
    "enable_dra_partitionable_devices": "DRAPartitionableDevices",
    "enable_dra_resource_claim_device_status": "DRAResourceClaimDeviceStatus",
    "enable_dra_scheduler_filter_timeout": "DRASchedulerFilterTimeout",
    "enable_dra_workload_resource_claims": "DRAWorkloadResourceClaims",
    "enable_dynamic_resource_allocation": "DynamicResourceAllocation",
    "enable_volume_attributes_class": "VolumeAttributesClass",
    "enable_volume_limit_scaling": "VolumeLimitScaling",
    "enable_node_inclusion_policy_in_pod_topology_spread": "NodeInclusionPolicyInPodTopologySpread",
    "enable_match_label_keys_in_pod_topology_spread": "MatchLabelKeysInPodTopologySpread",
    "enable_in_place_pod_vertical_scaling": "InPlacePodVerticalScaling",
    "enable_sidecar_containers": "SidecarContainers",
    "enable_scheduling_queue_hint": "SchedulerQueueingHints",
    "enable_async_preemption": "SchedulerAsyncPreemption",
    "enable_pod_level_resources": "PodLevelResources",
    "enable_storage_capacity_scoring": "StorageCapacityScoring",
    "enable_node_declared_features": "NodeDeclaredFeatures",
    "enable_gang_scheduling": "GangScheduling",
    "enable_generic_workload": "GenericWorkload",
    "enable_taint_toleration_comparison_operators": "TaintTolerationComparisonOperators",
    "enable_in_place_pod_level_resources_vertical_scaling": (
        "InPlacePodLevelResourcesVerticalScaling"
    ),
    "enable_topology_aware_workload_scheduling": "TopologyAwareWorkloadScheduling",
    "enable_workload_aware_preemption": "WorkloadAwarePreemption",
}
