"""LabelSelectorPermit: the sample Permit plugin configured by a label selector and a timeout."""

from __future__ import annotations

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from playground.scheduling.label_selector_permit import (
    DEFAULT_TIMEOUT_SECONDS,
    LabelSelectorPermit,
    LabelSelectorPermitArgsError,
)
from playground.scheduling.plugins import PLUGIN_ARGS, playground_registry
from playground.workspaces.services import checked_configuration
from tests.framework.builders import make_pod
from tests.playground.scheduling.test_permit_multi import TWO_PERMIT_PLUGINS

IN_PAYMENTS = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["payments"]}]}


def permit(args, labels):
    pod = make_pod()
    pod.metadata.labels = labels
    return LabelSelectorPermit(args, None).permit(CycleState(), pod, "n1")


def test_a_matching_pod_waits_for_the_timeout():
    status, timeout = permit({"selector": IN_PAYMENTS, "timeoutSeconds": 42}, {"team": "payments"})
    assert status.code == Code.WAIT and timeout == 42.0
    assert "LabelSelectorPermit" in status.message()


def test_any_other_pod_is_allowed_at_once():
    status, timeout = permit({"selector": IN_PAYMENTS, "timeoutSeconds": 42}, {"team": "web"})
    assert status is None and timeout == 0.0


def test_without_args_it_holds_pods_labelled_permit_hold():
    assert permit(None, {"permit": "hold"})[0].code == Code.WAIT
    assert permit(None, {"permit": "hold"})[1] == DEFAULT_TIMEOUT_SECONDS
    assert permit(None, {})[0] is None


def test_an_empty_selector_holds_every_pod():
    assert permit({"selector": {}}, {})[0].code == Code.WAIT


def test_it_is_registered_beside_wait_for_approval_with_its_defaults():
    assert "LabelSelectorPermit" in playground_registry()
    assert PLUGIN_ARGS["LabelSelectorPermit"]["timeoutSeconds"] == DEFAULT_TIMEOUT_SECONDS


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"timeoutSeconds": 0}, "args.timeoutSeconds: Invalid value: 0: must be > 0"),
        ({"timeoutSeconds": -5}, "args.timeoutSeconds: Invalid value: -5: must be > 0"),
        (
            {"timeoutSeconds": "soon"},
            'args.timeoutSeconds: Invalid value: "soon": must be a number',
        ),
        ({"timeoutSeconds": True}, "args.timeoutSeconds: Invalid value: true: must be a number"),
        ({"timeoutSeconds": 901}, "args.timeoutSeconds: Invalid value: 901: must be at most 900"),
        ({"selector": "team=payments"}, 'args.selector: Invalid value: "team=payments": must be'),
        (
            {"selector": {"matchExpressions": [{"key": "team", "operator": "Near"}]}},
            'args.selector.matchExpressions[0].operator: Invalid value: "Near"',
        ),
        (
            {"selector": {"matchExpressions": [{"key": "team", "operator": "In"}]}},
            "args.selector.matchExpressions[0].values: Required value",
        ),
        ({"selector": {"matchLabels": {"team": "a b"}}}, "args.selector.matchLabels: Invalid"),
        ({"timeout": 5}, 'args.timeout: Invalid value: "timeout": unknown field'),
    ],
)
def test_bad_args_are_refused_naming_the_field(args, message):
    with pytest.raises(LabelSelectorPermitArgsError) as raised:
        LabelSelectorPermit(args, None)
    assert str(raised.value).startswith("LabelSelectorPermit args: ")
    assert message in str(raised.value)


def test_every_problem_is_listed_at_once():
    with pytest.raises(LabelSelectorPermitArgsError) as raised:
        LabelSelectorPermit({"selector": "x", "timeoutSeconds": 0}, None)
    assert [error.field for error in raised.value.errors] == [
        "args.selector",
        "args.timeoutSeconds",
    ]


def test_the_configuration_check_names_the_profile_and_the_plugin():
    text = TWO_PERMIT_PLUGINS.replace("timeoutSeconds: 10", "timeoutSeconds: 0")
    [problem] = checked_configuration(text).problems
    assert str(problem) == (
        "profiles[0]: creating profile for scheduler name default-scheduler: initializing "
        'plugin "LabelSelectorPermit": LabelSelectorPermit args: args.timeoutSeconds: '
        "Invalid value: 0: must be > 0"
    )
