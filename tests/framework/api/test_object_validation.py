"""Validation of the kinds beside pods and nodes: PriorityClass (TestValidatePriorityClass),
PodDisruptionBudget (TestValidate*DisruptionBudgetSpec) and the name rule of each kind, with
upstream's paths and messages."""

from __future__ import annotations

import pytest

from framework.api.validation.objects import validate_manifest

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')"
)


def errors(kind: str, manifest: dict, namespaced: bool = False) -> list[str]:
    return [str(e) for e in validate_manifest(kind, namespaced, {"kind": kind, **manifest})]


def priority_class(name="tier1", value=100, **fields):
    return {"metadata": {"name": name}, "value": value, **fields}


PRIORITY_CLASS_CASES = [
    ("no description", priority_class(), []),
    ("system node critical", priority_class("system-node-critical", 2_000_001_000), []),
    (
        "with namespace",
        {"metadata": {"name": "tier1", "namespace": "foo"}, "value": 100},
        ["metadata.namespace: Forbidden: not allowed on this type"],
    ),
    (
        "invalid name",
        priority_class("tier&1"),
        [f'metadata.name: Invalid value: "tier&1": {SUBDOMAIN}'],
    ),
    (
        "incorrect system class name",
        priority_class("system-node-critical", 0),
        [
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
            "for system use only. error: value of system-node-critical PriorityClass must be "
            "2000001000"
        ],
    ),
    (
        "incorrect system class value",
        priority_class("system-something", 2_000_001_000),
        [
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
            "for system use only. error: system-something is not a known system priority class"
        ],
    ),
    (
        "a user class above the highest user-definable priority",
        priority_class(value=1_000_000_001),
        ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"],
    ),
    (
        "an unknown preemption policy",
        priority_class(preemptionPolicy="Sometimes"),
        [
            'preemptionPolicy: Unsupported value: "Sometimes": supported values: '
            '"PreemptLowerPriority", "Never"'
        ],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [c[1:] for c in PRIORITY_CLASS_CASES],
    ids=[c[0] for c in PRIORITY_CLASS_CASES],
)
def test_priority_class_validation(manifest, expected):
    assert errors("PriorityClass", manifest) == expected


def pdb(**spec):
    return {"metadata": {"name": "web"}, "spec": spec}


@pytest.mark.parametrize("value", ["0%", "1%", "100%", 0, 1, 100])
def test_a_budget_may_be_a_count_or_a_percentage(value):
    assert errors("PodDisruptionBudget", pdb(minAvailable=value), True) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1.1%", f'spec.minAvailable: Invalid value: "1.1%": {PERCENT}'),
        ("nope", f'spec.minAvailable: Invalid value: "nope": {PERCENT}'),
        ("-1%", f'spec.minAvailable: Invalid value: "-1%": {PERCENT}'),
        ("101%", 'spec.minAvailable: Invalid value: "101%": must not be greater than 100%'),
        (-1, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
    ],
)
def test_an_invalid_budget_is_refused(value, expected):
    assert errors("PodDisruptionBudget", pdb(minAvailable=value), True) == [expected]


def test_min_available_and_max_unavailable_cannot_both_be_set():
    manifest = pdb(minAvailable="10%", maxUnavailable=1, selector={"matchLabels": {"app": "w"}})
    assert errors("PodDisruptionBudget", manifest, True) == [
        'spec: Invalid value: {"MinAvailable":"10%","Selector":{"matchLabels":{"app":"w"}},'
        '"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and '
        "maxUnavailable cannot be both set"
    ]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (None, []),
        ("AlwaysAllow", []),
        (
            "",
            [
                'spec.unhealthyPodEvictionPolicy: Unsupported value: "": supported values: '
                '"AlwaysAllow", "IfHealthyBudget"'
            ],
        ),
        (
            "Invalid",
            [
                'spec.unhealthyPodEvictionPolicy: Unsupported value: "Invalid": supported '
                'values: "AlwaysAllow", "IfHealthyBudget"'
            ],
        ),
    ],
    ids=["nil", "valid", "empty", "invalid"],
)
def test_unhealthy_pod_eviction_policy(policy, expected):
    manifest = pdb(minAvailable="10%", unhealthyPodEvictionPolicy=policy)
    assert errors("PodDisruptionBudget", manifest, True) == expected


def test_a_budget_selector_is_validated():
    manifest = pdb(selector={"matchExpressions": [{"key": "app", "operator": "In"}]})
    assert errors("PodDisruptionBudget", manifest, True) == [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'"
    ]


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        # A budget's name only has to fit in a URL path.
        ("PodDisruptionBudget", "Web_Budget", []),
        (
            "PodDisruptionBudget",
            "a/b",
            ["metadata.name: Invalid value: \"a/b\": may not contain '/'"],
        ),
        ("PodDisruptionBudget", "..", "metadata.name: Invalid value: \"..\": may not be '..'"),
        ("Namespace", "a.b", ['metadata.name: Invalid value: "a.b": must not contain dots']),
        ("StorageClass", "Fast", [f'metadata.name: Invalid value: "Fast": {SUBDOMAIN}']),
    ],
)
def test_each_kind_has_its_name_rule(kind, name, expected):
    if isinstance(expected, str):
        expected = [expected]
    manifest = {"metadata": {"name": name}, "provisioner": "example.com/disk"}
    assert errors(kind, manifest, kind != "StorageClass") == expected


def owner(**fields):
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u1", **fields}


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"ownerReferences": [owner(), owner(name="other")]}, []),
        (
            {"ownerReferences": [{"apiVersion": "a/b/c"}]},
            [
                'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not '
                "be empty",
                'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
                'metadata.ownerReferences.name: Invalid value: "": must not be empty',
                'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
            ],
        ),
        (
            {"ownerReferences": [owner(apiVersion="v1", kind="Event")]},
            [
                'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event",'
                '"name":"web","uid":"u1"}: /v1, Kind=Event is disallowed from being an owner'
            ],
        ),
        (
            {"ownerReferences": [owner(controller=True), owner(name="b", controller=True)]},
            [
                'metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":'
                '"ReplicaSet","name":"web","uid":"u1","controller":true},{"apiVersion":"apps/v1",'
                '"kind":"ReplicaSet","name":"b","uid":"u1","controller":true}]: Only one '
                'reference can have Controller set to true. Found "true" in references for '
                "ReplicaSet/web and ReplicaSet/b"
            ],
        ),
        (
            {"generation": -1},
            ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
        ),
        ({"generateName": "web-"}, []),
        (
            {"annotations": {"a": "x" * (256 * 1024)}},
            ["metadata.annotations: Too long: may not be more than 262144 bytes"],
        ),
    ],
    ids=[
        "two owners",
        "incomplete",
        "an event",
        "two controllers",
        "generation",
        "generateName",
        "annotation size",
    ],
)
def test_metadata_validation(metadata, expected):
    manifest = {"metadata": {"name": "x", **metadata}, "value": 1}
    assert errors("PriorityClass", manifest) == expected
