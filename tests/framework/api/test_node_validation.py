"""Node validation as kube-apiserver's ``ValidateNode``: cases from upstream's TestValidateNode
and TestValidateNodeResources tables, with upstream's paths and messages."""

from __future__ import annotations

import pytest

from framework.api.errors import InvalidObjectError
from framework.api.loader import parse_new_object
from framework.api.validation.node import validate_node

TAINT_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
KEY_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def node(taints=None, capacity=None, allocatable=None, features=None, name="dedicated-node1"):
    status = {"capacity": capacity or {"cpu": "10", "memory": "10G"}}
    if allocatable is not None:
        status["allocatable"] = allocatable
    if features is not None:
        status["declaredFeatures"] = features
    manifest = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": status}
    if taints is not None:
        manifest["spec"] = {"taints": taints}
    return manifest


CASES = [
    (
        "valid with extended resources and hugepages",
        node(capacity={"cpu": "10", "memory": "10G", "my.org/gpu": "10", "hugepages-2Mi": "10Gi"}),
        [],
    ),
    (
        "valid taint with an upper-case key",
        node([{"key": "GPU", "value": "true", "effect": "NoSchedule"}]),
        [],
    ),
    (
        "missing-taint-key",
        node([{"key": "", "value": "special-user-1", "effect": "NoSchedule"}]),
        [
            'metadata.taints[0].key: Invalid value: "": name part must be non-empty',
            f'metadata.taints[0].key: Invalid value: "": {KEY_MSG}',
        ],
    ),
    (
        "bad-taint-key",
        node(
            [{"key": "NoUppercaseOrSpecialCharsLike=Equals", "value": "u", "effect": "NoSchedule"}]
        ),
        [
            'metadata.taints[0].key: Invalid value: "NoUppercaseOrSpecialCharsLike=Equals": '
            + KEY_MSG
        ],
    ),
    (
        "bad-taint-value",
        node([{"key": "dedicated", "value": "some\\bad\\value", "effect": "NoSchedule"}]),
        [f'metadata.taints[0].value: Invalid value: "some\\\\bad\\\\value": {TAINT_VALUE_MSG}'],
    ),
    (
        "missing-taint-effect",
        node([{"key": "dedicated", "value": "special-user-3", "effect": ""}]),
        ["metadata.taints[0].effect: Required value"],
    ),
    (
        "invalid-taint-effect",
        node([{"key": "dedicated", "value": "special-user-3", "effect": "NoScheduleNoAdmit"}]),
        [
            'metadata.taints[0].effect: Unsupported value: "NoScheduleNoAdmit": supported '
            'values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
        ],
    ),
    (
        "duplicated-taints-with-same-key-effect",
        node(
            [
                {"key": "dedicated", "value": "special-user-1", "effect": "NoSchedule"},
                {"key": "dedicated", "value": "special-user-2", "effect": "NoSchedule"},
            ]
        ),
        [
            'metadata.taints[1]: Duplicate value: {"Key":"dedicated","Value":"special-user-2",'
            '"Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair'
        ],
    ),
    (
        "the same key with another effect is another taint",
        node(
            [
                {"key": "dedicated", "effect": "NoSchedule"},
                {"key": "dedicated", "effect": "NoExecute"},
            ]
        ),
        [],
    ),
    (
        "zero-length Name",
        node(name=""),
        ["metadata.name: Required value: name or generateName is required"],
    ),
    # TestValidateNodeResources
    (
        "negative capacity and a fractional extended resource",
        node(capacity={"cpu": "-1", "example.com/gpu": "1.5"}, allocatable={"memory": "-1Gi"}),
        [
            'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
            'status.capacity.example.com/gpu: Invalid value: "1500m": must be an integer',
            'status.allocatable.memory: Invalid value: "-1Gi": must be greater than or equal to 0',
        ],
    ),
    (
        "declared features must be named, sorted and unique",
        node(features=["Zeta", "Alpha", "Alpha", "lower"]),
        [
            'status.declaredFeatures[1]: Invalid value: "Alpha": list must be sorted '
            "alphabetically",
            'status.declaredFeatures[2]: Duplicate value: "Alpha"',
            'status.declaredFeatures[3]: Invalid value: "lower": invalid feature name "lower": '
            "must start with an UpperCamelCase segment, with subsequent segments separated by "
            "'/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric "
            "characters and slashes",
        ],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_node_validation(manifest, expected):
    assert [str(e) for e in validate_node(manifest)] == expected


def test_an_invalid_node_is_refused_with_every_problem():
    manifest = node([{"key": "a", "effect": "Sometimes"}], capacity={"cpu": "-2"})
    with pytest.raises(InvalidObjectError) as raised:
        parse_new_object(manifest)
    assert [field for field, _ in raised.value.parts()] == [
        "metadata.taints[0].effect",
        "status.capacity.cpu",
        "status.allocatable.cpu",  # defaulted from capacity before validation
    ]
