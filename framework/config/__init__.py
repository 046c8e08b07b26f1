"""KubeSchedulerConfiguration v1: load, default, validate and encode, as kube-scheduler does.

Typical use::

    cfg = set_defaults(load_config(Path("scheduler.yaml")))
    errors = validate(cfg)            # [] when valid; str(error) is upstream's message
    print(to_yaml(cfg))               # what --write-config-to would write
"""

from framework.api.field_errors import FieldError
from framework.config.corev1 import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    TopologySpreadConstraint,
)
from framework.config.default_plugins import default_plugins, merge_plugins, plugin_names
from framework.config.defaults import default_configuration, set_defaults, set_plugin_args_defaults
from framework.config.encode import to_dict, to_json_value, to_yaml
from framework.config.load import ConfigError, load_config
from framework.config.types import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    PLUGIN_ARGS_TYPES,
    ClientConnectionConfiguration,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    Extender,
    ExtenderManagedResource,
    ExtenderTLSConfig,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
    args_type_for_plugin,
)
from framework.config.validation import validate
from framework.config.validation_pluginargs import validate_node_resources_fit_args

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "PLUGIN_ARGS_TYPES",
    "ClientConnectionConfiguration",
    "ConfigError",
    "DefaultPreemptionArgs",
    "DynamicResourcesArgs",
    "Extender",
    "ExtenderManagedResource",
    "ExtenderTLSConfig",
    "FieldError",
    "InterPodAffinityArgs",
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "LabelSelector",
    "LabelSelectorRequirement",
    "LeaderElectionConfiguration",
    "NodeAffinity",
    "NodeAffinityArgs",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "Plugin",
    "PluginConfig",
    "PluginSet",
    "Plugins",
    "PodTopologySpreadArgs",
    "PreferredSchedulingTerm",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "TopologySpreadConstraint",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "args_type_for_plugin",
    "default_configuration",
    "default_plugins",
    "load_config",
    "merge_plugins",
    "plugin_names",
    "set_defaults",
    "set_plugin_args_defaults",
    "to_dict",
    "to_json_value",
    "to_yaml",
    "validate",
    "validate_node_resources_fit_args",
]
