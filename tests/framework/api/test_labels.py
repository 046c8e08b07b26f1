"""Label selectors; cases from upstream labels/selector_test.go and meta/v1 helpers."""

from __future__ import annotations

import pytest

from framework.api.labels import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
    LabelSelector,
    LabelSelectorRequirement,
    Requirement,
    Selector,
    SelectorError,
    everything,
    label_selector_as_selector,
    new_requirement,
    nothing,
    selector_from_set,
)

NAME_PART_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

VALID_REQUIREMENTS = [
    ("x3", IN, ["foo"]),
    ("x4", NOT_IN, ["foo"]),
    ("x6", EXISTS, []),
    ("x7", DOES_NOT_EXIST, []),
    ("x11", GREATER_THAN, ["1"]),
    ("x12", LESS_THAN, ["6"]),
    ("example.com/x", EQUALS, [""]),
]


@pytest.mark.parametrize(
    ("key", "op", "values"), VALID_REQUIREMENTS, ids=[c[0] for c in VALID_REQUIREMENTS]
)
def test_valid_requirements_are_built(key, op, values):
    assert new_requirement(key, op, values) == Requirement(key, op, tuple(values))


INVALID_REQUIREMENTS = [
    (
        "in without values",
        "x1",
        IN,
        [],
        "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ),
    (
        "equals with two values",
        "x5",
        EQUALS,
        ["bar", "foo"],
        'values: Invalid value: ["bar","foo"]: exact-match compatibility requires one single value',
    ),
    (
        "exists with a value",
        "x8",
        EXISTS,
        ["foo"],
        'values: Invalid value: ["foo"]: values set must be empty for exists and does not exist',
    ),
    (
        "gt without a value",
        "x13",
        GREATER_THAN,
        [],
        "values: Invalid value: null: for 'Gt', 'Lt' operators, exactly one value is required",
    ),
    (
        "gt with a word",
        "x14",
        GREATER_THAN,
        ["bar"],
        "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    (
        "a key too long for a DNS prefix-less name",
        "a" * 64,
        EXISTS,
        [],
        f'key: Invalid value: "{"a" * 64}": name part must be no more than 63 bytes',
    ),
    (
        "a value with a space",
        "x17",
        EQUALS,
        ["a b"],
        f'values[0][x17]: Invalid value: "a b": {LABEL_VALUE_MESSAGE}',
    ),
    (
        "a value that is too long",
        "x16",
        EQUALS,
        ["a" * 64],
        f'values[0][x16]: Invalid value: "{"a" * 64}": must be no more than 63 bytes',
    ),
    (
        "a key with a space",
        "invalid key",
        IN,
        ["v"],
        f'key: Invalid value: "invalid key": {NAME_PART_MESSAGE}',
    ),
]


@pytest.mark.parametrize(
    ("key", "op", "values", "message"),
    [c[1:] for c in INVALID_REQUIREMENTS],
    ids=[c[0] for c in INVALID_REQUIREMENTS],
)
def test_invalid_requirements_fail_with_upstream_messages(key, op, values, message):
    with pytest.raises(SelectorError) as excinfo:
        new_requirement(key, op, values)
    assert str(excinfo.value) == message


def test_several_problems_are_joined_in_brackets():
    with pytest.raises(SelectorError) as excinfo:
        new_requirement("bad key", IN, [])
    assert str(excinfo.value) == (
        f'[key: Invalid value: "bad key": {NAME_PART_MESSAGE}, '
        "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]"
    )
    assert len(excinfo.value.errors) == 2


def test_a_prefix_that_is_not_a_dns_subdomain_is_reported():
    with pytest.raises(SelectorError, match="prefix part a lowercase RFC 1123 subdomain"):
        new_requirement("Example.com/x", EXISTS, [])


MATCHING = [
    ("in matches a listed value", Requirement("x", IN, ("a", "b")), {"x": "b"}, True),
    ("in needs the key", Requirement("x", IN, ("a",)), {}, False),
    ("notin matches an absent key", Requirement("x", NOT_IN, ("a",)), {}, True),
    ("notin rejects a listed value", Requirement("x", NOT_IN, ("a",)), {"x": "a"}, False),
    ("equals", Requirement("x", EQUALS, ("a",)), {"x": "a"}, True),
    ("double equals", Requirement("x", DOUBLE_EQUALS, ("a",)), {"x": "b"}, False),
    ("not equals on an absent key", Requirement("x", NOT_EQUALS, ("a",)), {}, True),
    ("exists", Requirement("x", EXISTS), {"x": ""}, True),
    ("does not exist", Requirement("x", DOES_NOT_EXIST), {"x": ""}, False),
    ("greater than", Requirement("x", GREATER_THAN, ("1",)), {"x": "2"}, True),
    (
        "greater than with leading zeros",
        Requirement("x", GREATER_THAN, ("0204",)),
        {"x": "0206"},
        True,
    ),
    ("greater than a larger value", Requirement("x", GREATER_THAN, ("3",)), {"x": "2"}, False),
    ("less than", Requirement("x", LESS_THAN, ("3",)), {"x": "2"}, True),
    ("a label that is not a number", Requirement("x", LESS_THAN, ("3",)), {"x": "two"}, False),
    ("a comparison without the label", Requirement("x", LESS_THAN, ("3",)), {}, False),
]


@pytest.mark.parametrize(
    ("requirement", "labels", "expected"), [c[1:] for c in MATCHING], ids=[c[0] for c in MATCHING]
)
def test_requirement_matching(requirement, labels, expected):
    assert requirement.matches(labels) is expected


def test_a_selector_needs_every_requirement():
    selector = Selector([Requirement("a", EXISTS), Requirement("b", IN, ("1",))])
    assert selector.matches({"a": "x", "b": "1"})
    assert not selector.matches({"a": "x", "b": "2"})


@pytest.mark.parametrize(
    ("requirements", "text"),
    [
        (
            [
                Requirement("x", IN, ("def", "abc")),
                Requirement("y", NOT_IN, ("jkl",)),
                Requirement("z", EXISTS),
            ],
            "x in (abc,def),y notin (jkl),z",
        ),
        (
            [
                Requirement("z", DOES_NOT_EXIST),
                Requirement("x", NOT_IN, ("abc", "def")),
                Requirement("y", NOT_EQUALS, ("jkl",)),
            ],
            "x notin (abc,def),y!=jkl,!z",
        ),
        (
            [
                Requirement("x", EQUALS, ("abc",)),
                Requirement("y", DOUBLE_EQUALS, ("jkl",)),
                Requirement("z", NOT_EQUALS, ("a",)),
                Requirement("z", EXISTS),
            ],
            "x=abc,y==jkl,z!=a,z",
        ),
        (
            [Requirement("x", GREATER_THAN, ("2",)), Requirement("y", LESS_THAN, ("8",))],
            "x>2,y<8",
        ),
    ],
    ids=["set operators", "negations", "equality operators", "comparisons"],
)
def test_selectors_print_like_upstream(requirements, text):
    assert str(Selector(requirements)) == text


def test_no_selector_matches_nothing_and_an_empty_one_everything():
    assert not label_selector_as_selector(None).matches({})
    assert label_selector_as_selector(LabelSelector()).matches({"any": "thing"})
    assert label_selector_as_selector(LabelSelector()).empty()
    assert nothing().matches_nothing()
    assert not nothing().empty()


def test_a_label_selector_combines_labels_and_expressions():
    selector = LabelSelector.from_dict(
        {
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["front", "edge"]},
                {"key": "canary", "operator": "DoesNotExist"},
            ],
        }
    )
    assert selector.matches({"app": "web", "tier": "edge"})
    assert not selector.matches({"app": "web", "tier": "edge", "canary": "yes"})
    assert not selector.matches({"app": "db", "tier": "edge"})
    assert str(selector.as_selector()) == "app=web,!canary,tier in (edge,front)"


@pytest.mark.parametrize(
    ("operator", "message"),
    [
        ("Gt", '"Gt" is not a valid label selector operator'),
        ("in", '"in" is not a valid label selector operator'),
        ("", '"" is not a valid label selector operator'),
    ],
    ids=[
        "comparison operators are for node selectors only",
        "operators are case sensitive",
        "an empty operator",
    ],
)
def test_label_selectors_refuse_other_operators(operator, message):
    selector = LabelSelector(match_expressions=[LabelSelectorRequirement("a", operator, ("1",))])
    with pytest.raises(SelectorError) as excinfo:
        selector.matches({"a": "2"})
    assert str(excinfo.value) == message


def test_label_selector_values_are_validated():
    selector = LabelSelector(match_labels={"app": "not valid"})
    with pytest.raises(SelectorError, match=r'values\[0\]\[app\]: Invalid value: "not valid"'):
        label_selector_as_selector(selector)


def test_selector_from_set_matches_exactly_and_empty_matches_everything():
    selector = selector_from_set({"b": "2", "a": "1"})
    assert str(selector) == "a=1,b=2"
    assert selector.matches({"a": "1", "b": "2", "c": "3"})
    assert not selector.matches({"a": "1"})
    assert selector_from_set({}) is everything()
    assert selector_from_set(None).matches({})


@pytest.mark.parametrize(
    ("selector", "key", "value"),
    [
        (Selector([Requirement("k", EQUALS, ("v",))]), "k", "v"),
        (Selector([Requirement("k", IN, ("v",))]), "k", "v"),
        (Selector([Requirement("k", IN, ("v", "w"))]), "k", None),
        (Selector([Requirement("k", NOT_IN, ("v",))]), "k", None),
        (Selector([Requirement("k", EQUALS, ("v",))]), "other", None),
    ],
    ids=["equals", "in with one value", "in with two values", "notin", "another key"],
)
def test_requires_exact_match(selector, key, value):
    assert selector.requires_exact_match(key) == value
