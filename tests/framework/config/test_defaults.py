"""Defaulting, from upstream's defaults_test.go tables, and the recorded reference."""

from __future__ import annotations

import copy
from datetime import timedelta
from pathlib import Path

import pytest
import yaml

from framework.config.corev1 import TopologySpreadConstraint
from framework.config.default_plugins import default_plugins
from framework.config.defaults import default_configuration, set_defaults, set_plugin_args_defaults
from framework.config.encode import to_dict, to_yaml
from framework.config.types import (
    ClientConnectionConfiguration,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
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
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from framework.features import FeatureGates

REFERENCE = (
    Path(__file__).parents[2] / "fixtures" / "config" / "kube-scheduler-v1.36.2-defaults.yaml"
)


def cpu_and_memory() -> list[ResourceSpec]:
    return [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]


def default_plugin_configs() -> list[PluginConfig]:
    return [
        PluginConfig("DefaultPreemption", DefaultPreemptionArgs(10, 100)),
        PluginConfig(
            "DynamicResources", DynamicResourcesArgs(timedelta(seconds=10), timedelta(minutes=10))
        ),
        PluginConfig("InterPodAffinity", InterPodAffinityArgs(1)),
        PluginConfig("NodeAffinity", NodeAffinityArgs()),
        PluginConfig(
            "NodeResourcesBalancedAllocation", NodeResourcesBalancedAllocationArgs(cpu_and_memory())
        ),
        PluginConfig(
            "NodeResourcesFit",
            NodeResourcesFitArgs(
                scoring_strategy=ScoringStrategy("LeastAllocated", cpu_and_memory())
            ),
        ),
        PluginConfig("PodTopologySpread", PodTopologySpreadArgs(defaulting_type="System")),
        PluginConfig("VolumeBinding", VolumeBindingArgs(600)),
    ]


def internal_default_plugins() -> Plugins:
    """The default plugins as set_defaults leaves them: unset weights read 0."""
    plugins = default_plugins()
    for plugin in plugins.multi_point.enabled:
        plugin.weight = plugin.weight or 0
    return plugins


def expected_configuration(**changes) -> KubeSchedulerConfiguration:
    """Upstream's expected defaulted configuration, with the given fields replaced."""
    cfg = KubeSchedulerConfiguration(
        parallelism=16,
        enable_profiling=True,
        enable_contention_profiling=True,
        leader_election=LeaderElectionConfiguration(
            leader_elect=True,
            lease_duration=timedelta(seconds=15),
            renew_deadline=timedelta(seconds=10),
            retry_period=timedelta(seconds=2),
            resource_lock="leases",
            resource_namespace="kube-system",
            resource_name="kube-scheduler",
        ),
        client_connection=ClientConnectionConfiguration(
            qps=50, burst=100, content_type="application/vnd.kubernetes.protobuf"
        ),
        percentage_of_nodes_to_score=0,
        pod_initial_backoff_seconds=1,
        pod_max_backoff_seconds=10,
        profiles=[
            KubeSchedulerProfile(
                scheduler_name="default-scheduler",
                plugins=internal_default_plugins(),
                plugin_config=default_plugin_configs(),
            )
        ],
    )
    for name, value in changes.items():
        setattr(cfg, name, value)
    return cfg


def two_profiles_expected() -> KubeSchedulerConfiguration:
    custom = internal_default_plugins()
    custom.bind = PluginSet([Plugin("BarPlugin", 0)], [Plugin("DefaultBinder", 0)])
    return expected_configuration(
        profiles=[
            KubeSchedulerProfile(
                scheduler_name="",
                plugins=internal_default_plugins(),
                plugin_config=[PluginConfig("FooPlugin"), *default_plugin_configs()],
            ),
            KubeSchedulerProfile(
                scheduler_name="custom-scheduler",
                plugins=custom,
                plugin_config=default_plugin_configs(),
            ),
        ]
    )


def profile_with_percentage(percentage: int) -> KubeSchedulerProfile:
    profile = expected_configuration().profiles[0]
    profile.percentage_of_nodes_to_score = percentage
    return profile


SCHEDULER_DEFAULTS_CASES = [
    ("an empty configuration", KubeSchedulerConfiguration(), expected_configuration()),
    (
        "a lone profile without a name is named default-scheduler",
        KubeSchedulerConfiguration(profiles=[KubeSchedulerProfile()]),
        expected_configuration(),
    ),
    (
        "with two profiles none is named and each gets the default plugins merged",
        KubeSchedulerConfiguration(
            parallelism=16,
            profiles=[
                KubeSchedulerProfile(plugin_config=[PluginConfig("FooPlugin")]),
                KubeSchedulerProfile(
                    scheduler_name="custom-scheduler",
                    plugins=Plugins(
                        bind=PluginSet([Plugin("BarPlugin")], [Plugin("DefaultBinder")])
                    ),
                ),
            ],
        ),
        two_profiles_expected(),
    ),
    (
        "a non-default parallelism is kept",
        KubeSchedulerConfiguration(parallelism=8),
        expected_configuration(parallelism=8),
    ),
    (
        "delayCacheUntilActive is kept",
        KubeSchedulerConfiguration(delay_cache_until_active=True),
        expected_configuration(delay_cache_until_active=True),
    ),
    (
        "a global percentageOfNodesToScore is kept",
        KubeSchedulerConfiguration(percentage_of_nodes_to_score=50),
        expected_configuration(percentage_of_nodes_to_score=50),
    ),
    (
        "a profile percentageOfNodesToScore is kept",
        KubeSchedulerConfiguration(
            profiles=[KubeSchedulerProfile(percentage_of_nodes_to_score=50)]
        ),
        expected_configuration(profiles=[profile_with_percentage(50)]),
    ),
    (
        "global and profile percentageOfNodesToScore are both kept",
        KubeSchedulerConfiguration(
            percentage_of_nodes_to_score=10,
            profiles=[KubeSchedulerProfile(percentage_of_nodes_to_score=50)],
        ),
        expected_configuration(
            percentage_of_nodes_to_score=10, profiles=[profile_with_percentage(50)]
        ),
    ),
]


@pytest.mark.parametrize(
    ("given", "expected"),
    [case[1:] for case in SCHEDULER_DEFAULTS_CASES],
    ids=[case[0] for case in SCHEDULER_DEFAULTS_CASES],
)
def test_scheduler_defaults(given, expected) -> None:
    assert set_defaults(given) == expected


def test_out_of_tree_args_are_not_touched_and_in_tree_configs_are_not_duplicated() -> None:
    configs = default_plugin_configs()
    configs[0] = PluginConfig("DefaultPreemption", {"opaque": True})
    cfg = KubeSchedulerConfiguration(profiles=[KubeSchedulerProfile(plugin_config=configs)])

    set_defaults(cfg)

    assert cfg.profiles[0].plugin_config == configs


def test_user_configs_come_first_and_missing_defaults_follow_in_name_order() -> None:
    cfg = KubeSchedulerConfiguration(
        profiles=[
            KubeSchedulerProfile(
                plugin_config=[PluginConfig("InterPodAffinity", InterPodAffinityArgs(None, True))]
            )
        ]
    )

    set_defaults(cfg)

    names = [c.name for c in cfg.profiles[0].plugin_config]
    assert names == [
        "InterPodAffinity",
        "DefaultPreemption",
        "DynamicResources",
        "NodeAffinity",
        "NodeResourcesBalancedAllocation",
        "NodeResourcesFit",
        "PodTopologySpread",
        "VolumeBinding",
    ]
    assert cfg.profiles[0].plugin_config[0].args == InterPodAffinityArgs(1, True)


def test_only_enabled_plugins_get_default_args() -> None:
    only_sort_and_bind = Plugins(
        multi_point=PluginSet(
            enabled=[Plugin("PrioritySort"), Plugin("DefaultBinder")], disabled=[Plugin("*")]
        )
    )
    cfg = KubeSchedulerConfiguration(profiles=[KubeSchedulerProfile(plugins=only_sort_and_bind)])

    set_defaults(cfg)

    assert cfg.profiles[0].plugin_config == []


def test_leader_election_is_on_by_default_for_a_file_but_off_for_no_file() -> None:
    assert set_defaults(KubeSchedulerConfiguration()).leader_election.leader_elect is True
    assert default_configuration().leader_election.leader_elect is False


def test_contention_profiling_follows_profiling() -> None:
    cfg = set_defaults(KubeSchedulerConfiguration(enable_profiling=False))

    assert cfg.enable_contention_profiling is False


def test_defaulting_twice_changes_nothing() -> None:
    once = set_defaults(KubeSchedulerConfiguration())
    twice = set_defaults(copy.deepcopy(once))

    assert twice == once


def test_the_defaulted_empty_configuration_equals_the_recorded_reference() -> None:
    reference = REFERENCE.read_text()

    assert to_dict(default_configuration()) == yaml.safe_load(reference)
    assert to_yaml(default_configuration()) == reference


PLUGIN_ARGS_CASES = [
    ("DefaultPreemptionArgs empty", {}, DefaultPreemptionArgs(), DefaultPreemptionArgs(10, 100)),
    (
        "DefaultPreemptionArgs with a value",
        {},
        DefaultPreemptionArgs(50),
        DefaultPreemptionArgs(50, 100),
    ),
    ("InterPodAffinityArgs empty", {}, InterPodAffinityArgs(), InterPodAffinityArgs(1)),
    ("InterPodAffinityArgs explicit 0", {}, InterPodAffinityArgs(0), InterPodAffinityArgs(0)),
    ("InterPodAffinityArgs with a value", {}, InterPodAffinityArgs(5), InterPodAffinityArgs(5)),
    (
        "NodeResourcesBalancedAllocationArgs without resources",
        {},
        NodeResourcesBalancedAllocationArgs(),
        NodeResourcesBalancedAllocationArgs(cpu_and_memory()),
    ),
    (
        "NodeResourcesBalancedAllocationArgs with a scalar resource",
        {},
        NodeResourcesBalancedAllocationArgs([ResourceSpec("scalar.io/scalar1", 1)]),
        NodeResourcesBalancedAllocationArgs([ResourceSpec("scalar.io/scalar1", 1)]),
    ),
    (
        "NodeResourcesBalancedAllocationArgs with mixed resources",
        {},
        NodeResourcesBalancedAllocationArgs(
            [ResourceSpec("cpu", 1), ResourceSpec("scalar.io/scalar1", 1)]
        ),
        NodeResourcesBalancedAllocationArgs(
            [ResourceSpec("cpu", 1), ResourceSpec("scalar.io/scalar1", 1)]
        ),
    ),
    (
        "NodeResourcesBalancedAllocationArgs resources without weight get weight 1",
        {},
        NodeResourcesBalancedAllocationArgs(
            [
                ResourceSpec("cpu"),
                ResourceSpec("scalar.io/scalar0"),
                ResourceSpec("scalar.io/scalar1", 1),
            ]
        ),
        NodeResourcesBalancedAllocationArgs(
            [
                ResourceSpec("cpu", 1),
                ResourceSpec("scalar.io/scalar0", 1),
                ResourceSpec("scalar.io/scalar1", 1),
            ]
        ),
    ),
    (
        "PodTopologySpreadArgs empty",
        {},
        PodTopologySpreadArgs(),
        PodTopologySpreadArgs(defaulting_type="System"),
    ),
    (
        "PodTopologySpreadArgs with constraints still defaults to System",
        {},
        PodTopologySpreadArgs([TopologySpreadConstraint(2, "planet", "DoNotSchedule")]),
        PodTopologySpreadArgs(
            [TopologySpreadConstraint(2, "planet", "DoNotSchedule")], defaulting_type="System"
        ),
    ),
    (
        "NodeResourcesFitArgs not set",
        {},
        NodeResourcesFitArgs(),
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", cpu_and_memory())),
    ),
    (
        "NodeResourcesFitArgs without resources",
        {},
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated")),
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated", cpu_and_memory())),
    ),
    (
        "NodeResourcesFitArgs resources with weight 0 get weight 1",
        {},
        NodeResourcesFitArgs(
            scoring_strategy=ScoringStrategy("MostAllocated", [ResourceSpec("cpu")])
        ),
        NodeResourcesFitArgs(
            scoring_strategy=ScoringStrategy("MostAllocated", [ResourceSpec("cpu", 1)])
        ),
    ),
    (
        "VolumeBindingArgs empty, StorageCapacityScoring disabled",
        {"StorageCapacityScoring": False},
        VolumeBindingArgs(),
        VolumeBindingArgs(600),
    ),
    (
        "VolumeBindingArgs empty, StorageCapacityScoring enabled",
        {"StorageCapacityScoring": True},
        VolumeBindingArgs(),
        VolumeBindingArgs(600, [UtilizationShapePoint(0, 10), UtilizationShapePoint(100, 0)]),
    ),
    (
        "DynamicResourcesArgs with binding conditions enabled",
        {"DRADeviceBindingConditions": True, "DRAResourceClaimDeviceStatus": True},
        DynamicResourcesArgs(),
        DynamicResourcesArgs(timedelta(seconds=10), timedelta(seconds=600)),
    ),
    (
        "DynamicResourcesArgs with the filter timeout and binding conditions disabled",
        {"DRASchedulerFilterTimeout": False, "DRADeviceBindingConditions": False},
        DynamicResourcesArgs(),
        DynamicResourcesArgs(),
    ),
]


@pytest.mark.parametrize(
    ("gates", "args", "expected"),
    [case[1:] for case in PLUGIN_ARGS_CASES],
    ids=[case[0] for case in PLUGIN_ARGS_CASES],
)
def test_plugin_args_defaults(gates, args, expected) -> None:
    set_plugin_args_defaults(args, FeatureGates(gates))

    assert args == expected
