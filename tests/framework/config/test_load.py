"""Loading configuration files: upstream's options, configfile and scheme test facts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from framework.config.corev1 import (
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    TopologySpreadConstraint,
)
from framework.config.defaults import set_defaults
from framework.config.load import ConfigError, load_config
from framework.config.types import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    ResourceSpec,
    ScoringStrategy,
    VolumeBindingArgs,
)

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
SCHEME = "pkg/scheduler/apis/config/scheme/scheme.go:29"


def load_error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(text)
    return str(info.value)


def args_of(text: str) -> dict[str, object]:
    cfg = set_defaults(load_config(HEADER + text))
    return {c.name: c.args for c in cfg.profiles[0].plugin_config}


# --------------------------------------------------------------------------------------------
# Documents, versions and kinds


def test_a_minimal_configuration_loads_without_defaults() -> None:
    cfg = load_config(HEADER)

    assert cfg.parallelism is None
    assert cfg.profiles == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "\nkind: KubeSchedulerConfiguration",
            "Object 'apiVersion' is missing in '\nkind: KubeSchedulerConfiguration'",
        ),
        ("\n", "Object 'Kind' is missing in '\n'"),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1alpha1\nkind: KubeSchedulerConfiguration\n",
            'no kind "KubeSchedulerConfiguration" is registered for version '
            f'"kubescheduler.config.k8s.io/v1alpha1" in scheme "{SCHEME}"',
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/unknown\nkind: KubeSchedulerConfiguration\n",
            'no kind "KubeSchedulerConfiguration" is registered for version '
            f'"kubescheduler.config.k8s.io/unknown" in scheme "{SCHEME}"',
        ),
        (
            "apiVersion: componentconfig/v1alpha1\nkind: KubeSchedulerConfiguration\n",
            'no kind "KubeSchedulerConfiguration" is registered for version '
            f'"componentconfig/v1alpha1" in scheme "{SCHEME}"',
        ),
        (
            "apiVersion: v1\nkind: Pod\n",
            f'no kind "Pod" is registered for version "v1" in scheme "{SCHEME}"',
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: DefaultPreemptionArgs\n",
            "couldn't decode as KubeSchedulerConfiguration, got "
            "kubescheduler.config.k8s.io/v1, Kind=DefaultPreemptionArgs: ",
        ),
        (
            "apiVersion: a/b/c\nkind: KubeSchedulerConfiguration\n",
            "unexpected GroupVersion string: a/b/c",
        ),
        (
            "- a\n- b\n",
            "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go "
            'value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
            'Kind string "json:\\"kind,omitempty\\"" }',
        ),
        (
            "apiVersion: a\n  kind: b: c\n",
            "yaml: line 2: mapping values are not allowed in this context",
        ),
    ],
    ids=[
        "a missing apiVersion is reported with the document",
        "an empty document has no kind",
        "v1alpha1 is no longer registered",
        "an unknown version is not registered",
        "the old componentconfig group is not registered",
        "another kind is not registered",
        "a plugin args kind is not a configuration",
        "an apiVersion with two slashes is malformed",
        "a document that is not a mapping has no version or kind",
        "a YAML syntax error names the line",
    ],
)
def test_it_rejects_documents_that_are_not_a_v1_configuration(text: str, message: str) -> None:
    assert load_error(text) == message


def test_it_reads_files_given_as_paths_or_names(tmp_path: Path) -> None:
    file = tmp_path / "scheduler.yaml"
    file.write_text(HEADER + "parallelism: 4\n")

    assert load_config(file).parallelism == 4
    assert load_config(str(file)).parallelism == 4
    assert load_config((HEADER + "parallelism: 5\n").encode()).parallelism == 5


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "open : no such file or directory"),
        ("/no/such/file.yaml", "open /no/such/file.yaml: no such file or directory"),
    ],
    ids=["an empty file name", "a missing file"],
)
def test_unreadable_files_are_reported_like_go(source: str, message: str) -> None:
    assert load_error(source) == message


def test_only_the_first_yaml_document_counts() -> None:
    cfg = load_config(HEADER + "parallelism: 3\n---\nnot: [valid\n")

    assert cfg.parallelism == 3


def test_it_reads_json() -> None:
    cfg = load_config(
        '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",'
        ' "profiles": [{"schedulerName": "json"}]}'
    )

    assert cfg.profiles[0].scheduler_name == "json"


# --------------------------------------------------------------------------------------------
# Strict decoding


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo: bar\n", 'strict decoding error: unknown field "foo"'),
        (
            "profiles:\n- schedulerName: a\n  foo: 1\n  bar: 2\n",
            'strict decoding error: unknown field "profiles[0].bar", '
            'unknown field "profiles[0].foo"',
        ),
        ("Parallelism: 3\n", 'strict decoding error: unknown field "Parallelism"'),
        (
            "leaderElection:\n  leaderElect: true\n  leaderElect: false\n",
            'strict decoding error: yaml: unmarshal errors:\n  line 5: key "leaderElect" already '
            "set in map",
        ),
        (
            "zzz: 1\nparallelism: 1\nparallelism: 2\n",
            'strict decoding error: yaml: unmarshal errors:\n  line 5: key "parallelism" already '
            'set in map, unknown field "zzz"',
        ),
    ],
    ids=[
        "an unknown top-level field",
        "unknown fields are listed in key order with their path",
        "field names are case sensitive",
        "a repeated key is reported with its line",
        "repeated keys come before unknown fields",
    ],
)
def test_decoding_is_strict(text: str, message: str) -> None:
    assert load_error(HEADER + text) == message


def test_json_repeated_and_unknown_fields_are_reported_in_document_order() -> None:
    message = load_error(
        '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",'
        ' "zz": 1, "leaderElection": {"leaderElect": true, "leaderElect": false}, "aa": 2}'
    )

    assert message == (
        'strict decoding error: unknown field "zz", duplicate field "leaderElection.leaderElect", '
        'unknown field "aa"'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "parallelism: many\n",
            "json: cannot unmarshal string into Go struct field "
            "KubeSchedulerConfiguration.parallelism of type int32",
        ),
        (
            "parallelism: 1.5\n",
            "json: cannot unmarshal number 1.5 into Go struct field "
            "KubeSchedulerConfiguration.parallelism of type int32",
        ),
        (
            "parallelism: 3000000000\n",
            "json: cannot unmarshal number 3000000000 into Go struct field "
            "KubeSchedulerConfiguration.parallelism of type int32",
        ),
        (
            "profiles:\n- schedulerName: 5\n",
            "json: cannot unmarshal number into Go struct field "
            "KubeSchedulerProfile.profiles.schedulerName of type string",
        ),
        (
            "profiles: {}\n",
            "json: cannot unmarshal object into Go struct field "
            "KubeSchedulerConfiguration.profiles of type []v1.KubeSchedulerProfile",
        ),
        (
            "profiles:\n- plugins:\n    filter:\n      enabled: [{name: A, weight: x}]\n",
            "json: cannot unmarshal string into Go struct field "
            "Plugin.profiles.plugins.filter.enabled.weight of type int32",
        ),
        (
            "leaderElection: true\n",
            "json: cannot unmarshal bool into Go struct field "
            "KubeSchedulerConfiguration.leaderElection of type "
            "v1alpha1.LeaderElectionConfiguration",
        ),
        (
            "leaderElection:\n  leaseDuration: 5\n",
            "json: cannot unmarshal number into Go struct field "
            "LeaderElectionConfiguration.leaderElection.leaseDuration of type string",
        ),
        ("leaderElection:\n  leaseDuration: abc\n", 'time: invalid duration "abc"'),
        ("leaderElection:\n  leaseDuration: null\n", 'time: invalid duration ""'),
        (
            "enableProfiling: yes please\n",
            "json: cannot unmarshal string into Go struct field "
            "KubeSchedulerConfiguration.enableProfiling of type bool",
        ),
    ],
    ids=[
        "a string where an integer belongs",
        "a fraction where an integer belongs",
        "an integer too large for int32",
        "a number where a string belongs, inside a list",
        "a mapping where a list belongs",
        "a field deep inside plugins",
        "a boolean where a struct belongs",
        "a number where a duration belongs",
        "text that is no duration",
        "null where a duration belongs",
        "text where a boolean belongs",
    ],
)
def test_values_of_the_wrong_type_are_fatal(text: str, message: str) -> None:
    assert load_error(HEADER + text) == message


def test_the_first_type_error_wins_over_strict_errors() -> None:
    message = load_error(HEADER + "aaa: 1\nparallelism: x\npercentageOfNodesToScore: y\n")

    assert message == (
        "json: cannot unmarshal string into Go struct field "
        "KubeSchedulerConfiguration.parallelism of type int32"
    )


def test_null_clears_pointers_and_lists_and_leaves_other_fields() -> None:
    cfg = load_config(HEADER + "parallelism: null\nprofiles: null\nclientConnection: null\n")

    assert cfg.parallelism is None
    assert cfg.profiles == []
    assert cfg.client_connection.burst == 0


def test_integral_floats_are_integers_as_after_yaml_to_json() -> None:
    assert load_config(HEADER + "parallelism: 4.0\n").parallelism == 4


def test_timestamps_stay_text() -> None:
    cfg = load_config(HEADER + "profiles:\n- schedulerName: 2001-12-14\n")

    assert cfg.profiles[0].scheduler_name == "2001-12-14"


def test_durations_accept_go_syntax() -> None:
    cfg = load_config(HEADER + "leaderElection:\n  leaseDuration: 1m30s\n  renewDeadline: 500ms\n")

    assert cfg.leader_election.lease_duration == timedelta(seconds=90)
    assert cfg.leader_election.renew_deadline == timedelta(milliseconds=500)


def test_extender_fields_and_tls_data_decode() -> None:
    cfg = load_config(
        HEADER + "extenders:\n- urlPrefix: http://e\n  enableHTTPS: true\n  httpTimeout: 30s\n"
        "  tlsConfig:\n    caData: aGVsbG8=\n  managedResources:\n  - name: example.com/foo\n"
        "    ignoredByScheduler: true\n"
    )

    extender = cfg.extenders[0]
    assert extender.url_prefix == "http://e"
    assert extender.enable_https is True
    assert extender.http_timeout == timedelta(seconds=30)
    assert extender.tls_config is not None and extender.tls_config.ca_data == b"hello"
    assert extender.managed_resources[0].ignored_by_scheduler is True


# --------------------------------------------------------------------------------------------
# Plugin args (upstream's scheme_test.go)


def test_all_in_tree_plugin_args_are_typed_and_defaulted() -> None:
    args = args_of(
        """profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 50
      minCandidateNodesAbsolute: 500
  - name: DynamicResources
    args:
      filterTimeout: 10s
      bindingTimeout: 30s
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 5
  - name: NodeResourcesFit
    args:
      ignoredResources: ["foo"]
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: ScheduleAnyway
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 300
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: foo
              operator: In
              values: ["bar"]
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
        - name: cpu       # default weight(1) will be set.
        - name: memory    # weight 0 will be replaced by 1.
          weight: 0
        - name: scalar0
          weight: 1
        - name: scalar1   # default weight(1) will be set for scalar1
        - name: scalar2   # weight 0 will be replaced by 1.
          weight: 0
        - name: scalar3
          weight: 2
"""
    )

    assert args == {
        "DefaultPreemption": DefaultPreemptionArgs(50, 500),
        "DynamicResources": DynamicResourcesArgs(timedelta(seconds=10), timedelta(seconds=30)),
        "InterPodAffinity": InterPodAffinityArgs(5),
        "NodeResourcesFit": NodeResourcesFitArgs(
            ignored_resources=["foo"],
            scoring_strategy=ScoringStrategy(
                "LeastAllocated", [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
            ),
        ),
        "PodTopologySpread": PodTopologySpreadArgs(
            [TopologySpreadConstraint(1, "zone", "ScheduleAnyway")], "System"
        ),
        "VolumeBinding": VolumeBindingArgs(300),
        "NodeAffinity": NodeAffinityArgs(
            NodeAffinity(
                NodeSelector([NodeSelectorTerm([NodeSelectorRequirement("foo", "In", ["bar"])])])
            )
        ),
        "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocationArgs(
            [
                ResourceSpec("cpu", 1),
                ResourceSpec("memory", 1),
                ResourceSpec("scalar0", 1),
                ResourceSpec("scalar1", 1),
                ResourceSpec("scalar2", 1),
                ResourceSpec("scalar3", 2),
            ]
        ),
    }


def test_plugin_args_may_carry_their_version_and_kind() -> None:
    args = args_of(
        "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n"
        "      apiVersion: kubescheduler.config.k8s.io/v1\n      kind: DefaultPreemptionArgs\n"
        "      minCandidateNodesPercentage: 50\n"
    )

    assert args["DefaultPreemption"] == DefaultPreemptionArgs(50, 100)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            "      apiVersion: kubescheduler.config.k8s.io/v1\n      kind: InterPodAffinityArgs\n",
            "decoding .profiles[0].pluginConfig[0]: args for plugin DefaultPreemption were not "
            "of type DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
            "InterPodAffinityArgs.kubescheduler.config.k8s.io",
        ),
        (
            "      apiVersion: kubescheduler.config.k8s.io/v1beta3\n",
            "decoding .profiles[0].pluginConfig[0]: decoding args for plugin DefaultPreemption: "
            'no kind "DefaultPreemptionArgs" is registered for version '
            f'"kubescheduler.config.k8s.io/v1beta3" in scheme "{SCHEME}"',
        ),
        (
            "      minCandidateNodesPercentage: lots\n",
            "decoding .profiles[0].pluginConfig[0]: decoding args for plugin DefaultPreemption: "
            "json: cannot unmarshal string into Go struct field "
            "DefaultPreemptionArgs.minCandidateNodesPercentage of type int32",
        ),
        (
            "      - 1\n",
            "decoding .profiles[0].pluginConfig[0]: decoding args for plugin DefaultPreemption: "
            "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go "
            'value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
            'Kind string "json:\\"kind,omitempty\\"" }',
        ),
    ],
    ids=[
        "args of another kind",
        "args of a version that is not registered",
        "a value of the wrong type",
        "args that are not a mapping",
    ],
)
def test_bad_plugin_args_are_fatal(args: str, message: str) -> None:
    text = "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n" + args

    assert load_error(HEADER + text) == message


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            "      scoringStrategy:\n        requestedToCapacityRatio:\n          shape:\n"
            "          - Score: 2\n            Utilization: 1\n",
            "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
            "decoding args for plugin NodeResourcesFit: strict decoding error: unknown field "
            '"scoringStrategy.requestedToCapacityRatio.shape[0].Score", unknown field '
            '"scoringStrategy.requestedToCapacityRatio.shape[0].Utilization"',
        ),
        (
            "      scoringStrategy:\n        resources:\n"
            "        - Name: cpu\n          Weight: 1\n",
            "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
            "decoding args for plugin NodeResourcesFit: strict decoding error: unknown field "
            '"scoringStrategy.resources[0].Name", '
            'unknown field "scoringStrategy.resources[0].Weight"',
        ),
    ],
    ids=["shape points are decoded strictly", "resources are decoded strictly"],
)
def test_plugin_args_are_decoded_strictly(args: str, message: str) -> None:
    text = "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n" + args

    assert load_error(HEADER + text) == message


def test_strict_errors_of_the_file_and_of_args_are_reported_together() -> None:
    message = load_error(
        HEADER + "foo: 1\nprofiles:\n- pluginConfig:\n  - name: InterPodAffinity\n"
        "    args:\n      bar: 1\n"
    )

    assert message == (
        'strict decoding error: unknown field "foo", decoding .profiles[0].pluginConfig[0]: '
        "strict decoding error: decoding args for plugin InterPodAffinity: strict decoding "
        'error: unknown field "bar"'
    )


def test_out_of_tree_args_are_kept_as_given() -> None:
    cfg = load_config(
        HEADER
        + "profiles:\n- pluginConfig:\n  - name: OutOfTreePlugin\n    args:\n      foo: bar\n"
    )

    assert cfg.profiles[0].plugin_config[0].args == {"foo": "bar"}


def test_out_of_tree_args_from_json_are_plain_data() -> None:
    cfg = load_config(
        '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",'
        ' "profiles": [{"pluginConfig": [{"name": "X", "args": {"a": {"b": [1]}}}]}]}'
    )

    args = cfg.profiles[0].plugin_config[0].args
    assert args == {"a": {"b": [1]}}
    assert type(args) is dict and type(args["a"]) is dict


def test_empty_and_missing_args() -> None:
    args = args_of(
        """profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
  - name: DynamicResources
    args:
  - name: InterPodAffinity
    args:
  - name: NodeResourcesFit
  - name: OutOfTreePlugin
    args:
  - name: VolumeBinding
    args:
  - name: PodTopologySpread
  - name: NodeAffinity
  - name: NodeResourcesBalancedAllocation
"""
    )

    assert list(args) == [
        "DefaultPreemption",
        "DynamicResources",
        "InterPodAffinity",
        "NodeResourcesFit",
        "OutOfTreePlugin",
        "VolumeBinding",
        "PodTopologySpread",
        "NodeAffinity",
        "NodeResourcesBalancedAllocation",
    ]
    assert args["DefaultPreemption"] == DefaultPreemptionArgs(10, 100)
    assert args["DynamicResources"] == DynamicResourcesArgs(
        timedelta(seconds=10), timedelta(minutes=10)
    )
    assert args["OutOfTreePlugin"] is None
    assert args["NodeAffinity"] == NodeAffinityArgs()
    assert args["VolumeBinding"] == VolumeBindingArgs(600)


def test_ignore_preferred_terms_of_existing_pods_is_read() -> None:
    args = args_of(
        "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n"
        "      ignorePreferredTermsOfExistingPods: true\n"
    )

    assert args["InterPodAffinity"] == InterPodAffinityArgs(1, True)
    assert next(iter(args)) == "InterPodAffinity"
