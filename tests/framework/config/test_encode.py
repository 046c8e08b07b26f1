"""Encoding as --write-config-to does, from upstream's scheme_test.go encoding cases."""

from __future__ import annotations

from datetime import timedelta

import pytest
import yaml

from framework.config.corev1 import (
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from framework.config.encode import dump_yaml, to_dict, to_json_value, to_yaml
from framework.config.load import load_config
from framework.config.types import (
    DynamicResourcesArgs,
    Extender,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    NodeResourcesFitArgs,
    PluginConfig,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)


def test_an_undefaulted_configuration_prints_nulls_only_where_go_has_no_omitempty() -> None:
    cfg = KubeSchedulerConfiguration(
        profiles=[
            KubeSchedulerProfile(
                plugin_config=[
                    PluginConfig("InterPodAffinity", InterPodAffinityArgs(5)),
                    PluginConfig(
                        "VolumeBinding",
                        VolumeBindingArgs(
                            300, [UtilizationShapePoint(0, 0), UtilizationShapePoint(100, 10)]
                        ),
                    ),
                    PluginConfig(
                        "NodeResourcesFit",
                        NodeResourcesFitArgs(
                            scoring_strategy=ScoringStrategy(
                                "RequestedToCapacityRatio",
                                [ResourceSpec("cpu", 1)],
                                RequestedToCapacityRatioParam([UtilizationShapePoint(1, 2)]),
                            )
                        ),
                    ),
                    PluginConfig("PodTopologySpread", PodTopologySpreadArgs([])),
                    PluginConfig("OutOfTreePlugin", {"foo": "bar"}),
                ]
            )
        ]
    )

    assert (
        to_yaml(cfg)
        == """\
apiVersion: kubescheduler.config.k8s.io/v1
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: ""
  qps: 0
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: null
  leaseDuration: 0s
  renewDeadline: 0s
  resourceLock: ""
  resourceName: ""
  resourceNamespace: ""
  retryPeriod: 0s
profiles:
- pluginConfig:
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      hardPodAffinityWeight: 5
      ignorePreferredTermsOfExistingPods: false
      kind: InterPodAffinityArgs
    name: InterPodAffinity
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      bindTimeoutSeconds: 300
      kind: VolumeBindingArgs
      shape:
      - score: 0
        utilization: 0
      - score: 10
        utilization: 100
    name: VolumeBinding
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy:
        requestedToCapacityRatio:
          shape:
          - score: 2
            utilization: 1
        resources:
        - name: cpu
          weight: 1
        type: RequestedToCapacityRatio
    name: NodeResourcesFit
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: PodTopologySpreadArgs
    name: PodTopologySpread
  - args:
      foo: bar
    name: OutOfTreePlugin
"""
    )


def internal_style_configuration(*plugin_configs: PluginConfig) -> KubeSchedulerConfiguration:
    """What upstream's internal type carries: every pointer set, zeros included."""
    return KubeSchedulerConfiguration(
        parallelism=8,
        delay_cache_until_active=True,
        enable_profiling=False,
        enable_contention_profiling=False,
        leader_election=LeaderElectionConfiguration(leader_elect=False),
        pod_initial_backoff_seconds=0,
        pod_max_backoff_seconds=0,
        profiles=[KubeSchedulerProfile(scheduler_name="", plugin_config=list(plugin_configs))],
    )


INTERNAL_HEADER = """\
apiVersion: kubescheduler.config.k8s.io/v1
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: ""
  qps: 0
delayCacheUntilActive: true
enableContentionProfiling: false
enableProfiling: false
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
  leaseDuration: 0s
  renewDeadline: 0s
  resourceLock: ""
  resourceName: ""
  resourceNamespace: ""
  retryPeriod: 0s
parallelism: 8
podInitialBackoffSeconds: 0
podMaxBackoffSeconds: 0
profiles:
- pluginConfig:
"""


def test_an_internal_style_configuration_prints_every_set_value() -> None:
    cfg = internal_style_configuration(
        PluginConfig("InterPodAffinity", InterPodAffinityArgs(5)),
        PluginConfig(
            "NodeResourcesFit",
            NodeResourcesFitArgs(
                scoring_strategy=ScoringStrategy("LeastAllocated", [ResourceSpec("cpu", 1)])
            ),
        ),
        PluginConfig("VolumeBinding", VolumeBindingArgs(300)),
        PluginConfig("PodTopologySpread", PodTopologySpreadArgs()),
        PluginConfig("OutOfTreePlugin", {"foo": "bar"}),
    )

    assert (
        to_yaml(cfg)
        == INTERNAL_HEADER
        + """\
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      hardPodAffinityWeight: 5
      ignorePreferredTermsOfExistingPods: false
      kind: InterPodAffinityArgs
    name: InterPodAffinity
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy:
        resources:
        - name: cpu
          weight: 1
        type: LeastAllocated
    name: NodeResourcesFit
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      bindTimeoutSeconds: 300
      kind: VolumeBindingArgs
    name: VolumeBinding
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: PodTopologySpreadArgs
    name: PodTopologySpread
  - args:
      foo: bar
    name: OutOfTreePlugin
  schedulerName: ""
"""
    )


def test_ignore_preferred_terms_prints_when_true() -> None:
    cfg = internal_style_configuration(
        PluginConfig("InterPodAffinity", InterPodAffinityArgs(5, True))
    )

    assert (
        to_yaml(cfg)
        == INTERNAL_HEADER
        + """\
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      hardPodAffinityWeight: 5
      ignorePreferredTermsOfExistingPods: true
      kind: InterPodAffinityArgs
    name: InterPodAffinity
  schedulerName: ""
"""
    )


def test_durations_print_like_go_and_a_missing_filter_timeout_prints_null() -> None:
    args = to_json_value(DynamicResourcesArgs(binding_timeout=timedelta(minutes=10)))

    assert args == {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "DynamicResourcesArgs",
        "filterTimeout": None,
        "bindingTimeout": "10m0s",
    }


def test_extenders_always_print_their_url_and_timeout() -> None:
    extender = to_dict(KubeSchedulerConfiguration(extenders=[Extender()]))["extenders"][0]

    assert extender == {"urlPrefix": "", "httpTimeout": "0s"}


def test_core_types_print_with_their_json_names() -> None:
    affinity = NodeAffinity(
        NodeSelector([NodeSelectorTerm([NodeSelectorRequirement("zone", "In", ["a"])])])
    )

    assert to_json_value(affinity) == {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
            ]
        }
    }


def test_out_of_tree_args_are_copied_not_shared() -> None:
    raw = {"nested": {"a": 1}}
    cfg = KubeSchedulerConfiguration(
        profiles=[KubeSchedulerProfile(plugin_config=[PluginConfig("X", raw)])]
    )

    encoded = to_dict(cfg)["profiles"][0]["pluginConfig"][0]["args"]
    encoded["nested"]["a"] = 2

    assert raw == {"nested": {"a": 1}}


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ({"b": 1, "a": 2, "B": 3}, "B: 3\na: 2\nb: 1\n"),
        ({"a10": 1, "a9": 2, "a-": 3}, "a-: 3\na9: 2\na10: 1\n"),
        (
            {"s": "", "t": "true", "n": "12", "x": "null", "p": "plain"},
            'n: "12"\np: plain\ns: ""\nt: "true"\nx: "null"\n',
        ),
        ({"m": "line one\nline two"}, "m: |-\n  line one\n  line two\n"),
    ],
    ids=[
        "upper case letters sort before lower case",
        "numbers inside keys compare by value and other characters before letters",
        "strings that would read as another type are double-quoted",
        "multi-line strings are literal blocks",
    ],
)
def test_yaml_layout_follows_go_yaml(data, text) -> None:
    assert dump_yaml(data) == text


def test_loading_what_was_encoded_gives_the_same_configuration() -> None:
    cfg = KubeSchedulerConfiguration(
        parallelism=4,
        profiles=[
            KubeSchedulerProfile(
                scheduler_name="a",
                plugin_config=[PluginConfig("InterPodAffinity", InterPodAffinityArgs(5))],
            )
        ],
        extenders=[Extender(url_prefix="http://x", weight=2, http_timeout=timedelta(seconds=3))],
    )

    assert load_config(to_yaml(cfg)) == cfg
    assert yaml.safe_load(to_yaml(cfg)) == to_dict(cfg)
