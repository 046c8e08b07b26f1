"""``startup_errors``: what kube-scheduler refuses at start-up, decided in one place."""

from __future__ import annotations

import copy

import pytest

from framework.config.defaults import set_defaults
from framework.config.load import load_config
from framework.config.startup import startup_errors
from framework.plugins.registry import in_tree_registry
from tests.framework.config.startup_cases import ACCEPTED, HEADER, PROFILE, REFUSALS


def errors_of(body: str) -> list[str]:
    cfg = set_defaults(load_config((HEADER + body).encode()))
    return [str(error) for error in startup_errors(cfg, in_tree_registry())]


@pytest.mark.parametrize(
    ("body", "lines"), [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS]
)
def test_it_refuses_what_kube_scheduler_refuses_in_its_words(body, lines):
    assert errors_of(body) == lines


@pytest.mark.parametrize("body", [case[1] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED])
def test_it_starts_with_what_kube_scheduler_starts_with(body):
    assert errors_of(body) == []


def test_a_valid_configuration_has_no_errors():
    assert errors_of(PROFILE) == []
    assert errors_of("") == []


def test_every_profile_that_cannot_be_built_is_listed_with_its_place():
    body = (
        "profiles:\n"
        "- schedulerName: a\n  plugins:\n    filter:\n      enabled: [{name: Nope}]\n"
        "- schedulerName: b\n"
        "- schedulerName: c\n  plugins:\n    bind:\n      disabled: [{name: '*'}]\n"
    )
    cfg = set_defaults(load_config((HEADER + body).encode()))
    errors = startup_errors(cfg, in_tree_registry())
    assert [(e.field, e.detail) for e in errors] == [
        (
            "profiles[0]",
            'creating profile for scheduler name a: FilterPlugin "Nope" does not exist',
        ),
        (
            "profiles[2]",
            "creating profile for scheduler name c: at least one bind plugin is needed for "
            'profile with scheduler name "c"',
        ),
    ]


def test_validation_errors_come_alone_as_kube_scheduler_stops_at_them():
    body = "parallelism: 0\n" + REFUSALS[0][1]
    assert errors_of(body) == [
        "parallelism: Invalid value: 0: should be an integer value greater than zero"
    ]


def test_extenders_that_cannot_be_built_are_named_and_the_configuration_is_left_as_it_was():
    body = (
        "extenders:\n- urlPrefix: https://127.0.0.1:1/\n  filterVerb: filter\n"
        "  managedResources:\n  - name: example.com/foo\n    ignoredByScheduler: true\n"
        "  tlsConfig:\n    insecure: true\n    caData: Zm9v\n"
    )
    cfg = set_defaults(load_config((HEADER + body).encode()))
    before = copy.deepcopy(cfg)
    errors = startup_errors(cfg, in_tree_registry())
    assert [str(e) for e in errors] == [
        "couldn't build extenders: specifying a root certificates file with the insecure flag "
        "is not allowed"
    ]
    assert cfg == before


def test_building_leaves_the_configuration_as_it_was():
    body = (
        "extenders:\n- urlPrefix: http://127.0.0.1:1/\n  filterVerb: filter\n"
        "  managedResources:\n  - name: example.com/foo\n    ignoredByScheduler: true\n"
    )
    cfg = set_defaults(load_config((HEADER + body).encode()))
    before = copy.deepcopy(cfg)
    assert startup_errors(cfg, in_tree_registry()) == []
    assert cfg == before, "NodeResourcesFit's ignoredResources are the scheduler's business"
