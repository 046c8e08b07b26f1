"""Node selectors and node affinity; cases from upstream nodeaffinity_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.labels import SelectorError
from framework.api.node import Node
from framework.api.node_affinity import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
)
from framework.api.pod import Pod

NAME_PART_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def node(name: str = "", **labels: str) -> Node:
    return Node.from_dict(
        {"kind": "Node", "metadata": {"name": name or "unnamed", "labels": labels}}
    )


def nameless(**labels: str) -> Any:
    """A node without a name: upstream then ignores field selectors."""

    class _Nameless:
        name = ""

    n = _Nameless()
    n.labels = labels  # type: ignore[attr-defined]
    return n


def expr(key: str, operator: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, operator, tuple(values))


def term(expressions=(), fields=()) -> NodeSelectorTerm:
    return NodeSelectorTerm(list(expressions), list(fields))


INVALID_TERMS = [
    term(fields=[expr("metadata.name", "In", "host_1", "host_2")]),
    term([expr("label_1", "In", "label_1_val")], [expr("metadata.name", "In", "host_1")]),
    term([expr("invalid key", "In", "label_value")]),
]


def test_parse_errors_are_reported_with_field_paths():
    errors = NodeSelector(INVALID_TERMS).parse_errors()
    assert [str(e) for e in errors] == [
        'nodeSelectorTerms[0].matchFields[0].values: Invalid value: ["host_1","host_2"]: '
        "must have one element",
        f'nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: "invalid key": '
        f"{NAME_PART_MESSAGE}",
    ]


def test_parse_errors_can_be_placed_under_a_config_path():
    errors = NodeSelector([term([expr("k", "Bad")])]).parse_errors("args.addedAffinity")
    assert [str(e) for e in errors] == [
        "args.addedAffinity.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "
        '"Bad": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
    ]


def test_terms_with_parse_errors_do_not_match_but_valid_terms_still_do():
    selector = NodeSelector(INVALID_TERMS)
    assert selector.match(node("host_1", label_1="label_1_val"))
    assert not selector.match(node("host_2", label_1="label_1_val"))


def test_when_nothing_matches_the_parse_errors_are_returned():
    matched, error = NodeSelector(INVALID_TERMS).match_with_error(node("host_9"))
    assert not matched
    assert isinstance(error, SelectorError)
    assert str(error).startswith("[nodeSelectorTerms[0].matchFields[0].values: Invalid value")


SELECTOR_CASES = [
    ("a missing node", [term([expr("a", "Exists")])], None, False),
    (
        "field selector matches but labels do not",
        [term([expr("label_1", "In", "label_1_val")], [expr("metadata.name", "In", "host_1")])],
        node("host_1"),
        False,
    ),
    (
        "field selector and labels match",
        [term([expr("label_1", "In", "label_1_val")], [expr("metadata.name", "In", "host_1")])],
        node("host_1", label_1="label_1_val"),
        True,
    ),
    (
        "the second term matches",
        [
            term([expr("label_1", "In", "label_1_val")]),
            term(fields=[expr("metadata.name", "In", "host_1")]),
        ],
        node("host_1"),
        True,
    ),
    ("no terms match nothing", [], node("n"), False),
    ("an empty term matches nothing", [term()], node("n"), False),
    (
        "notin on a field matches other names",
        [term(fields=[expr("metadata.name", "NotIn", "host_1")])],
        node("host_2"),
        True,
    ),
    (
        "fields are ignored for a node without a name",
        [term(fields=[expr("metadata.name", "In", "host_1")])],
        nameless(),
        True,
    ),
    (
        "an unknown field never equals a value",
        [term(fields=[expr("metadata.uid", "In", "x")])],
        node("x"),
        False,
    ),
]


@pytest.mark.parametrize(
    ("terms", "target", "expected"),
    [c[1:] for c in SELECTOR_CASES],
    ids=[c[0] for c in SELECTOR_CASES],
)
def test_node_selector_match(terms, target, expected):
    assert NodeSelector(terms).match(target) is expected


def test_preferred_terms_score_the_sum_of_matching_weights():
    terms = PreferredSchedulingTerms(
        [
            PreferredSchedulingTerm(5, term(fields=[expr("metadata.name", "In", "host_1")])),
            PreferredSchedulingTerm(7, term([expr("unknown_label", "In", "unknown_label_val")])),
            PreferredSchedulingTerm(11, term([expr("label_1", "In", "label_1_val")])),
        ]
    )
    assert terms.score(node("host_1", label_1="label_1_val")) == 16


def test_preferred_terms_with_parse_errors_fail_to_build():
    with pytest.raises(SelectorError) as excinfo:
        PreferredSchedulingTerms([PreferredSchedulingTerm(1, t) for t in INVALID_TERMS])
    assert str(excinfo.value) == (
        '[[0].matchFields[0].values: Invalid value: ["host_1","host_2"]: must have one element, '
        f'[2].matchExpressions[0].key: Invalid value: "invalid key": {NAME_PART_MESSAGE}]'
    )


def test_preferred_terms_without_weight_are_skipped_even_if_invalid():
    terms = PreferredSchedulingTerms([PreferredSchedulingTerm(0, INVALID_TERMS[0])])
    assert terms.score(node("host_1")) == 0


def test_comparison_expressions_need_integer_values():
    bad = NodeSelector([term([expr("kernel", "Gt", "two")])])
    assert [str(e) for e in bad.parse_errors()] == [
        'nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "two": '
        "for 'Gt', 'Lt' operators, the value must be an integer"
    ]
    assert not bad.match(node("n", kernel="3"))


def pod_with(node_selector=None, required=None, **extra: Any) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c"}], **extra}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if required is not None:
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}
        }
    return Pod.from_dict({"kind": "Pod", "metadata": {"name": "p"}, "spec": spec})


def terms_of(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {"nodeSelectorTerms": [{"matchExpressions": list(expressions)}]}


def e(key: str, operator: str, *values: str) -> dict[str, Any]:
    data: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        data["values"] = list(values)
    return data


POD_CASES = [
    ("no selector", pod_with(), {}, "", True),
    ("missing labels", pod_with({"foo": "bar"}), {}, "", False),
    ("same labels", pod_with({"foo": "bar"}), {"foo": "bar"}, "", True),
    (
        "node labels are a superset",
        pod_with({"foo": "bar"}),
        {"foo": "bar", "baz": "blah"},
        "",
        True,
    ),
    (
        "node labels are a subset",
        pod_with({"foo": "bar", "baz": "blah"}),
        {"foo": "bar"},
        "",
        False,
    ),
    (
        "in matches",
        pod_with(required=terms_of(e("foo", "In", "bar", "value2"))),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "gt matches with zero-padded numbers",
        pod_with(required=terms_of(e("kernel-version", "Gt", "0204"))),
        {"kernel-version": "0206"},
        "",
        True,
    ),
    (
        "notin matches",
        pod_with(required=terms_of(e("mem-type", "NotIn", "DDR", "DDR2"))),
        {"mem-type": "DDR3"},
        "",
        True,
    ),
    ("exists matches", pod_with(required=terms_of(e("GPU", "Exists"))), {"GPU": "K1"}, "", True),
    (
        "values that do not match",
        pod_with(required=terms_of(e("foo", "In", "value1", "value2"))),
        {"foo": "bar"},
        "",
        False,
    ),
    ("no terms", pod_with(required={"nodeSelectorTerms": []}), {"foo": "bar"}, "", False),
    (
        "an empty term",
        pod_with(required={"nodeSelectorTerms": [{"matchExpressions": []}]}),
        {"foo": "bar"},
        "",
        False,
    ),
    ("no affinity", pod_with(affinity={}), {"foo": "bar"}, "", True),
    ("node affinity without required terms", pod_with(affinity={"nodeAffinity": {}}), {}, "", True),
    (
        "expressions are ANDed and match",
        pod_with(required=terms_of(e("GPU", "Exists"), e("GPU", "NotIn", "AMD", "INTER"))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        True,
    ),
    (
        "expressions are ANDed and one fails",
        pod_with(required=terms_of(e("GPU", "Exists"), e("GPU", "In", "AMD", "INTER"))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        False,
    ),
    (
        "terms are ORed",
        pod_with(
            required={
                "nodeSelectorTerms": [
                    {"matchExpressions": [e("foo", "In", "bar", "value2")]},
                    {"matchExpressions": [e("diffkey", "In", "wrong", "value2")]},
                ]
            }
        ),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "affinity and node selector both match",
        pod_with({"foo": "bar"}, terms_of(e("foo", "Exists"))),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "affinity matches but the node selector does not",
        pod_with({"foo": "bar"}, terms_of(e("foo", "Exists"))),
        {"foo": "barrrrrr"},
        "",
        False,
    ),
    (
        "an invalid value never matches",
        pod_with(required=terms_of(e("foo", "NotIn", "invalid value: ___@#$%^"))),
        {"foo": "bar"},
        "",
        False,
    ),
    (
        "match fields on the node name",
        pod_with(
            required={
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node_1"]}
                        ]
                    }
                ]
            }
        ),
        {},
        "node_1",
        True,
    ),
    (
        "match fields on another node name",
        pod_with(
            required={
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node_1"]}
                        ]
                    }
                ]
            }
        ),
        {},
        "node_2",
        False,
    ),
    (
        "fields fail in one term and labels match in another",
        pod_with(
            required={
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node_1"]}
                        ]
                    },
                    {"matchExpressions": [e("foo", "In", "bar")]},
                ]
            }
        ),
        {"foo": "bar"},
        "node_2",
        True,
    ),
    (
        "fields fail and labels match in the same term",
        pod_with(
            required={
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["node_1"]}
                        ],
                        "matchExpressions": [e("foo", "In", "bar")],
                    }
                ]
            }
        ),
        {"foo": "bar"},
        "node_2",
        False,
    ),
]


@pytest.mark.parametrize(
    ("pod", "labels", "node_name", "expected"),
    [c[1:] for c in POD_CASES],
    ids=[c[0] for c in POD_CASES],
)
def test_required_node_affinity_combines_node_selector_and_affinity(
    pod, labels, node_name, expected
):
    assert RequiredNodeAffinity.from_pod(pod).match(node(node_name or "n", **labels)) is expected


def test_node_selector_reads_from_a_manifest():
    selector = NodeSelector.from_dict(
        {"nodeSelectorTerms": [{"matchExpressions": [e("zone", "In", "a")]}]}
    )
    assert selector.match(node("n", zone="a"))
    assert not selector.match(node("n", zone="b"))
