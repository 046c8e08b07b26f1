"""Defaulting: what kube-scheduler fills in for everything a configuration file leaves out.

:func:`set_defaults` applies upstream's v1 defaults (``apis/config/v1/defaults.go`` and
``default_plugins.go``) and then what the conversion to the internal version implies: a
missing plugin weight becomes 0, a missing scheduler name becomes "", contention profiling
stays off unless profiling is on. The result is what the scheduler and the runtime read,
and what ``--write-config-to`` prints.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from framework.config.default_plugins import default_plugins, merge_plugins, plugin_names
from framework.config.types import (
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    LEAST_ALLOCATED,
    MAX_CUSTOM_PRIORITY_SCORE,
    SYSTEM_DEFAULTING,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginConfig,
    PodTopologySpreadArgs,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
    args_type_for_plugin,
)
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates

DEFAULT_PARALLELISM = 16
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10
DEFAULT_RESOURCE_LOCK = "leases"
DEFAULT_LOCK_OBJECT_NAMESPACE = "kube-system"
DEFAULT_LOCK_OBJECT_NAME = "kube-scheduler"
DEFAULT_CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
DYNAMIC_RESOURCES_FILTER_TIMEOUT_DEFAULT = timedelta(seconds=10)
DYNAMIC_RESOURCES_BINDING_TIMEOUT_DEFAULT = timedelta(seconds=600)


def set_defaults(
    cfg: KubeSchedulerConfiguration, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> KubeSchedulerConfiguration:
    """Fills in every default, in place; returns ``cfg`` for convenience."""
    _set_configuration_defaults(cfg, features)
    _fill_internal_zero_values(cfg)
    return cfg


def default_configuration(
    features: FeatureGates = DEFAULT_FEATURE_GATES,
) -> KubeSchedulerConfiguration:
    """The configuration kube-scheduler runs with when given no file.

    Leader election is off, as in the recorded reference (``--leader-elect=false``): the
    engine runs one scheduler per cluster in-process. A file that does not mention
    ``leaderElection.leaderElect`` gets upstream's default, true.
    """
    cfg = KubeSchedulerConfiguration(
        leader_election=LeaderElectionConfiguration(leader_elect=False)
    )
    return set_defaults(cfg, features)


def set_plugin_args_defaults(args: Any, features: FeatureGates = DEFAULT_FEATURE_GATES) -> None:
    """Defaults one typed args object in place (upstream's SetDefaults_<Kind>Args)."""
    defaulter = _ARGS_DEFAULTERS.get(type(args))
    if defaulter is not None:
        defaulter(args, features)


# --------------------------------------------------------------------------------------------
# v1 defaults


def _set_configuration_defaults(cfg: KubeSchedulerConfiguration, features: FeatureGates) -> None:
    if cfg.parallelism is None:
        cfg.parallelism = DEFAULT_PARALLELISM
    if not cfg.profiles:
        cfg.profiles.append(KubeSchedulerProfile())
    # Only a lone profile gets a name; validation insists every profile has a distinct one.
    if len(cfg.profiles) == 1 and cfg.profiles[0].scheduler_name is None:
        cfg.profiles[0].scheduler_name = DEFAULT_SCHEDULER_NAME
    for profile in cfg.profiles:
        _set_profile_defaults(profile, features)
    if cfg.percentage_of_nodes_to_score is None:
        cfg.percentage_of_nodes_to_score = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    _set_leader_election_defaults(cfg.leader_election)
    _set_client_connection_defaults(cfg)
    if cfg.pod_initial_backoff_seconds is None:
        cfg.pod_initial_backoff_seconds = DEFAULT_POD_INITIAL_BACKOFF_SECONDS
    if cfg.pod_max_backoff_seconds is None:
        cfg.pod_max_backoff_seconds = DEFAULT_POD_MAX_BACKOFF_SECONDS
    if cfg.enable_profiling is None:
        cfg.enable_profiling = True
    if cfg.enable_profiling and cfg.enable_contention_profiling is None:
        cfg.enable_contention_profiling = True


def _set_profile_defaults(profile: KubeSchedulerProfile, features: FeatureGates) -> None:
    profile.plugins = merge_plugins(default_plugins(features), profile.plugins)
    configured = set()
    for plugin_config in profile.plugin_config:
        configured.add(plugin_config.name)
        set_plugin_args_defaults(plugin_config.args, features)
    # Every enabled in-tree plugin with args gets a defaulted config, in name order.
    for name in plugin_names(profile.plugins):
        args_type = args_type_for_plugin(name)
        if name in configured or args_type is None:
            continue
        args = args_type()
        set_plugin_args_defaults(args, features)
        profile.plugin_config.append(PluginConfig(name=name, args=args))


def _set_leader_election_defaults(election: LeaderElectionConfiguration) -> None:
    if not election.resource_lock:
        election.resource_lock = DEFAULT_RESOURCE_LOCK
    if not election.resource_namespace:
        election.resource_namespace = DEFAULT_LOCK_OBJECT_NAMESPACE
    if not election.resource_name:
        election.resource_name = DEFAULT_LOCK_OBJECT_NAME
    # component-base's recommended defaults.
    if not election.lease_duration:
        election.lease_duration = timedelta(seconds=15)
    if not election.renew_deadline:
        election.renew_deadline = timedelta(seconds=10)
    if not election.retry_period:
        election.retry_period = timedelta(seconds=2)
    if election.leader_elect is None:
        election.leader_elect = True


def _set_client_connection_defaults(cfg: KubeSchedulerConfiguration) -> None:
    connection = cfg.client_connection
    if not connection.content_type:
        connection.content_type = DEFAULT_CONTENT_TYPE
    # The scheduler's own opinion, higher than client-go's generic defaults.
    if connection.qps == 0:
        connection.qps = 50.0
    if connection.burst == 0:
        connection.burst = 100


# --------------------------------------------------------------------------------------------
# Plugin args defaults


def _default_resources() -> list[ResourceSpec]:
    return [ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1)]


def _default_preemption(args: DefaultPreemptionArgs, features: FeatureGates) -> None:
    if args.min_candidate_nodes_percentage is None:
        args.min_candidate_nodes_percentage = 10
    if args.min_candidate_nodes_absolute is None:
        args.min_candidate_nodes_absolute = 100


def _inter_pod_affinity(args: InterPodAffinityArgs, features: FeatureGates) -> None:
    if args.hard_pod_affinity_weight is None:
        args.hard_pod_affinity_weight = 1


def _volume_binding(args: VolumeBindingArgs, features: FeatureGates) -> None:
    if args.bind_timeout_seconds is None:
        args.bind_timeout_seconds = 600
    if not args.shape and features.enabled("StorageCapacityScoring"):
        args.shape = [
            UtilizationShapePoint(utilization=0, score=MAX_CUSTOM_PRIORITY_SCORE),
            UtilizationShapePoint(utilization=100, score=0),
        ]


def _balanced_allocation(args: NodeResourcesBalancedAllocationArgs, features: FeatureGates) -> None:
    if not args.resources:
        args.resources = _default_resources()
        return
    for resource in args.resources:
        if resource.weight == 0:
            resource.weight = 1


def _pod_topology_spread(args: PodTopologySpreadArgs, features: FeatureGates) -> None:
    if not args.defaulting_type:
        args.defaulting_type = SYSTEM_DEFAULTING


def _node_resources_fit(args: NodeResourcesFitArgs, features: FeatureGates) -> None:
    if args.scoring_strategy is None:
        args.scoring_strategy = ScoringStrategy(type=LEAST_ALLOCATED)
    strategy = args.scoring_strategy
    if not strategy.resources:
        strategy.resources = _default_resources()
    for resource in strategy.resources:
        if resource.weight == 0:
            resource.weight = 1


def _dynamic_resources(args: DynamicResourcesArgs, features: FeatureGates) -> None:
    if args.filter_timeout is None and features.enabled("DRASchedulerFilterTimeout"):
        args.filter_timeout = DYNAMIC_RESOURCES_FILTER_TIMEOUT_DEFAULT
    if (
        args.binding_timeout is None
        and features.enabled("DRADeviceBindingConditions")
        and features.enabled("DRAResourceClaimDeviceStatus")
    ):
        args.binding_timeout = DYNAMIC_RESOURCES_BINDING_TIMEOUT_DEFAULT


_ARGS_DEFAULTERS: dict[type, Any] = {
    DefaultPreemptionArgs: _default_preemption,
    InterPodAffinityArgs: _inter_pod_affinity,
    VolumeBindingArgs: _volume_binding,
    NodeResourcesBalancedAllocationArgs: _balanced_allocation,
    PodTopologySpreadArgs: _pod_topology_spread,
    NodeResourcesFitArgs: _node_resources_fit,
    DynamicResourcesArgs: _dynamic_resources,
}


# --------------------------------------------------------------------------------------------
# Conversion to the internal version: unset values read as Go zero values.


def _fill_internal_zero_values(cfg: KubeSchedulerConfiguration) -> None:
    if cfg.enable_contention_profiling is None:
        cfg.enable_contention_profiling = False
    for profile in cfg.profiles:
        if profile.scheduler_name is None:
            profile.scheduler_name = ""
        if profile.plugins is None:
            continue
        for attr, _ in EXTENSION_POINTS:
            plugin_set = getattr(profile.plugins, attr)
            for plugin in (*plugin_set.enabled, *plugin_set.disabled):
                if plugin.weight is None:
                    plugin.weight = 0
