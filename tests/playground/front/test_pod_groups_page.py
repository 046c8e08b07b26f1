"""The PodGroups page and a group's page: each group's policy, its members and where each one
stands, the quorum, the PodGroupScheduled condition, and what the group's cycle tried."""

from __future__ import annotations

import pytest

from playground.workspaces.models import (
    SchedulerConfiguration,
    SchedulerStatus,
    SchedulingAttempt,
)
from tests.playground.front.rows import node, pod, store

GATES = "GenericWorkload=true,GangScheduling=true"


def pod_group(name: str, min_count: int | None = None, **status) -> dict:
    """A gang of ``min_count`` (a basic group without one)."""
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": policy},
        "status": status,
    }


def member(name: str, group: str, **spec) -> dict:
    return pod(name, schedulingGroup={"podGroupName": group}, **spec)


def condition(status: str, reason: str, message: str = "") -> dict:
    return {
        "conditions": [
            {"type": "PodGroupScheduled", "status": status, "reason": reason, "message": message}
        ]
    }


@pytest.fixture
def gang(workspace):
    """trainer: a gang of 4, one member bound, two waiting at Permit, one held at PreEnqueue."""
    store(workspace, pod_group("trainer", 4))
    store(workspace, member("trainer-0", "trainer", nodeName="n1"))
    for name in ("trainer-1", "trainer-2", "trainer-3"):
        store(workspace, member(name, "trainer"))
    store(workspace, pod("loner"))
    waiting = [
        {
            "pod": f"default/trainer-{i}",
            "uid": f"uid-trainer-{i}",
            "node": f"n{i}",
            "pendingPlugins": ["GangScheduling"],
            "secondsLeft": {"GangScheduling": 298.4},
        }
        for i in (1, 2)
    ]
    gated = [{"pod": "default/trainer-3", "uid": "uid-trainer-3", "plugins": ["GangScheduling"]}]
    SchedulerStatus.objects.create(
        workspace=workspace, queue={"waiting": waiting, "gated": gated}, waiting_pods=waiting
    )


LINK = 'href="/w/lab/pod-groups/"'


def test_the_navigation_leads_to_the_pod_groups_of_a_workspace_that_has_some(logged_in, workspace):
    assert LINK not in logged_in.get("/w/lab/").content.decode()
    store(workspace, pod_group("g", 2))
    assert LINK in logged_in.get("/w/lab/").content.decode()


@pytest.mark.parametrize(("gates", "offered"), [(GATES, True), ("GenericWorkload=false", False)])
def test_the_navigation_leads_to_the_pod_groups_while_the_scheduler_schedules_groups(
    logged_in, workspace, gates, offered
):
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text="", feature_gates=gates
    )
    assert (LINK in logged_in.get("/w/lab/").content.decode()) == offered


def test_a_gang_shows_its_policy_members_and_quorum(logged_in, gang):
    content = logged_in.get("/w/lab/pod-groups/").content.decode()

    assert '<a href="/w/lab/pod-groups/default/trainer/">default/trainer</a>' in content
    assert '<span class="badge policy">gang</span> minCount <strong>4</strong>' in content
    assert "3 of 4 placed, waiting for 1" in content
    assert "held at PreEnqueue by GangScheduling" in content
    assert "waiting at Permit for the quorum, 4:58 left of 5:00" in content
    assert content.count(">waiting at Permit</span>") == 2
    assert ">bound</span>" in content
    assert "loner" not in content  # a pod outside any group


def test_a_group_shows_its_condition(logged_in, workspace):
    message = "pod group is unschedulable"
    store(workspace, pod_group("g", 2, **condition("False", "Unschedulable", message)))
    content = logged_in.get("/w/lab/pod-groups/").content.decode()
    assert '<span class="badge Unschedulable">False</span>' in content
    assert "<strong>Unschedulable</strong>" in content
    assert f'<span class="message">{message}</span>' in content
    assert "0 of 2 placed, waiting for 2" in content


def test_a_basic_group_counts_every_member(logged_in, workspace):
    store(workspace, pod_group("web", **condition("True", "Scheduled")))
    store(workspace, member("web-0", "web", nodeName="n1"))
    store(workspace, member("web-1", "web"))
    content = logged_in.get("/w/lab/pod-groups/").content.decode()
    assert '<span class="badge policy">basic</span> · 2 members' in content
    assert "1 of 2 placed, waiting for 1" in content
    assert '<span class="badge Scheduled">True</span>' in content


def test_without_groups_the_page_says_how_to_have_some(logged_in, workspace):
    content = logged_in.get("/w/lab/pod-groups/").content.decode()
    assert "No PodGroup in this workspace" in content
    assert "GenericWorkload=true,GangScheduling=true" in content


def test_an_htmx_request_gets_the_fragment(htmx, gang):
    content = htmx.get("/w/lab/pod-groups/").content.decode()
    assert content.startswith('<div id="pod-groups">')


def test_a_groups_page_shows_each_members_latest_attempt_and_why_the_group_failed(
    logged_in, workspace
):
    store(workspace, pod_group("g", 2, **condition("False", "Unschedulable", "pod group is")))
    store(workspace, member("g-0", "g"))
    store(workspace, member("g-1", "g"))
    fits_nowhere = "0/2 nodes are available: 2 Insufficient cpu."
    gang_message = "pod group is unschedulable, waiting for minCount pods from a gang"
    attempt(workspace, "g-0", 1, "Unschedulable", "old message")
    attempt(workspace, "g-0", 2, "Unschedulable", gang_message)
    attempt(workspace, "g-1", 1, "Unschedulable", fits_nowhere)

    content = logged_in.get("/w/lab/pod-groups/default/g/").content.decode()

    assert "<h1>Pod group default/g</h1>" in content
    why = content[content.index("Why the group failed") :]
    assert "PodGroupScheduled <strong>Unschedulable</strong>" in why
    assert f'default/g-0</a>: <span class="message">{gang_message}</span>' in why
    assert f'default/g-1</a>: <span class="message">{fits_nowhere}</span>' in why
    assert "old message" not in content
    assert 'href="/w/lab/pods/uid-g-0/attempts/2/">attempt 2</a>' in content
    assert 'ws-connect="/ws/w/lab/?view=pod-group&amp;group=default/g"' in content


def test_a_groups_page_shows_the_node_each_member_got(logged_in, workspace):
    store(workspace, pod_group("g", 1, **condition("True", "Scheduled")))
    store(workspace, member("g-0", "g", nodeName="n2"))
    attempt(workspace, "g-0", 1, "Scheduled", node="n2")
    content = logged_in.get("/w/lab/pod-groups/default/g/").content.decode()
    assert "Why the group failed" not in content
    assert '<span class="badge Scheduled">Scheduled</span> on <strong>n2</strong>' in content


def test_a_group_with_a_topology_constraint_shows_the_domain_each_member_landed_in(
    logged_in, workspace
):
    zoned = pod_group("g", 2, **condition("True", "Scheduled"))
    zoned["spec"]["schedulingConstraints"] = {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    store(workspace, zoned)
    for name, zone in (("n1", "zone-a"), ("n2", "zone-b")):
        labelled = node(name)
        labelled["metadata"]["labels"] = {"topology.kubernetes.io/zone": zone}
        store(workspace, labelled)
    store(workspace, member("g-0", "g", nodeName="n2"))
    store(workspace, member("g-1", "g"))

    content = logged_in.get("/w/lab/pod-groups/default/g/").content.decode()

    assert '<th>Placement <span class="muted">(topology.kubernetes.io/zone)</span></th>' in content
    assert "<td>n2</td>\n      <td>zone-b</td>" in content
    assert "<td>—</td>\n      <td>—</td>" in content, "a member not placed has no domain"


def test_an_unknown_group_is_not_found(logged_in, workspace):
    assert logged_in.get("/w/lab/pod-groups/default/nope/").status_code == 404


def attempt(workspace, name: str, number: int, result: str, message: str = "", node: str = ""):
    return SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key=f"default/{name}",
        pod_uid=f"uid-{name}",
        number=number,
        result=result,
        message=message,
        node=node,
    )
