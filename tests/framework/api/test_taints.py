"""Taints and tolerations; cases from upstream component-helpers helpers_test.go and
core/v1 toleration semantics."""

from __future__ import annotations

import pytest

from framework.api.taints import (
    Taint,
    Toleration,
    do_not_schedule_taints_filter,
    find_matching_untolerated_taint,
    tolerations_tolerate_taint,
)

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
SLA = "node.kubernetes.io/sla"

TOLERATES = [
    (
        "equal key, value and effect",
        Toleration("k", "Equal", "v", NO_SCHEDULE),
        Taint("k", "v", NO_SCHEDULE),
        True,
    ),
    ("an empty operator means equal", Toleration("k", "", "v"), Taint("k", "v", NO_SCHEDULE), True),
    (
        "equal with another value",
        Toleration("k", "Equal", "v"),
        Taint("k", "w", NO_SCHEDULE),
        False,
    ),
    (
        "exists ignores the value",
        Toleration("k", "Exists"),
        Taint("k", "anything", NO_EXECUTE),
        True,
    ),
    (
        "an empty key with exists tolerates everything",
        Toleration(operator="Exists"),
        Taint("any", "v", NO_EXECUTE),
        True,
    ),
    (
        "an empty effect matches every effect",
        Toleration("k", "Exists"),
        Taint("k", "", "PreferNoSchedule"),
        True,
    ),
    (
        "another effect does not match",
        Toleration("k", "Exists", effect=NO_SCHEDULE),
        Taint("k", "", NO_EXECUTE),
        False,
    ),
    (
        "another key does not match",
        Toleration("k", "Exists"),
        Taint("other", "", NO_SCHEDULE),
        False,
    ),
    (
        "an unknown operator matches nothing",
        Toleration("k", "Matches", "v"),
        Taint("k", "v", NO_SCHEDULE),
        False,
    ),
    (
        "comparison operators are off by default",
        Toleration(SLA, "Gt", "750"),
        Taint(SLA, "950", NO_SCHEDULE),
        False,
    ),
]


@pytest.mark.parametrize(
    ("toleration", "taint", "expected"), [c[1:] for c in TOLERATES], ids=[c[0] for c in TOLERATES]
)
def test_toleration_tolerates_taint(toleration, taint, expected):
    assert toleration.tolerates(taint) is expected


COMPARISONS = [
    ("gt with the taint value below the threshold", "Gt", "950", "800", False),
    ("gt with the taint value above the threshold", "Gt", "750", "950", True),
    ("lt with the taint value above the threshold", "Lt", "800", "950", False),
    ("lt with the taint value below the threshold", "Lt", "800", "700", True),
    ("a non-numeric taint value", "Gt", "950", "high", False),
    ("a toleration value with a leading zero", "Gt", "0750", "950", False),
    ("a taint value with a plus sign", "Gt", "750", "+950", False),
    ("negative numbers compare", "Lt", "-1", "-5", True),
]


@pytest.mark.parametrize(
    ("operator", "toleration_value", "taint_value", "expected"),
    [c[1:] for c in COMPARISONS],
    ids=[c[0] for c in COMPARISONS],
)
def test_comparison_operators_when_enabled(operator, toleration_value, taint_value, expected):
    toleration = Toleration(SLA, operator, toleration_value, NO_SCHEDULE)
    taint = Taint(SLA, taint_value, NO_SCHEDULE)
    assert toleration.tolerates(taint, enable_comparison_operators=True) is expected


UNTOLERATED = [
    ("empty tolerations tolerate empty taints", [], [], lambda t: True, None),
    (
        "non-empty tolerations tolerate empty taints",
        [Toleration("foo", "Exists", effect=NO_SCHEDULE)],
        [],
        lambda t: True,
        None,
    ),
    (
        "tolerations match all taints",
        [Toleration("foo", "Exists", effect=NO_SCHEDULE)],
        [Taint("foo", effect=NO_SCHEDULE)],
        lambda t: True,
        None,
    ),
    (
        "no taint passes the filter",
        [Toleration("foo", "Exists", effect=NO_SCHEDULE)],
        [Taint("bar", effect=NO_SCHEDULE)],
        lambda t: False,
        None,
    ),
    (
        "without a filter every taint counts",
        [Toleration("foo", "Exists", effect=NO_SCHEDULE)],
        [Taint("bar", effect=NO_SCHEDULE)],
        None,
        Taint("bar", effect=NO_SCHEDULE),
    ),
    (
        "only filtered taints need tolerating",
        [Toleration("foo", "Exists", effect=NO_EXECUTE)],
        [Taint("foo", effect=NO_EXECUTE), Taint("bar", effect=NO_SCHEDULE)],
        lambda t: t.effect == NO_EXECUTE,
        None,
    ),
    (
        "the first untolerated taint is returned",
        [],
        [
            Taint("a", effect="PreferNoSchedule"),
            Taint("b", effect=NO_SCHEDULE),
            Taint("c", effect=NO_EXECUTE),
        ],
        do_not_schedule_taints_filter,
        Taint("b", effect=NO_SCHEDULE),
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "taints", "inclusion_filter", "expected"),
    [c[1:] for c in UNTOLERATED],
    ids=[c[0] for c in UNTOLERATED],
)
def test_find_matching_untolerated_taint(tolerations, taints, inclusion_filter, expected):
    assert find_matching_untolerated_taint(taints, tolerations, inclusion_filter) == expected


def test_tolerations_tolerate_a_taint_if_any_does():
    taint = Taint("k", "v", NO_SCHEDULE)
    assert tolerations_tolerate_taint([Toleration("x", "Exists"), Toleration("k", "Exists")], taint)
    assert not tolerations_tolerate_taint([Toleration("x", "Exists")], taint)


@pytest.mark.parametrize(
    ("taint", "text"),
    [
        (Taint("k"), "k"),
        (Taint("k", "v"), "k=v:"),
        (Taint("k", effect=NO_SCHEDULE), "k:NoSchedule"),
        (Taint("k", "v", NO_SCHEDULE), "k=v:NoSchedule"),
    ],
    ids=["key only", "key and value", "key and effect", "all parts"],
)
def test_taints_print_like_upstream(taint, text):
    assert taint.to_string() == text


def test_taints_match_by_key_and_effect():
    assert Taint("k", "v", NO_SCHEDULE).match_taint(Taint("k", "other", NO_SCHEDULE))
    assert not Taint("k", "v", NO_SCHEDULE).match_taint(Taint("k", "v", NO_EXECUTE))
