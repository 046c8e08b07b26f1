"""Label selectors as text (upstream labels.Parse): what they select, and upstream's messages."""

from __future__ import annotations

import pytest

from framework.api.label_syntax import parse_selector
from framework.api.labels import SelectorError

WEB = {"app": "web", "tier": "front", "replicas": "3"}
DB = {"app": "db", "tier": "back", "canary": "yes"}


@pytest.mark.parametrize(
    ("text", "web", "db"),
    [
        ("", True, True),
        ("app=web", True, False),
        ("app==web", True, False),
        ("app!=web", False, True),
        (" app = web , tier = front ", True, False),
        ("app in (web, db)", True, True),
        ("app notin (web)", False, True),
        ("canary", False, True),
        ("!canary", True, False),
        ("replicas>2", True, False),
        ("replicas<2", False, False),
        ("tier in (front,,other)", True, False),
        ("missing=", False, False),
        ("missing!=", True, True),
    ],
    ids=[
        "nothing selects everything",
        "equals",
        "double equals",
        "not equals (a missing label is not equal)",
        "several requirements, spaces anywhere",
        "in a set",
        "not in a set",
        "exists",
        "does not exist",
        "greater than",
        "less than",
        "an empty place in a set is the empty value",
        "an empty value needs the label, empty",
        "not the empty value",
    ],
)
def test_a_selector_selects_the_labels_its_requirements_accept(text, web, db):
    selector = parse_selector(text)
    assert (selector.matches(WEB), selector.matches(DB)) == (web, db)


def test_in_and_notin_are_names_where_a_key_or_value_is_expected():
    assert parse_selector("in in (notin)").matches({"in": "notin"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("=web", "found '=', expected: !, identifier, or 'end of string'"),
        ("app=web,", "found '', expected: identifier after ','"),
        ("app=a b", "found 'b', expected: ',' or 'end of string'"),
        ("!app=web", "found '=', expected: ',' or 'end of string'"),
        (
            "app web",
            "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt",
        ),
        ("app in web", "unable to parse requirement: found 'web' expected: '('"),
        ("app in (web", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("app in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        (
            "app=-web",
            'unable to parse requirement: values[0][app]: Invalid value: "-web": a valid label '
            "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
        (
            "replicas>many",
            "unable to parse requirement: values[0]: Invalid value: \"many\": for 'Gt', 'Lt' "
            "operators, the value must be an integer",
        ),
    ],
    ids=[
        "no key",
        "a trailing comma",
        "two values",
        "a negated key with a value",
        "no operator",
        "a set without parentheses",
        "an unclosed set",
        "an operator in a set",
        "an invalid value",
        "a comparison with a word",
    ],
)
def test_a_selector_that_cannot_be_parsed_says_why_in_upstreams_words(text, message):
    with pytest.raises(SelectorError) as raised:
        parse_selector(text)
    assert str(raised.value) == message
