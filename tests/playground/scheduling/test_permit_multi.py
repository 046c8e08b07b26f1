"""A pod waiting on two Permit plugins (WaitForApproval and LabelSelectorPermit), driven
through the service tick by tick: each plugin's own pending entry and timer, and every
decision taken once."""

from __future__ import annotations

import pytest

from framework.runtime.waiting_pods import WaitingPod
from framework.util.clock import FakeClock
from playground.scheduling.permit_decisions import REMEMBERED_WAITS, PermitDecisions
from playground.workspaces.models import SchedulerStatus, SchedulingAttempt
from tests.framework.builders import make_pod
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import command, configure, settle

pytestmark = pytest.mark.django_db

TWO_PERMIT_PLUGINS = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    permit:
      enabled:
      - name: WaitForApproval
      - name: LabelSelectorPermit
  pluginConfig:
  - name: WaitForApproval
    args: {timeoutSeconds: 30}
  - name: LabelSelectorPermit
    args:
      selector: {matchLabels: {team: payments}}
      timeoutSeconds: 10
"""
BOTH = ["WaitForApproval", "LabelSelectorPermit"]


def payments_pod(name: str) -> dict:
    manifest = pod_manifest(name)
    manifest["metadata"]["labels"] = {"team": "payments"}
    return manifest


@pytest.fixture
def service(make_service, workspace, cluster, binding_tasks):
    """A service whose profile runs both plugins, a payments pod and another pod waiting."""
    configure(workspace, TWO_PERMIT_PLUGINS)
    cluster.add(node_manifest("n1"))
    cluster.add(payments_pod("pay"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    return service


def waiting(workspace):
    entries = SchedulerStatus.objects.get(workspace=workspace).waiting_pods
    return {entry["pod"]: entry for entry in entries}


def decide(service, workspace, kind, **payload):
    """Executes one command on the next tick; its outcome."""
    sent = command(workspace, kind, **payload)
    service.tick()
    sent.refresh_from_db()
    return sent.outcome


def test_a_matching_pod_waits_on_both_plugins_each_with_its_own_timeout(service, workspace):
    listed = waiting(workspace)
    assert listed["default/pay"]["pendingPlugins"] == BOTH
    assert listed["default/pay"]["secondsLeft"] == {
        "WaitForApproval": 30.0,
        "LabelSelectorPermit": 10.0,
    }
    # LabelSelectorPermit lets a pod its selector does not match go on at once.
    assert listed["default/web"]["pendingPlugins"] == ["WaitForApproval"]


def test_allowing_one_plugin_keeps_the_pod_waiting_and_allowing_both_binds_it(
    service, workspace, cluster, binding_tasks
):
    outcome = decide(service, workspace, "allow", uid="uid-pay", plugin="WaitForApproval")
    assert outcome == "allowed by WaitForApproval; still waiting for LabelSelectorPermit"
    assert waiting(workspace)["default/pay"]["pendingPlugins"] == ["LabelSelectorPermit"]
    assert cluster.get("Pod", "pay", "default").spec.node_name == ""

    outcome = decide(service, workspace, "allow", uid="uid-pay", plugin="LabelSelectorPermit")
    settle(service, binding_tasks)
    assert outcome == "allowed by LabelSelectorPermit"
    assert cluster.get("Pod", "pay", "default").spec.node_name == "n1"
    assert "default/pay" not in waiting(workspace)


def test_one_plugin_rejecting_rejects_the_pod(service, workspace, cluster):
    decide(service, workspace, "allow", uid="uid-pay", plugin="WaitForApproval")
    outcome = decide(
        service, workspace, "reject", uid="uid-pay", plugin="LabelSelectorPermit", message="no"
    )
    assert outcome == "rejected by LabelSelectorPermit"
    attempt = SchedulingAttempt.objects.filter(pod_key="default/pay").latest("id")
    assert (attempt.result, attempt.message) == ("Unschedulable", "0/1 nodes are available: 1 no.")
    assert cluster.get("Pod", "pay", "default").spec.node_name == ""


def test_each_plugin_times_out_on_its_own_timer(service, workspace, clock):
    decide(service, workspace, "allow", uid="uid-pay", plugin="LabelSelectorPermit")
    clock.step(11)  # past LabelSelectorPermit's 10 s, which was allowed: nothing happens
    service.tick()
    assert waiting(workspace)["default/pay"]["secondsLeft"] == {"WaitForApproval": 19.0}
    clock.step(20)  # past WaitForApproval's 30 s
    service.tick()
    attempt = SchedulingAttempt.objects.filter(pod_key="default/pay").latest("id")
    assert attempt.message == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
        "WaitForApproval."
    )


def test_the_shorter_timeout_rejects_first(service, workspace, clock):
    clock.step(10)
    service.tick()
    attempt = SchedulingAttempt.objects.filter(pod_key="default/pay").latest("id")
    assert "after waiting 10s at plugin LabelSelectorPermit" in attempt.message
    assert list(waiting(workspace)) == ["default/web"]  # its 30 s still run


# ----------------------------------------------------------------------------------------------
# Decided once: the second of two clicks is told what the first did


@pytest.mark.parametrize(
    ("first", "second", "told"),
    [
        (
            {"kind": "allow", "plugin": "WaitForApproval"},
            {"kind": "reject", "plugin": "WaitForApproval"},
            "already decided: allowed by WaitForApproval",
        ),
        (
            {"kind": "reject", "plugin": "WaitForApproval", "message": "no"},
            {"kind": "allow", "plugin": "WaitForApproval"},
            "already decided: rejected by WaitForApproval: no",
        ),
        (
            {"kind": "reject", "message": "no"},
            {"kind": "reject", "message": "again"},
            "already decided: rejected by WaitForApproval: no",
        ),
        (
            {"kind": "allow"},
            {"kind": "reject"},
            "already decided: allowed by WaitForApproval, LabelSelectorPermit",
        ),
        (
            {"kind": "allow", "plugin": "LabelSelectorPermit"},
            {"kind": "allow", "plugin": "LabelSelectorPermit"},
            "already decided: allowed by LabelSelectorPermit",
        ),
    ],
    ids=[
        "allow then reject",
        "reject then allow",
        "reject twice",
        "allow all then reject",
        "allow twice",
    ],
)
def test_two_decisions_in_one_tick_have_one_outcome(
    service, workspace, cluster, first, second, told
):
    """Two browsers' commands, stored before the service's next tick, executed in order."""
    commands = [
        command(workspace, spec.pop("kind"), uid="uid-pay", **spec) for spec in (first, second)
    ]
    service.tick()
    for sent in commands:
        sent.refresh_from_db()
    assert not commands[0].outcome.startswith("already decided")
    assert commands[1].outcome == told


def test_a_click_after_the_pod_left_the_waiting_pods_says_what_ended_the_wait(
    service, workspace, cluster, binding_tasks
):
    decide(service, workspace, "allow", uid="uid-pay")
    settle(service, binding_tasks)
    assert cluster.get("Pod", "pay", "default").spec.node_name == "n1"
    outcome = decide(service, workspace, "reject", uid="uid-pay")
    assert outcome == "already decided: allowed by WaitForApproval, LabelSelectorPermit"


def test_a_pod_nobody_clicked_for_is_not_said_to_be_decided(service, workspace):
    assert decide(service, workspace, "allow", uid="uid-gone") == "no such pod waits at Permit"


def test_a_new_wait_of_the_same_pod_is_decided_afresh():
    """A pod rejected and waiting again (a later attempt) is a new wait: a click for it acts."""
    first, second = waiting_on(["A"]), waiting_on(["A"])
    current = {"u": first}
    decisions = PermitDecisions(current.get)
    assert decisions.reject("u", "A", "no") == "rejected by A"
    current["u"] = second
    assert decisions.allow("u", "A") == "allowed by A"
    assert decisions.allow("u", "A") == "already decided: allowed by A"


def test_finished_waits_are_forgotten_oldest_first():
    current = {}
    decisions = PermitDecisions(current.get)
    for index in range(REMEMBERED_WAITS + 1):
        current[f"u{index}"] = waiting_on(["A"])
        decisions.allow(f"u{index}", "A")
    current.clear()
    assert decisions.allow("u0", "A") == "no such pod waits at Permit"
    assert decisions.allow("u1", "A") == "already decided: allowed by A"


def waiting_on(plugins):
    """An engine WaitingPod, as the service's framework would hold one."""
    return WaitingPod(make_pod(), {plugin: 30 for plugin in plugins}, FakeClock())


def test_a_decided_wait_still_in_the_map_is_not_decided_again():
    """Between the outcome and the binding cycle taking the pod out of the waiting pods, a
    second click must not act on it either."""
    current = {"u": waiting_on(["A", "B"])}
    decisions = PermitDecisions(current.get)
    assert decisions.reject("u", "A", "no") == "rejected by A"
    assert decisions.allow("u", "B") == "already decided: rejected by A: no"
    assert decisions.reject("u", "B", "again") == "already decided: rejected by A: no"
