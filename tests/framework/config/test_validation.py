"""Configuration validation, from upstream's validation_test.go table and its messages."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest

from framework.config.defaults import default_configuration, set_defaults
from framework.config.load import load_config
from framework.config.types import (
    ClientConnectionConfiguration,
    DefaultPreemptionArgs,
    Extender,
    ExtenderManagedResource,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    NodeResourcesFitArgs,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    VolumeBindingArgs,
)
from framework.config.validation import validate
from framework.features import FeatureGates

INVALID = "Invalid value"
REQUIRED = "Required value"
DUPLICATE = "Duplicate value"


def valid_config() -> KubeSchedulerConfiguration:
    """Upstream's validConfig, in the internal form validation sees."""
    return KubeSchedulerConfiguration(
        parallelism=8,
        client_connection=ClientConnectionConfiguration(
            accept_content_types="application/json",
            content_type="application/json",
            qps=10,
            burst=10,
        ),
        leader_election=LeaderElectionConfiguration(
            resource_lock="leases",
            leader_elect=True,
            lease_duration=timedelta(seconds=30),
            renew_deadline=timedelta(seconds=15),
            retry_period=timedelta(seconds=5),
            resource_namespace="name",
            resource_name="name",
        ),
        pod_initial_backoff_seconds=1,
        pod_max_backoff_seconds=1,
        profiles=[
            KubeSchedulerProfile(
                scheduler_name="me",
                percentage_of_nodes_to_score=35,
                plugins=Plugins(
                    queue_sort=PluginSet([Plugin("CustomSort", 0)]),
                    score=PluginSet(disabled=[Plugin("*", 0)]),
                ),
                plugin_config=[PluginConfig("DefaultPreemption", DefaultPreemptionArgs(10, 100))],
            ),
            KubeSchedulerProfile(
                scheduler_name="other",
                percentage_of_nodes_to_score=35,
                plugins=Plugins(
                    queue_sort=PluginSet([Plugin("CustomSort", 0)]),
                    bind=PluginSet([Plugin("CustomBind", 0)]),
                ),
            ),
        ],
        extenders=[Extender(prioritize_verb="prioritize", weight=1)],
    )


def changed(change) -> KubeSchedulerConfiguration:
    cfg = valid_config()
    change(cfg)
    return cfg


def set_plugin_config(profile: int, *configs: PluginConfig):
    def change(cfg: KubeSchedulerConfiguration) -> None:
        cfg.profiles[profile].plugin_config = list(configs)

    return change


def two_binders(cfg: KubeSchedulerConfiguration) -> None:
    cfg.extenders[0].bind_verb = "foo"
    cfg.extenders.append(Extender(prioritize_verb="prioritize", bind_verb="bar", weight=1))


def mismatched_queue_sort(cfg: KubeSchedulerConfiguration) -> None:
    cfg.profiles = [
        KubeSchedulerProfile(
            scheduler_name="me",
            plugins=Plugins(queue_sort=PluginSet([Plugin("PrioritySort", 0)])),
            plugin_config=[PluginConfig("PrioritySort")],
        ),
        KubeSchedulerProfile(
            scheduler_name="other",
            plugins=Plugins(queue_sort=PluginSet([Plugin("CustomSort", 0)])),
            plugin_config=[PluginConfig("CustomSort")],
        ),
    ]


def removed_score_plugins(cfg: KubeSchedulerConfiguration) -> None:
    score = cfg.profiles[0].plugins.score
    score.enabled += [
        Plugin(n, 0) for n in ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
    ]


UPSTREAM_CASES = [
    ("a valid configuration", lambda cfg: None, []),
    ("parallelism zero", lambda cfg: setattr(cfg, "parallelism", 0), [(INVALID, "parallelism")]),
    (
        "resource name not set",
        lambda cfg: setattr(cfg.leader_election, "resource_name", ""),
        [(REQUIRED, "leaderElection.resourceName")],
    ),
    (
        "resource namespace not set",
        lambda cfg: setattr(cfg.leader_election, "resource_namespace", ""),
        [(REQUIRED, "leaderElection.resourceNamespace")],
    ),
    (
        "resource lock not leases",
        lambda cfg: setattr(cfg.leader_election, "resource_lock", "configmap"),
        [(INVALID, "leaderElection.resourceLock")],
    ),
    (
        "percentageOfNodesToScore above 100",
        lambda cfg: setattr(cfg, "percentage_of_nodes_to_score", 101),
        [(INVALID, "percentageOfNodesToScore")],
    ),
    (
        "negative percentageOfNodesToScore",
        lambda cfg: setattr(cfg, "percentage_of_nodes_to_score", -1),
        [(INVALID, "percentageOfNodesToScore")],
    ),
    (
        "scheduler name not set",
        lambda cfg: setattr(cfg.profiles[1], "scheduler_name", ""),
        [(REQUIRED, "profiles[1].schedulerName")],
    ),
    (
        "repeated scheduler name",
        lambda cfg: setattr(cfg.profiles[0], "scheduler_name", "other"),
        [(DUPLICATE, "profiles[1].schedulerName")],
    ),
    (
        "profile percentageOfNodesToScore above 100",
        lambda cfg: setattr(cfg.profiles[1], "percentage_of_nodes_to_score", 101),
        [(INVALID, "profiles[1].percentageOfNodesToScore")],
    ),
    (
        "negative profile percentageOfNodesToScore",
        lambda cfg: setattr(cfg.profiles[1], "percentage_of_nodes_to_score", -1),
        [(INVALID, "profiles[1].percentageOfNodesToScore")],
    ),
    (
        "different queue sort",
        lambda cfg: setattr(cfg.profiles[1].plugins.queue_sort.enabled[0], "name", "AnotherSort"),
        [(INVALID, "profiles[1].plugins.queueSort")],
    ),
    (
        "one empty queue sort",
        lambda cfg: setattr(cfg.profiles[0], "plugins", None),
        [(INVALID, "profiles[1].plugins.queueSort")],
    ),
    (
        "extender with negative weight",
        lambda cfg: setattr(cfg.extenders[0], "weight", -1),
        [(INVALID, "extenders[0].weight")],
    ),
    (
        "extender with duplicate managed resources",
        lambda cfg: setattr(
            cfg.extenders[0],
            "managed_resources",
            [
                ExtenderManagedResource("example.com/foo"),
                ExtenderManagedResource("example.com/foo"),
            ],
        ),
        [(INVALID, "extenders[0].managedResources[1].name")],
    ),
    ("two extenders that bind", two_binders, [(INVALID, "extenders")]),
    (
        "invalid minCandidateNodesPercentage",
        set_plugin_config(0, PluginConfig("DefaultPreemption", DefaultPreemptionArgs(200, 100))),
        [(INVALID, "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage")],
    ),
    (
        "args of the wrong kind",
        set_plugin_config(0, PluginConfig("DefaultPreemption", InterPodAffinityArgs())),
        [(INVALID, "profiles[0].pluginConfig[0].args")],
    ),
    (
        "duplicated plugin config",
        set_plugin_config(0, PluginConfig("config"), PluginConfig("config")),
        [(DUPLICATE, "profiles[0].pluginConfig[1]")],
    ),
    ("mismatched queue sort", mismatched_queue_sort, [(INVALID, "profiles[1].plugins.queueSort")]),
    (
        "removed plugins",
        removed_score_plugins,
        [(INVALID, f"profiles[0].plugins.score.enabled[{i}]") for i in range(4)],
    ),
    (
        "a valid extra score plugin",
        lambda cfg: cfg.profiles[0].plugins.score.enabled.append(Plugin("PodTopologySpread", 2)),
        [],
    ),
]


@pytest.mark.parametrize(
    ("change", "expected"),
    [case[1:] for case in UPSTREAM_CASES],
    ids=[case[0] for case in UPSTREAM_CASES],
)
def test_upstream_validation_table(change, expected) -> None:
    errors = validate(changed(change))

    assert [(e.type, e.field) for e in errors] == expected


MESSAGE_CASES = [
    (
        "parallelism",
        lambda cfg: setattr(cfg, "parallelism", 0),
        ["parallelism: Invalid value: 0: should be an integer value greater than zero"],
    ),
    (
        "resource lock",
        lambda cfg: setattr(cfg.leader_election, "resource_lock", "configmap"),
        [
            'leaderElection.resourceLock: Invalid value: "configmap": '
            'resourceLock value must be "leases"'
        ],
    ),
    (
        "lease duration not above renew deadline",
        lambda cfg: setattr(cfg.leader_election, "lease_duration", timedelta(seconds=15)),
        [
            'leaderElection.leaseDuration: Invalid value: "15s": '
            "must be greater than `RenewDeadline`"
        ],
    ),
    (
        "zero retry period",
        lambda cfg: setattr(cfg.leader_election, "retry_period", timedelta(0)),
        ['leaderElection.retryPeriod: Invalid value: "0s": must be greater than zero'],
    ),
    (
        "leader election settings are ignored when leader election is off",
        lambda cfg: setattr(
            cfg, "leader_election", LeaderElectionConfiguration(leader_elect=False)
        ),
        [],
    ),
    (
        "negative burst",
        lambda cfg: setattr(cfg.client_connection, "burst", -1),
        ["clientConnection.burst: Invalid value: -1: must be non-negative"],
    ),
    (
        "global percentage",
        lambda cfg: setattr(cfg, "percentage_of_nodes_to_score", 101),
        ["percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"],
    ),
    (
        "no initial backoff",
        lambda cfg: setattr(cfg, "pod_initial_backoff_seconds", 0),
        ["podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"],
    ),
    (
        "max backoff below initial backoff",
        lambda cfg: setattr(cfg, "pod_max_backoff_seconds", 0),
        [
            "podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
            "PodInitialBackoffSeconds"
        ],
    ),
    ("no profiles", lambda cfg: setattr(cfg, "profiles", []), ["profiles: Required value"]),
    (
        "scheduler name missing",
        lambda cfg: setattr(cfg.profiles[1], "scheduler_name", ""),
        ["profiles[1].schedulerName: Required value"],
    ),
    (
        "a repeated scheduler name shows Go's rendering of the first path",
        lambda cfg: setattr(cfg.profiles[0], "scheduler_name", "other"),
        ["profiles[1].schedulerName: Duplicate value: {}"],
    ),
    (
        "different queue sort shows the internal plugin set",
        lambda cfg: setattr(cfg.profiles[1].plugins.queue_sort.enabled[0], "name", "AnotherSort"),
        [
            'profiles[1].plugins.queueSort: Invalid value: {"Enabled":[{"Name":"AnotherSort",'
            '"Weight":0}],"Disabled":null}: must be the same for all profiles'
        ],
    ),
    (
        "two queue sort plugins",
        lambda cfg: cfg.profiles[0].plugins.queue_sort.enabled.append(Plugin("Other", 0)),
        [
            "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin "
            "can be enabled",
            'profiles[1].plugins.queueSort: Invalid value: {"Enabled":[{"Name":"CustomSort",'
            '"Weight":0}],"Disabled":null}: must be the same for all profiles',
        ],
    ),
    (
        "queue sort args differ",
        lambda cfg: (
            cfg.profiles[0].plugin_config.append(PluginConfig("CustomSort", {"order": "a"})),
            cfg.profiles[1].plugin_config.append(PluginConfig("CustomSort", {"order": "b"})),
        ),
        [
            'profiles[1].pluginConfig.args: Invalid value: {"order":"b"}: queueSort must be the '
            "same for all profiles"
        ],
    ),
    (
        "args of the wrong kind show the internal args",
        set_plugin_config(0, PluginConfig("DefaultPreemption", InterPodAffinityArgs())),
        [
            'profiles[0].pluginConfig[0].args: Invalid value: {"HardPodAffinityWeight":0,'
            '"IgnorePreferredTermsOfExistingPods":false}: has to match plugin args'
        ],
    ),
    (
        "missing in-tree args",
        set_plugin_config(0, PluginConfig("VolumeBinding")),
        ["profiles[0].pluginConfig[0].args: Invalid value: null: has to match plugin args"],
    ),
    (
        "duplicated plugin config",
        set_plugin_config(0, PluginConfig("config"), PluginConfig("config")),
        ['profiles[0].pluginConfig[1]: Duplicate value: "config"'],
    ),
    (
        "config for a removed plugin",
        set_plugin_config(0, PluginConfig("EBSLimits", {"x": 1})),
        [
            'profiles[0].pluginConfig[0]: Invalid value: "EBSLimits": was invalid in version '
            '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
            '"kubescheduler.config.k8s.io/v1")'
        ],
    ),
    (
        "NodeResourcesFit args are left to the plugin, as upstream",
        set_plugin_config(0, PluginConfig("NodeResourcesFit", NodeResourcesFitArgs())),
        [],
    ),
    (
        "plugin args errors carry the args path",
        set_plugin_config(0, PluginConfig("VolumeBinding", VolumeBindingArgs(-1))),
        [
            "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid "
            "BindTimeoutSeconds, should not be a negative value"
        ],
    ),
    (
        "extender weight",
        lambda cfg: setattr(cfg.extenders[0], "weight", -1),
        ["extenders[0].weight: Invalid value: -1: must have a positive weight applied to it"],
    ),
    (
        "two binders",
        two_binders,
        [
            'extenders: Invalid value: "found 2 extenders implementing bind": only one extender '
            "can implement bind"
        ],
    ),
    (
        "duplicate managed resource",
        lambda cfg: setattr(
            cfg.extenders[0],
            "managed_resources",
            [
                ExtenderManagedResource("example.com/foo"),
                ExtenderManagedResource("example.com/foo"),
            ],
        ),
        [
            'extenders[0].managedResources[1].name: Invalid value: "example.com/foo": duplicate '
            "extender managed resource name"
        ],
    ),
    (
        "a native resource is not an extended resource",
        lambda cfg: setattr(
            cfg.extenders[0], "managed_resources", [ExtenderManagedResource("kubernetes.io/foo")]
        ),
        [
            'extenders[0].managedResources[0].name: Invalid value: "kubernetes.io/foo": is an '
            "invalid extended resource name"
        ],
    ),
    (
        "an unqualified managed resource name",
        lambda cfg: setattr(
            cfg.extenders[0], "managed_resources", [ExtenderManagedResource("example.com/a/b")]
        ),
        [
            'extenders[0].managedResources[0].name: Invalid value: "example.com/a/b": a valid '
            "label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
            "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ],
    ),
]


@pytest.mark.parametrize(
    ("change", "messages"),
    [case[1:] for case in MESSAGE_CASES],
    ids=[case[0] for case in MESSAGE_CASES],
)
def test_messages_read_as_upstream_prints_them(change, messages) -> None:
    assert [str(e) for e in validate(changed(change))] == messages


def test_feature_gates_reach_plugin_args_validation() -> None:
    cfg = valid_config()
    cfg.profiles[0].plugin_config.append(PluginConfig("VolumeBinding", VolumeBindingArgs(600, [])))

    assert [str(e) for e in validate(cfg)] == [
        "profiles[0].pluginConfig[1].args.shape: Invalid value: null: unexpected field `shape`, "
        "remove it or turn on the feature gate StorageCapacityScoring"
    ]
    assert [str(e) for e in validate(cfg, FeatureGates({"StorageCapacityScoring": True}))] == [
        "profiles[0].pluginConfig[1].args.shape: Required value: at least one point must be "
        "specified"
    ]


def test_a_message_is_reported_once() -> None:
    cfg = valid_config()
    cfg.profiles.append(copy.deepcopy(cfg.profiles[1]))
    cfg.profiles.append(copy.deepcopy(cfg.profiles[1]))

    messages = [str(e) for e in validate(cfg)]

    assert messages.count("profiles[2].schedulerName: Duplicate value: {}") == 1


@pytest.mark.parametrize(
    "cfg",
    [
        default_configuration(),
        set_defaults(KubeSchedulerConfiguration()),
        set_defaults(
            load_config(
                "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                "profiles:\n- schedulerName: a\n- schedulerName: b\n"
            )
        ),
    ],
    ids=["the default configuration", "a defaulted empty file", "two named profiles"],
)
def test_defaulted_configurations_are_valid(cfg) -> None:
    assert validate(cfg) == []


def test_two_unnamed_profiles_need_names() -> None:
    cfg = set_defaults(
        KubeSchedulerConfiguration(profiles=[KubeSchedulerProfile(), KubeSchedulerProfile()])
    )

    assert [str(e) for e in validate(cfg)] == [
        "profiles[0].schedulerName: Required value",
        "profiles[1].schedulerName: Required value",
        "profiles[1].schedulerName: Duplicate value: {}",
    ]
