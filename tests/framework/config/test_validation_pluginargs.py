"""Plugin args validation, from upstream's validation_pluginargs_test.go tables."""

from __future__ import annotations

from datetime import timedelta

import pytest

from framework.config.corev1 import (
    LabelSelector,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    TopologySpreadConstraint,
)
from framework.config.field import Path
from framework.config.types import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from framework.config.validation_pluginargs import (
    validate_default_preemption_args,
    validate_dynamic_resources_args,
    validate_inter_pod_affinity_args,
    validate_node_affinity_args,
    validate_node_resources_balanced_allocation_args,
    validate_node_resources_fit_args,
    validate_pod_topology_spread_args,
    validate_volume_binding_args,
)
from framework.features import FeatureGates

INVALID = "Invalid value"
REQUIRED = "Required value"
DUPLICATE = "Duplicate value"
NOT_SUPPORTED = "Unsupported value"
FORBIDDEN = "Forbidden"


def kinds_and_fields(errors) -> list[tuple[str, str]]:
    return [(e.type, e.field) for e in errors]


def ids(cases) -> list[str]:
    return [case.values[0] if hasattr(case, "values") else case[0] for case in cases]


def params(cases) -> list:
    """Drops each case's name (used as its id); keeps marks of ``pytest.param`` cases."""
    return [
        pytest.param(*case.values[1:], marks=case.marks) if hasattr(case, "values") else case[1:]
        for case in cases
    ]


# --------------------------------------------------------------------------------------------
# DefaultPreemption

DEFAULT_PREEMPTION_CASES = [
    ("valid args (default)", DefaultPreemptionArgs(10, 100), []),
    (
        "negative minCandidateNodesPercentage",
        DefaultPreemptionArgs(-1, 100),
        ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"],
    ),
    (
        "minCandidateNodesPercentage over 100",
        DefaultPreemptionArgs(900, 100),
        ["minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"],
    ),
    (
        "negative minCandidateNodesAbsolute",
        DefaultPreemptionArgs(20, -1),
        ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
    ),
    (
        "all zero",
        DefaultPreemptionArgs(0, 0),
        [
            "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesAbsolute",
            "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesPercentage",
        ],
    ),
    (
        "both negative",
        DefaultPreemptionArgs(-1, -1),
        [
            "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
        ],
    ),
]


@pytest.mark.parametrize(
    ("args", "messages"), params(DEFAULT_PREEMPTION_CASES), ids=ids(DEFAULT_PREEMPTION_CASES)
)
def test_default_preemption_args(args, messages) -> None:
    assert [str(e) for e in validate_default_preemption_args(None, args)] == messages


# --------------------------------------------------------------------------------------------
# InterPodAffinity

INTER_POD_AFFINITY_CASES = [
    ("valid args", InterPodAffinityArgs(10), []),
    (
        "hardPodAffinityWeight less than min",
        InterPodAffinityArgs(-1),
        ["hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"],
    ),
    (
        "hardPodAffinityWeight more than max",
        InterPodAffinityArgs(101),
        ["hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"],
    ),
]


@pytest.mark.parametrize(
    ("args", "messages"), params(INTER_POD_AFFINITY_CASES), ids=ids(INTER_POD_AFFINITY_CASES)
)
def test_inter_pod_affinity_args(args, messages) -> None:
    assert [str(e) for e in validate_inter_pod_affinity_args(None, args)] == messages


# --------------------------------------------------------------------------------------------
# PodTopologySpread


def constraint(max_skew=1, key="node", action="DoNotSchedule", **more) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(max_skew, key, action, **more)


POD_TOPOLOGY_SPREAD_CASES = [
    (
        "valid config",
        PodTopologySpreadArgs(
            [constraint(1, "node", "DoNotSchedule"), constraint(2, "zone", "ScheduleAnyway")],
            "List",
        ),
        [],
    ),
    (
        "maxSkew less than zero",
        PodTopologySpreadArgs([constraint(-1)], "List"),
        ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
    ),
    (
        "empty topology key",
        PodTopologySpreadArgs([constraint(key="")], "List"),
        ["defaultConstraints[0].topologyKey: Required value: can not be empty"],
    ),
    (
        "whenUnsatisfiable is empty",
        PodTopologySpreadArgs([constraint(action="")], "List"),
        ["defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"],
    ),
    (
        "whenUnsatisfiable contains an unsupported action",
        PodTopologySpreadArgs([constraint(action="unknown action")], "List"),
        [
            'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": '
            'supported values: "DoNotSchedule", "ScheduleAnyway"'
        ],
    ),
    (
        "duplicated constraints",
        PodTopologySpreadArgs([constraint(1), constraint(2)], "List"),
        ['defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"'],
    ),
    (
        "a label selector is present",
        PodTopologySpreadArgs(
            [constraint(key="key", label_selector=LabelSelector({"a": "b"}))], "List"
        ),
        [
            "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
            "selector, as they deduced for each pod"
        ],
    ),
    ("List defaulting without constraints", PodTopologySpreadArgs([], "List"), []),
    ("System defaulting", PodTopologySpreadArgs([], "System"), []),
    (
        "an unknown defaulting type",
        PodTopologySpreadArgs([], "unknown"),
        ['defaultingType: Unsupported value: "unknown": supported values: "System", "List"'],
    ),
    (
        "System defaulting with constraints",
        PodTopologySpreadArgs([constraint(key="key")], "System"),
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
    ),
    (
        "a topology key that is not a label key",
        PodTopologySpreadArgs([constraint(key="a/b/c")], "List"),
        [
            'defaultConstraints[0].topologyKey: Invalid value: "a/b/c": a valid label key must '
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ],
    ),
]


@pytest.mark.parametrize(
    ("args", "messages"), params(POD_TOPOLOGY_SPREAD_CASES), ids=ids(POD_TOPOLOGY_SPREAD_CASES)
)
def test_pod_topology_spread_args(args, messages) -> None:
    assert [str(e) for e in validate_pod_topology_spread_args(None, args)] == messages


# --------------------------------------------------------------------------------------------
# NodeResourcesBalancedAllocation

BALANCED_ALLOCATION_CASES = [
    (
        "valid config",
        NodeResourcesBalancedAllocationArgs([ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]),
        [],
    ),
    (
        "a weight other than 1",
        NodeResourcesBalancedAllocationArgs([ResourceSpec("cpu", 2), ResourceSpec("memory", 1)]),
        ["resources[0].weight: Invalid value: 2: must be 1"],
    ),
    (
        "repeated resources",
        NodeResourcesBalancedAllocationArgs([ResourceSpec("cpu", 1), ResourceSpec("cpu", 1)]),
        ['resources[1].name: Duplicate value: "cpu"'],
    ),
]


@pytest.mark.parametrize(
    ("args", "messages"), params(BALANCED_ALLOCATION_CASES), ids=ids(BALANCED_ALLOCATION_CASES)
)
def test_node_resources_balanced_allocation_args(args, messages) -> None:
    errors = validate_node_resources_balanced_allocation_args(None, args)

    assert [str(e) for e in errors] == messages


# --------------------------------------------------------------------------------------------
# NodeAffinity


def term(expressions=(), fields=()) -> NodeSelectorTerm:
    return NodeSelectorTerm(list(expressions), list(fields))


def requirement(key, operator, *values) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, operator, list(values))


NODE_AFFINITY_CASES = [
    ("empty", NodeAffinityArgs(), []),
    (
        "valid added affinity",
        NodeAffinityArgs(
            NodeAffinity(
                NodeSelector([term([requirement("label-1", "In", "label-1-val")])]),
                [
                    PreferredSchedulingTerm(
                        1, term(fields=[requirement("metadata.name", "In", "node-1")])
                    )
                ],
            )
        ),
        [],
    ),
    (
        "invalid added affinity",
        NodeAffinityArgs(
            NodeAffinity(
                NodeSelector([term([requirement("invalid/label/key", "In", "label-1-val")])]),
                [
                    PreferredSchedulingTerm(
                        1, term(fields=[requirement("metadata.name", "In", "node-1", "node-2")])
                    )
                ],
            )
        ),
        [
            (
                INVALID,
                "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
                ".matchExpressions[0].key",
            ),
            (
                INVALID,
                "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0]"
                ".values",
            ),
        ],
    ),
]


@pytest.mark.parametrize(
    ("args", "expected"), params(NODE_AFFINITY_CASES), ids=ids(NODE_AFFINITY_CASES)
)
def test_node_affinity_args(args, expected) -> None:
    assert kinds_and_fields(validate_node_affinity_args(None, args)) == expected


REQUIRED_PATH = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"

NODE_SELECTOR_MESSAGE_CASES = [
    (
        "an unknown operator",
        term([requirement("a", "Near", "b")]),
        [
            f'{REQUIRED_PATH}.matchExpressions[0].operator: Unsupported value: "Near": supported '
            'values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
        ],
    ),
    (
        "In without values",
        term([requirement("a", "In")]),
        [
            f"{REQUIRED_PATH}.matchExpressions[0].values: Invalid value: null: for 'in', 'notin' "
            "operators, values set can't be empty"
        ],
    ),
    (
        "Exists with values",
        term([requirement("a", "Exists", "b")]),
        [
            f'{REQUIRED_PATH}.matchExpressions[0].values: Invalid value: ["b"]: values set must '
            "be empty for exists and does not exist"
        ],
    ),
    (
        "Gt with a value that is not an integer",
        term([requirement("a", "Gt", "x")]),
        [
            f"{REQUIRED_PATH}.matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', "
            "'Lt' operators, the value must be an integer"
        ],
    ),
    (
        "Lt with two values",
        term([requirement("a", "Lt", "1", "2")]),
        [
            f'{REQUIRED_PATH}.matchExpressions[0].values: Invalid value: ["1","2"]: for \'Gt\', '
            "'Lt' operators, exactly one value is required"
        ],
    ),
    (
        "a value that is not a label value",
        term([requirement("a", "In", "b c")]),
        [
            f'{REQUIRED_PATH}.matchExpressions[0].values[0][a]: Invalid value: "b c": a valid '
            "label must be an empty string or consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ],
    ),
    (
        "a field selector operator other than In and NotIn",
        term(fields=[requirement("metadata.name", "Exists")]),
        [
            f'{REQUIRED_PATH}.matchFields[0].operator: Unsupported value: "Exists": supported '
            'values: "In", "NotIn"'
        ],
    ),
]


@pytest.mark.parametrize(
    ("selector_term", "messages"),
    params(NODE_SELECTOR_MESSAGE_CASES),
    ids=ids(NODE_SELECTOR_MESSAGE_CASES),
)
def test_node_selector_parse_errors(selector_term, messages) -> None:
    args = NodeAffinityArgs(NodeAffinity(NodeSelector([selector_term])))

    assert [str(e) for e in validate_node_affinity_args(None, args)] == messages


def test_empty_terms_and_preferred_terms_without_weight_are_not_checked() -> None:
    bad = term([requirement("a", "Near")])
    args = NodeAffinityArgs(NodeAffinity(NodeSelector([term()]), [PreferredSchedulingTerm(0, bad)]))

    assert validate_node_affinity_args(None, args) == []


# --------------------------------------------------------------------------------------------
# VolumeBinding

VOLUME_BINDING_CASES = [
    ("zero is a valid config", {}, VolumeBindingArgs(0), []),
    ("a positive value is valid", {}, VolumeBindingArgs(10), []),
    (
        "a negative value is invalid",
        {},
        VolumeBindingArgs(-10),
        [
            "bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a "
            "negative value"
        ],
    ),
    (
        "no shape while StorageCapacityScoring is off",
        {"StorageCapacityScoring": False},
        VolumeBindingArgs(10),
        [],
    ),
    (
        "a shape while StorageCapacityScoring is off",
        {"StorageCapacityScoring": False},
        VolumeBindingArgs(10, [UtilizationShapePoint(1, 1), UtilizationShapePoint(3, 3)]),
        [
            'shape: Invalid value: [{"Utilization":1,"Score":1},{"Utilization":3,"Score":3}]: '
            "unexpected field `shape`, remove it or turn on the feature gate "
            "StorageCapacityScoring"
        ],
    ),
    (
        "an empty shape while StorageCapacityScoring is on",
        {"StorageCapacityScoring": True},
        VolumeBindingArgs(10, []),
        ["shape: Required value: at least one point must be specified"],
    ),
    (
        "shape points out of order",
        {"StorageCapacityScoring": True},
        VolumeBindingArgs(10, [UtilizationShapePoint(3, 3), UtilizationShapePoint(1, 1)]),
        [
            "shape[1].utilization: Invalid value: 1: values must be sorted in increasing order",
        ],
    ),
    (
        "shape points with invalid utilization and score",
        {"StorageCapacityScoring": True},
        VolumeBindingArgs(
            10,
            [
                UtilizationShapePoint(-1, 1),
                UtilizationShapePoint(10, -1),
                UtilizationShapePoint(20, 11),
                UtilizationShapePoint(101, 1),
            ],
        ),
        [
            "shape[0].utilization: Invalid value: -1: not in valid range [0, 100]",
            "shape[1].score: Invalid value: -1: not in valid range [0, 10]",
            "shape[2].score: Invalid value: 11: not in valid range [0, 10]",
            "shape[3].utilization: Invalid value: 101: not in valid range [0, 100]",
        ],
    ),
]


@pytest.mark.parametrize(
    ("gates", "args", "messages"), params(VOLUME_BINDING_CASES), ids=ids(VOLUME_BINDING_CASES)
)
def test_volume_binding_args(gates, args, messages) -> None:
    errors = validate_volume_binding_args(None, args, FeatureGates(gates))

    assert [str(e) for e in errors] == messages


# --------------------------------------------------------------------------------------------
# NodeResourcesFit


def cpu_and_memory() -> list[ResourceSpec]:
    return [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]


def least_allocated() -> ScoringStrategy:
    return ScoringStrategy("LeastAllocated", cpu_and_memory())


FIT_CASES = [
    pytest.param(
        "ignored resources: too long value",
        NodeResourcesFitArgs(["longvalue" + "a" * 64], scoring_strategy=least_allocated()),
        "name part must be no more than 63 bytes",
    ),
    (
        "ignored resources: empty name",
        NodeResourcesFitArgs(["example.com/"], scoring_strategy=least_allocated()),
        "name part must be non-empty",
    ),
    (
        "ignored resources: too many slashes",
        NodeResourcesFitArgs(["example.com/aaa/bbb"], scoring_strategy=least_allocated()),
        "a valid label key must consist of",
    ),
    (
        "ignored resources: valid",
        NodeResourcesFitArgs(["example.com"], scoring_strategy=least_allocated()),
        None,
    ),
    (
        "ignored resource groups: valid",
        NodeResourcesFitArgs([], ["example.com"], least_allocated()),
        None,
    ),
    (
        "ignored resource groups: empty name",
        NodeResourcesFitArgs([], ["example.com/"], least_allocated()),
        "name part must be non-empty",
    ),
    pytest.param(
        "ignored resource groups: too long",
        NodeResourcesFitArgs([], ["a" * 64], least_allocated()),
        "name part must be no more than 63 bytes",
    ),
    (
        "ignored resource groups: a slash",
        NodeResourcesFitArgs([], ["example.com/aa"], least_allocated()),
        "resource group name can't contain '/'",
    ),
    (
        "scoring strategy is required",
        NodeResourcesFitArgs(),
        "ScoringStrategy field is required",
    ),
    (
        "an unsupported strategy type",
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("Invalid")),
        'Unsupported value: "Invalid"',
    ),
    (
        "requestedToCapacityRatio is missing",
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("RequestedToCapacityRatio")),
        "must be specified when type is RequestedToCapacityRatio",
    ),
]


@pytest.mark.parametrize(("args", "expected"), params(FIT_CASES), ids=ids(FIT_CASES))
def test_node_resources_fit_args(args, expected) -> None:
    text = "\n".join(str(e) for e in validate_node_resources_fit_args(None, args))

    if expected is None:
        assert text == ""
    else:
        assert expected in text


def resources_cases(strategy: str) -> list[tuple]:
    weight_path = "scoringStrategy.resources[{}].weight"
    return [
        (f"{strategy}: default config", strategy, [], []),
        (
            f"{strategy}: multiple valid resources",
            strategy,
            [ResourceSpec("cpu", 1), ResourceSpec("memory", 10)],
            [],
        ),
        (
            f"{strategy}: weight less than min",
            strategy,
            [ResourceSpec("cpu", 0)],
            [(INVALID, weight_path.format(0))],
        ),
        (
            f"{strategy}: weight greater than max",
            strategy,
            [ResourceSpec("cpu", 101)],
            [(INVALID, weight_path.format(0))],
        ),
        (
            f"{strategy}: multiple invalid resources",
            strategy,
            [ResourceSpec("cpu", 0), ResourceSpec("memory", 101)],
            [(INVALID, weight_path.format(0)), (INVALID, weight_path.format(1))],
        ),
    ]


STRATEGY_RESOURCES_CASES = resources_cases("LeastAllocated") + resources_cases("MostAllocated")


@pytest.mark.parametrize(
    ("strategy", "resources", "expected"),
    params(STRATEGY_RESOURCES_CASES),
    ids=ids(STRATEGY_RESOURCES_CASES),
)
def test_scoring_strategy_resources(strategy, resources, expected) -> None:
    args = NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(strategy, resources))

    assert kinds_and_fields(validate_node_resources_fit_args(None, args)) == expected


def test_resource_weight_message() -> None:
    args = NodeResourcesFitArgs(
        scoring_strategy=ScoringStrategy("LeastAllocated", [ResourceSpec("cpu", 101)])
    )

    assert [str(e) for e in validate_node_resources_fit_args(None, args)] == [
        "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in "
        "valid range (0, 100]"
    ]


SHAPE_PATH = "scoringStrategy.requestedToCapacityRatio.shape"
DEFAULT_SHAPE = [UtilizationShapePoint(30, 3)]
RATIO_CASES = [
    ("no shapes", [], None, [(REQUIRED, SHAPE_PATH)]),
    (
        "weight greater than max",
        [ResourceSpec("cpu", 101)],
        DEFAULT_SHAPE,
        [(INVALID, "scoringStrategy.resources[0].weight")],
    ),
    (
        "weight less than min",
        [ResourceSpec("cpu", 0)],
        DEFAULT_SHAPE,
        [(INVALID, "scoringStrategy.resources[0].weight")],
    ),
    ("valid shapes", [], DEFAULT_SHAPE, []),
    (
        "utilization less than min",
        [],
        [UtilizationShapePoint(-1, 3)],
        [(INVALID, f"{SHAPE_PATH}[0].utilization")],
    ),
    (
        "utilization greater than max",
        [],
        [UtilizationShapePoint(101, 3)],
        [(INVALID, f"{SHAPE_PATH}[0].utilization")],
    ),
    (
        "duplicated utilization values",
        [],
        [UtilizationShapePoint(10, 3), UtilizationShapePoint(10, 3)],
        [(INVALID, f"{SHAPE_PATH}[1].utilization")],
    ),
    (
        "increasing utilization values",
        [],
        [UtilizationShapePoint(10, 3), UtilizationShapePoint(20, 3), UtilizationShapePoint(30, 3)],
        [],
    ),
    (
        "non-increasing utilization values",
        [],
        [UtilizationShapePoint(10, 3), UtilizationShapePoint(20, 3), UtilizationShapePoint(15, 3)],
        [(INVALID, f"{SHAPE_PATH}[2].utilization")],
    ),
    (
        "score less than min",
        [],
        [UtilizationShapePoint(10, -1)],
        [(INVALID, f"{SHAPE_PATH}[0].score")],
    ),
    (
        "score greater than max",
        [],
        [UtilizationShapePoint(10, 11)],
        [(INVALID, f"{SHAPE_PATH}[0].score")],
    ),
]


@pytest.mark.parametrize(
    ("resources", "shape", "expected"), params(RATIO_CASES), ids=ids(RATIO_CASES)
)
def test_requested_to_capacity_ratio_strategy(resources, shape, expected) -> None:
    strategy = ScoringStrategy(
        "RequestedToCapacityRatio", resources, RequestedToCapacityRatioParam(shape or [])
    )

    errors = validate_node_resources_fit_args(None, NodeResourcesFitArgs(scoring_strategy=strategy))

    assert kinds_and_fields(errors) == expected


def test_a_ratio_shape_with_another_strategy_is_forbidden() -> None:
    strategy = ScoringStrategy(
        "LeastAllocated", cpu_and_memory(), RequestedToCapacityRatioParam(DEFAULT_SHAPE)
    )

    errors = validate_node_resources_fit_args(None, NodeResourcesFitArgs(scoring_strategy=strategy))

    assert [str(e) for e in errors] == [
        "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not "
        "RequestedToCapacityRatio"
    ]


# --------------------------------------------------------------------------------------------
# DynamicResources

ALL_DRA_ON: dict[str, bool] = {}
DYNAMIC_RESOURCES_CASES = [
    (
        "valid args (default)",
        ALL_DRA_ON,
        DynamicResourcesArgs(timedelta(seconds=10), timedelta(seconds=600)),
        [],
    ),
    ("valid args (nothing set)", ALL_DRA_ON, DynamicResourcesArgs(), []),
    (
        "a negative filter timeout",
        ALL_DRA_ON,
        DynamicResourcesArgs(timedelta(seconds=-1)),
        ['filterTimeout: Invalid value: "-1s": must be zero or positive'],
    ),
    (
        "a filter timeout while its feature is off",
        {"DRASchedulerFilterTimeout": False},
        DynamicResourcesArgs(timedelta(seconds=-1)),
        ["filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled"],
    ),
    (
        "a valid binding timeout",
        ALL_DRA_ON,
        DynamicResourcesArgs(binding_timeout=timedelta(30)),
        [],
    ),
    (
        "a zero binding timeout",
        ALL_DRA_ON,
        DynamicResourcesArgs(binding_timeout=timedelta(0)),
        ['bindingTimeout: Invalid value: "0s": must be at least 1 second'],
    ),
    (
        "a negative binding timeout",
        ALL_DRA_ON,
        DynamicResourcesArgs(binding_timeout=timedelta(seconds=-1)),
        ['bindingTimeout: Invalid value: "-1s": must be at least 1 second'],
    ),
    (
        "a binding timeout while DRADeviceBindingConditions is off",
        {"DRADeviceBindingConditions": False},
        DynamicResourcesArgs(binding_timeout=timedelta(seconds=1)),
        [
            "bindingTimeout: Forbidden: DRADeviceBindingConditions or "
            "DRAResourceClaimDeviceStatus feature gate is disabled"
        ],
    ),
    (
        "a binding timeout while DRAResourceClaimDeviceStatus is off",
        {"DRADeviceBindingConditions": False, "DRAResourceClaimDeviceStatus": False},
        DynamicResourcesArgs(binding_timeout=timedelta(seconds=1)),
        [
            "bindingTimeout: Forbidden: DRADeviceBindingConditions or "
            "DRAResourceClaimDeviceStatus feature gate is disabled"
        ],
    ),
]


@pytest.mark.parametrize(
    ("gates", "args", "messages"),
    params(DYNAMIC_RESOURCES_CASES),
    ids=ids(DYNAMIC_RESOURCES_CASES),
)
def test_dynamic_resources_args(gates, args, messages) -> None:
    errors = validate_dynamic_resources_args(None, args, FeatureGates(gates))

    assert [str(e) for e in errors] == messages


def test_a_path_prefixes_every_field() -> None:
    errors = validate_inter_pod_affinity_args(
        Path("profiles").index(0).child("args"), InterPodAffinityArgs(-5)
    )

    assert [e.field for e in errors] == ["profiles[0].args.hardPodAffinityWeight"]
