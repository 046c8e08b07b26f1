"""The in-tree registry: every plugin kube-scheduler v1.36 ships, by name.

Adding a plugin touches its own package and one line here. Factories close over the feature
switches, resolved once from the gates, as upstream's FactoryAdapter does.
"""

from __future__ import annotations

from functools import partial

from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.plugins import names
from framework.plugins.defaultbinder.default_binder import DefaultBinder
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.feature import Features
from framework.plugins.gangscheduling.gang_scheduling import GangScheduling
from framework.plugins.imagelocality.image_locality import ImageLocality
from framework.plugins.interpodaffinity.plugin import InterPodAffinity
from framework.plugins.nodeaffinity.node_affinity import NodeAffinity
from framework.plugins.nodedeclaredfeatures.nodedeclaredfeatures import NodeDeclaredFeatures
from framework.plugins.nodename.node_name import NodeName
from framework.plugins.nodeports.node_ports import NodePorts
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit
from framework.plugins.nodeunschedulable.node_unschedulable import NodeUnschedulable
from framework.plugins.nodevolumelimits.csi import CSILimits
from framework.plugins.podgrouppodscount.podgroup_pods_count import PodGroupPodsCount
from framework.plugins.podtopologyspread.plugin import PodTopologySpread
from framework.plugins.queuesort.priority_sort import PrioritySort
from framework.plugins.schedulinggates.scheduling_gates import SchedulingGates
from framework.plugins.tainttoleration.taint_toleration import TaintToleration
from framework.plugins.topologyaware.topology_placement import TopologyPlacement
from framework.plugins.volumebinding.volume_binding import VolumeBinding
from framework.plugins.volumerestrictions.volume_restrictions import VolumeRestrictions
from framework.plugins.volumezone.volume_zone import VolumeZone
from framework.runtime.registry import PluginFactory, Registry


def in_tree_registry(gates: FeatureGates = DEFAULT_FEATURE_GATES) -> Registry:
    """Name -> factory(args, handle) for every in-tree plugin, whatever the gates, as upstream:
    a gated plugin named while its gate is off is built all the same (docs/configuration.md)."""
    features = Features.from_gates(gates)
    plugin_classes = {
        names.SCHEDULING_GATES: SchedulingGates,
        names.PRIORITY_SORT: PrioritySort,
        names.NODE_UNSCHEDULABLE: NodeUnschedulable,
        names.NODE_NAME: NodeName,
        names.NODE_PORTS: NodePorts,
        names.TAINT_TOLERATION: TaintToleration,
        names.IMAGE_LOCALITY: ImageLocality,
        names.NODE_DECLARED_FEATURES: NodeDeclaredFeatures,
        names.DEFAULT_BINDER: DefaultBinder,
        names.NODE_AFFINITY: NodeAffinity,
        names.NODE_RESOURCES_FIT: Fit,
        names.NODE_RESOURCES_BALANCED_ALLOCATION: BalancedAllocation,
        names.POD_TOPOLOGY_SPREAD: PodTopologySpread,
        names.INTER_POD_AFFINITY: InterPodAffinity,
        names.VOLUME_RESTRICTIONS: VolumeRestrictions,
        names.NODE_VOLUME_LIMITS: CSILimits,
        names.VOLUME_BINDING: VolumeBinding,
        names.VOLUME_ZONE: VolumeZone,
        names.DYNAMIC_RESOURCES: DynamicResources,
        names.DEFAULT_PREEMPTION: DefaultPreemption,
        names.GANG_SCHEDULING: GangScheduling,
        names.TOPOLOGY_PLACEMENT_GENERATOR: TopologyPlacement,
        names.POD_GROUP_PODS_COUNT: PodGroupPodsCount,
    }
    return Registry({name: _factory(cls, features) for name, cls in plugin_classes.items()})


def _factory(cls: type, features: Features) -> PluginFactory:
    # A partial of the class, not a lambda: ``plugin_type`` can tell which class it builds.
    return partial(cls, features=features)
