"""WaitForApproval: the permit plugin that waits for a person, and the playground's registry."""

from __future__ import annotations

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from playground.scheduling.plugins import (
    DEFAULT_APPROVAL_TIMEOUT_SECONDS,
    WAIT_FOR_APPROVAL,
    WaitForApproval,
    playground_registry,
)


def test_every_pod_waits_for_the_configured_time():
    status, timeout = WaitForApproval({"timeoutSeconds": 42}, None).permit(CycleState(), None, "n1")
    assert (status.code, timeout) == (Code.WAIT, 42.0)


def test_without_args_it_waits_five_minutes():
    _, timeout = WaitForApproval(None, None).permit(CycleState(), None, "n1")
    assert timeout == DEFAULT_APPROVAL_TIMEOUT_SECONDS == 300


@pytest.mark.parametrize(
    "timeout", [0, -1, "soon", True], ids=["zero", "negative", "a string", "a boolean"]
)
def test_a_timeout_that_is_no_positive_number_is_refused(timeout):
    with pytest.raises(ValueError, match="timeoutSeconds: Invalid value"):
        WaitForApproval({"timeoutSeconds": timeout}, None)


def test_the_registry_has_the_in_tree_plugins_and_wait_for_approval():
    registry = playground_registry()
    assert WAIT_FOR_APPROVAL in registry
    assert "DefaultBinder" in registry and "NodeResourcesFit" in registry
