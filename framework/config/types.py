"""KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``) as Python dataclasses.

Field names are the snake case of upstream's; ``X | None`` marks what upstream declares as a
pointer, so "not set" stays distinguishable until defaulting. Durations are
``datetime.timedelta``. After :func:`framework.config.set_defaults` every field the scheduler
reads has a value, exactly as in upstream's internal configuration type (an unset plugin
weight reads 0, which the framework treats as 1).

Plugin args are typed for in-tree plugins (one dataclass per ``<Plugin>Args`` kind) and kept as
the decoded JSON value (usually a dict) for out-of-tree plugins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Annotated, Any, ClassVar

from framework.config.corev1 import NodeAffinity, TopologySpreadConstraint
from framework.config.schema import OMITEMPTY, Float32, GoType, Int32, Int64, tag

GROUP = "kubescheduler.config.k8s.io"
API_VERSION = f"{GROUP}/v1"
KIND = "KubeSchedulerConfiguration"

DEFAULT_SCHEDULER_NAME = "default-scheduler"
MAX_CUSTOM_PRIORITY_SCORE = 10
"""The highest score a utilization shape point may give (upstream MaxCustomPriorityScore)."""

ScoringStrategyType = Annotated[str, GoType("v1.ScoringStrategyType")]
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"

PodTopologySpreadConstraintsDefaulting = Annotated[
    str, GoType("v1.PodTopologySpreadConstraintsDefaulting")
]
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


# --------------------------------------------------------------------------------------------
# Component-base parts


@dataclass(slots=True)
class LeaderElectionConfiguration:
    """How the scheduler takes the lease that makes one replica the active one."""

    GO_PACKAGE: ClassVar[str] = "v1alpha1"

    leader_elect: bool | None = None
    lease_duration: timedelta = timedelta(0)
    renew_deadline: timedelta = timedelta(0)
    retry_period: timedelta = timedelta(0)
    resource_lock: str = ""
    resource_name: str = ""
    resource_namespace: str = ""


@dataclass(slots=True)
class ClientConnectionConfiguration:
    """How the scheduler talks to the API server."""

    GO_PACKAGE: ClassVar[str] = "v1alpha1"

    kubeconfig: str = ""
    accept_content_types: str = ""
    content_type: str = ""
    qps: Float32 = field(default=0.0, metadata=tag(go="QPS"))
    burst: Int32 = 0


# --------------------------------------------------------------------------------------------
# Profiles and plugins


@dataclass(slots=True)
class Plugin:
    """A plugin name and, for Score (and PlacementScore) plugins, its weight."""

    name: str = ""
    weight: Int32 | None = field(default=None, metadata=OMITEMPTY)


@dataclass(slots=True)
class PluginSet:
    """Plugins enabled at one extension point and defaults disabled there ("*" = all)."""

    enabled: list[Plugin] = field(default_factory=list, metadata=OMITEMPTY)
    disabled: list[Plugin] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class Plugins:
    """One PluginSet per extension point, in upstream's order."""

    pre_enqueue: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    queue_sort: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    pre_filter: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    filter: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    post_filter: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    pre_score: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    score: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    reserve: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    permit: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    pre_bind: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    bind: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    post_bind: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    multi_point: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    placement_generate: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)
    placement_score: PluginSet = field(default_factory=PluginSet, metadata=OMITEMPTY)


EXTENSION_POINTS: tuple[tuple[str, str], ...] = (
    ("pre_enqueue", "preEnqueue"),
    ("queue_sort", "queueSort"),
    ("pre_filter", "preFilter"),
    ("filter", "filter"),
    ("post_filter", "postFilter"),
    ("pre_score", "preScore"),
    ("score", "score"),
    ("reserve", "reserve"),
    ("permit", "permit"),
    ("pre_bind", "preBind"),
    ("bind", "bind"),
    ("post_bind", "postBind"),
    ("multi_point", "multiPoint"),
    ("placement_generate", "placementGenerate"),
    ("placement_score", "placementScore"),
)
"""(Python attribute of :class:`Plugins`, YAML key) for every extension point, upstream order."""


@dataclass(slots=True)
class PluginConfig:
    """Arguments for one plugin: a typed ``<Plugin>Args`` for in-tree plugins, the decoded
    JSON value (or None) for others."""

    name: str = ""
    args: Any = None


@dataclass(slots=True)
class KubeSchedulerProfile:
    """A scheduling profile: pods whose ``spec.schedulerName`` matches are scheduled by it."""

    scheduler_name: str | None = field(default=None, metadata=OMITEMPTY)
    percentage_of_nodes_to_score: Int32 | None = field(default=None, metadata=OMITEMPTY)
    plugins: Plugins | None = field(default=None, metadata=OMITEMPTY)
    plugin_config: list[PluginConfig] = field(default_factory=list, metadata=OMITEMPTY)


# --------------------------------------------------------------------------------------------
# Extenders


@dataclass(slots=True)
class ExtenderManagedResource:
    name: str = ""
    ignored_by_scheduler: bool = field(default=False, metadata=OMITEMPTY)


@dataclass(slots=True)
class ExtenderTLSConfig:
    insecure: bool = field(default=False, metadata=OMITEMPTY)
    server_name: str = field(default="", metadata=OMITEMPTY)
    cert_file: str = field(default="", metadata=OMITEMPTY)
    key_file: str = field(default="", metadata=OMITEMPTY)
    ca_file: str = field(default="", metadata=tag(omitempty=True, go="CAFile"))
    cert_data: bytes = field(default=b"", metadata=OMITEMPTY)
    key_data: bytes = field(default=b"", metadata=OMITEMPTY)
    ca_data: bytes = field(default=b"", metadata=tag(omitempty=True, go="CAData"))


@dataclass(slots=True)
class Extender:
    """An HTTP scheduler extender; an empty verb means the extender does not offer that call."""

    url_prefix: str = field(default="", metadata=tag(go="URLPrefix"))
    filter_verb: str = field(default="", metadata=OMITEMPTY)
    preempt_verb: str = field(default="", metadata=OMITEMPTY)
    prioritize_verb: str = field(default="", metadata=OMITEMPTY)
    weight: Int64 = field(default=0, metadata=OMITEMPTY)
    bind_verb: str = field(default="", metadata=OMITEMPTY)
    enable_https: bool = field(
        default=False, metadata=tag(omitempty=True, json="enableHTTPS", go="EnableHTTPS")
    )
    tls_config: ExtenderTLSConfig | None = field(
        default=None, metadata=tag(omitempty=True, go="TLSConfig")
    )
    http_timeout: timedelta = field(
        default=timedelta(0), metadata=tag(omitempty=True, go="HTTPTimeout")
    )
    node_cache_capable: bool = field(default=False, metadata=OMITEMPTY)
    managed_resources: list[ExtenderManagedResource] = field(
        default_factory=list, metadata=OMITEMPTY
    )
    ignorable: bool = field(default=False, metadata=OMITEMPTY)


# --------------------------------------------------------------------------------------------
# The configuration


@dataclass(slots=True)
class KubeSchedulerConfiguration:
    """The whole scheduler configuration file."""

    KIND: ClassVar[str] = KIND

    parallelism: Int32 | None = field(default=None, metadata=OMITEMPTY)
    leader_election: LeaderElectionConfiguration = field(
        default_factory=LeaderElectionConfiguration
    )
    client_connection: ClientConnectionConfiguration = field(
        default_factory=ClientConnectionConfiguration
    )
    enable_profiling: bool | None = field(default=None, metadata=OMITEMPTY)
    enable_contention_profiling: bool | None = field(default=None, metadata=OMITEMPTY)
    percentage_of_nodes_to_score: Int32 | None = field(default=None, metadata=OMITEMPTY)
    pod_initial_backoff_seconds: Int64 | None = field(default=None, metadata=OMITEMPTY)
    pod_max_backoff_seconds: Int64 | None = field(default=None, metadata=OMITEMPTY)
    profiles: list[KubeSchedulerProfile] = field(default_factory=list, metadata=OMITEMPTY)
    extenders: list[Extender] = field(default_factory=list, metadata=OMITEMPTY)
    delay_cache_until_active: bool = field(default=False, metadata=OMITEMPTY)


# --------------------------------------------------------------------------------------------
# In-tree plugin args


@dataclass(slots=True)
class UtilizationShapePoint:
    """One point of a score function: utilization 0..100 maps to score 0..10."""

    utilization: Int32 = 0
    score: Int32 = 0


@dataclass(slots=True)
class ResourceSpec:
    name: str = ""
    weight: Int64 = field(default=0, metadata=OMITEMPTY)


@dataclass(slots=True)
class RequestedToCapacityRatioParam:
    shape: list[UtilizationShapePoint] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class ScoringStrategy:
    """NodeResourcesFit's scoring: LeastAllocated, MostAllocated or RequestedToCapacityRatio."""

    type: ScoringStrategyType = field(default="", metadata=OMITEMPTY)
    resources: list[ResourceSpec] = field(default_factory=list, metadata=OMITEMPTY)
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = field(
        default=None, metadata=OMITEMPTY
    )


@dataclass(slots=True)
class DefaultPreemptionArgs:
    KIND: ClassVar[str] = "DefaultPreemptionArgs"

    min_candidate_nodes_percentage: Int32 | None = field(default=None, metadata=OMITEMPTY)
    min_candidate_nodes_absolute: Int32 | None = field(default=None, metadata=OMITEMPTY)


@dataclass(slots=True)
class InterPodAffinityArgs:
    KIND: ClassVar[str] = "InterPodAffinityArgs"

    hard_pod_affinity_weight: Int32 | None = field(default=None, metadata=OMITEMPTY)
    ignore_preferred_terms_of_existing_pods: bool = False


@dataclass(slots=True)
class NodeResourcesFitArgs:
    KIND: ClassVar[str] = "NodeResourcesFitArgs"

    ignored_resources: list[str] = field(default_factory=list, metadata=OMITEMPTY)
    ignored_resource_groups: list[str] = field(default_factory=list, metadata=OMITEMPTY)
    scoring_strategy: ScoringStrategy | None = field(default=None, metadata=OMITEMPTY)


@dataclass(slots=True)
class PodTopologySpreadArgs:
    KIND: ClassVar[str] = "PodTopologySpreadArgs"

    default_constraints: list[TopologySpreadConstraint] = field(
        default_factory=list, metadata=OMITEMPTY
    )
    defaulting_type: PodTopologySpreadConstraintsDefaulting = field(default="", metadata=OMITEMPTY)


@dataclass(slots=True)
class NodeResourcesBalancedAllocationArgs:
    KIND: ClassVar[str] = "NodeResourcesBalancedAllocationArgs"

    resources: list[ResourceSpec] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class VolumeBindingArgs:
    """``shape`` stays None unless given: upstream tells "unset" from "empty" for it."""

    KIND: ClassVar[str] = "VolumeBindingArgs"

    bind_timeout_seconds: Int64 | None = field(default=None, metadata=OMITEMPTY)
    shape: list[UtilizationShapePoint] | None = field(default=None, metadata=OMITEMPTY)


@dataclass(slots=True)
class NodeAffinityArgs:
    KIND: ClassVar[str] = "NodeAffinityArgs"

    added_affinity: NodeAffinity | None = field(default=None, metadata=OMITEMPTY)


@dataclass(slots=True)
class DynamicResourcesArgs:
    KIND: ClassVar[str] = "DynamicResourcesArgs"

    filter_timeout: timedelta | None = None
    binding_timeout: timedelta | None = field(default=None, metadata=OMITEMPTY)


PLUGIN_ARGS_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        DefaultPreemptionArgs,
        InterPodAffinityArgs,
        NodeResourcesFitArgs,
        PodTopologySpreadArgs,
        NodeResourcesBalancedAllocationArgs,
        VolumeBindingArgs,
        NodeAffinityArgs,
        DynamicResourcesArgs,
    )
}
"""The args kinds registered for ``kubescheduler.config.k8s.io/v1``, by kind."""


def args_type_for_plugin(plugin_name: str) -> type | None:
    """The typed args class of an in-tree plugin (kind ``<name>Args``), None for others."""
    return PLUGIN_ARGS_TYPES.get(plugin_name + "Args")
