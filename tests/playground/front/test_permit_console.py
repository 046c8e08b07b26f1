"""The permit console: waiting pods, their pending plugins, Approve / Reject as commands."""

import html
import re
from datetime import timedelta

import pytest
import yaml
from django.test import Client
from django.utils import timezone

from playground.workspaces.models import SchedulerCommand, SchedulerConfiguration, SchedulerStatus
from tests.playground.front.rows import pod, store
from tests.playground.front.test_pod_groups_page import member, pod_group
from tests.playground.scheduling.test_service import WAIT_FOR_APPROVAL

WAITING = [
    {
        "pod": "default/w",
        "uid": "uw",
        "node": "n1",
        "pendingPlugins": ["Gate", "Quota"],
        "secondsLeft": {"Gate": 12.5, "Quota": 3.0},
    }
]


@pytest.fixture
def status(workspace):
    return SchedulerStatus.objects.create(
        workspace=workspace, queue={"waiting": WAITING}, waiting_pods=WAITING
    )


def seconds_left(content):
    """plugin -> the seconds its countdown starts from."""
    found = re.findall(
        r'data-plugin="([^"]+)">\s*<span class="label">[^<]+</span>\s*'
        r'<span class="muted countdown" data-seconds-left="([0-9.]+)"',
        content,
    )
    return {plugin: float(seconds) for plugin, seconds in found}


def test_the_console_lists_pending_plugins_each_with_its_own_countdown(logged_in, status):
    SchedulerStatus.objects.filter(pk=status.pk).update(
        updated=timezone.now() - timedelta(seconds=2)
    )
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert 'href="/w/lab/pods/uw/"' in content
    left = seconds_left(content)
    assert list(left) == ["Gate", "Quota"]
    # The service published 12.5 and 3.0 two seconds ago: each counts down from what is left.
    assert 10.0 <= left["Gate"] <= 10.5 and 0.5 <= left["Quota"] <= 1.0
    assert content.count('name="decision" value="allow"') == 4  # 2 plugins, the pod, all shown
    assert 'src="/static/js/countdown.js"' in content


def test_a_plugin_past_its_timeout_shows_no_negative_time(logged_in, status):
    SchedulerStatus.objects.filter(pk=status.pk).update(
        updated=timezone.now() - timedelta(seconds=5)
    )
    left = seconds_left(logged_in.get("/w/lab/permit/").content.decode())
    assert left["Quota"] == 0.0 and 7.0 <= left["Gate"] <= 7.5


@pytest.mark.parametrize(
    ("form", "kind", "payload"),
    [
        ({"decision": "allow", "plugin": "Gate"}, "allow", {"uid": "uw", "plugin": "Gate"}),
        ({"decision": "allow"}, "allow", {"uid": "uw"}),
        (
            {"decision": "reject", "plugin": "Quota", "message": "over budget"},
            "reject",
            {"uid": "uw", "plugin": "Quota", "message": "over budget"},
        ),
        ({"decision": "reject"}, "reject", {"uid": "uw"}),
    ],
    ids=["approve for one plugin", "approve for all", "reject for one plugin", "reject"],
)
def test_a_decision_becomes_a_scheduler_command(
    logged_in, user, status, woken, form, kind, payload
):
    response = logged_in.post("/w/lab/permit/decide/", {"uid": "uw", **form})
    assert response.status_code == 302
    command = SchedulerCommand.objects.get()
    assert (command.kind, command.payload, command.created_by) == (kind, payload, user)
    assert woken == [status.workspace]


def test_htmx_gets_the_console_back_with_a_note(htmx, status):
    response = htmx.post("/w/lab/permit/decide/", {"uid": "uw", "decision": "allow"})
    content = response.content.decode()
    assert content.startswith('<div id="permit-console">')
    assert "Allow sent to the scheduler." in content


def test_the_note_says_what_the_service_did(htmx, status, monkeypatch):
    """With a scheduler answering, the page shows the command's outcome (here a loser's)."""
    outcomes = {"allow": "already decided: rejected by Gate: no"}
    monkeypatch.setattr(
        "playground.front.views.permit.wait_for_outcome",
        lambda command, seconds: outcomes[command.kind],
    )
    response = htmx.post("/w/lab/permit/decide/", {"uid": "uw", "decision": "allow"})
    note = re.search(r'<p id="permit-note"[^>]*>(.*?)</p>', response.content.decode())[1]
    assert html.unescape(note) == "default/w: already decided: rejected by Gate: no"


SECOND = {"pod": "default/v", "uid": "uv", "node": "n1", "pendingPlugins": ["Gate"]}


@pytest.mark.parametrize("decision", ["allow", "reject"])
def test_all_shown_pods_are_decided_at_once(logged_in, user, status, woken, decision):
    status.waiting_pods = [*WAITING, SECOND]
    status.save()
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert 'name="uids" value="uw uv"' in content
    assert "for every plugin of the 2 pods shown" in content

    form = {"decision": decision, "uids": "uw uv"}
    response = logged_in.post("/w/lab/permit/decide-all/", form)
    assert response.status_code == 302
    commands = SchedulerCommand.objects.order_by("id")
    assert [(c.kind, c.payload, c.created_by) for c in commands] == [
        (decision, {"uid": "uw"}, user),
        (decision, {"uid": "uv"}, user),
    ]
    assert woken == [status.workspace, status.workspace]


def test_all_shown_needs_pods(logged_in, status):
    response = logged_in.post("/w/lab/permit/decide-all/", {"decision": "allow", "uids": " "})
    assert response.status_code == 400
    assert response.content.decode() == "Invalid decision: uids: This field is required."
    assert not SchedulerCommand.objects.exists()


def test_the_empty_console_has_no_all_shown_buttons(logged_in, workspace):
    assert "Approve all shown" not in logged_in.get("/w/lab/permit/").content.decode()


def test_a_malformed_decision_is_refused(logged_in, status):
    response = logged_in.post("/w/lab/permit/decide/", {"uid": "uw", "decision": "preempt"})
    assert response.status_code == 400
    assert not SchedulerCommand.objects.exists()


def test_deciding_needs_a_post(logged_in, status):
    assert logged_in.get("/w/lab/permit/decide/").status_code == 405


def test_deciding_needs_the_csrf_token(user, status):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    response = strict.post("/w/lab/permit/decide/", {"uid": "uw", "decision": "allow"})
    assert response.status_code == 403
    assert not SchedulerCommand.objects.exists()


def test_strangers_cannot_decide(client, stranger, status):
    client.force_login(stranger)
    response = client.post("/w/lab/permit/decide/", {"uid": "uw", "decision": "allow"})
    assert response.status_code == 404
    assert not SchedulerCommand.objects.exists()


def test_an_empty_console_says_so(logged_in, workspace):
    assert "No pod waits at Permit." in logged_in.get("/w/lab/permit/").content.decode()


def test_every_cell_of_the_console_stays_a_table_cell(logged_in, status):
    """``.actions`` lays its buttons out with ``display: flex``; on a cell it took the cell out
    of the table's grid and its borders no longer lined up with the row's."""
    content = logged_in.get("/w/lab/permit/").content.decode()
    cells = re.findall(r"<td[^>]*>", content)
    assert len(cells) == 4
    assert [cell for cell in cells if "actions" in cell] == []
    assert content.count('<div class="actions"') == 3  # two plugins, and all of them
    assert content.count('<div class="actions all-shown">') == 1  # outside the table


# ----------------------------------------------------------------------------------------------
# No pod waiting: how to make pods wait


ENABLE_LINK = 'href="/w/lab/profile/?enable=permit:WaitForApproval"'


def test_the_empty_console_says_how_to_make_pods_wait_with_a_link_to_the_profile_form(
    logged_in, workspace
):
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert "No pod waits at Permit." in content
    assert "enable <strong>WaitForApproval</strong> at the permit extension point" in content
    assert f"{ENABLE_LINK}>Enable WaitForApproval at permit…</a>" in content


def test_the_empty_console_says_when_wait_for_approval_is_enabled_already(
    logged_in, workspace, user
):
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text=WAIT_FOR_APPROVAL)
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert "<strong>WaitForApproval</strong> is enabled at permit" in content
    assert ENABLE_LINK not in content


def test_the_empty_console_offers_the_label_selector_plugin_too(logged_in, workspace):
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert 'href="/w/lab/profile/?enable=permit:LabelSelectorPermit"' in content
    assert "each with its own countdown" in content


def test_the_label_selector_link_opens_the_form_with_its_args_ready(logged_in, workspace):
    content = logged_in.get("/w/lab/profile/?enable=permit:LabelSelectorPermit").content.decode()
    assert "LabelSelectorPermit is enabled at permit in this draft" in content
    args = html.unescape(
        re.search(
            r'<textarea name="args:LabelSelectorPermit"[^>]*>(.*?)</textarea>', content, re.S
        )[1]
    )
    assert yaml.safe_load(args) == {
        "selector": {"matchLabels": {"permit": "hold"}},
        "timeoutSeconds": 300,
    }


def test_the_hint_goes_once_pods_wait(logged_in, status):
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert ENABLE_LINK not in content and "is enabled at permit" not in content


def test_the_link_opens_the_profile_form_with_wait_for_approval_enabled_at_permit(
    logged_in, workspace
):
    response = logged_in.get("/w/lab/profile/?enable=permit:WaitForApproval")
    content = response.content.decode()
    text = html.unescape(
        re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', content, re.DOTALL)[1]
    )
    permit = yaml.safe_load(text)["profiles"][0]["plugins"]["permit"]
    assert permit["enabled"] == [{"name": "WaitForApproval"}]
    assert (
        "WaitForApproval is enabled at permit in this draft: Apply hands it to the scheduler."
        in (content)
    )
    assert 'name="args:WaitForApproval"' in content  # its timeout, ready to change
    assert (
        not SchedulerConfiguration.objects.filter(workspace=workspace).exclude(revision=1).exists()
    )  # nothing applied


@pytest.mark.parametrize(
    ("enable", "note"),
    [
        ("permit:WaitForApproval", "WaitForApproval is already enabled at this extension point"),
        (
            "permit:ImageLocality",
            "plugin &quot;ImageLocality&quot; does not extend PermitPlugin plugin",
        ),
    ],
    ids=["already enabled", "a plugin that does not work there"],
)
def test_a_prefill_that_cannot_be_made_says_why(logged_in, workspace, enable, note):
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text=WAIT_FOR_APPROVAL)
    content = logged_in.get(f"/w/lab/profile/?enable={enable}").content.decode()
    assert note in content


def test_gang_members_wait_together_under_their_group_with_the_quorum(logged_in, workspace):
    store(workspace, pod_group("trainer", 4))
    for name in ("trainer-0", "trainer-1", "trainer-2"):
        store(workspace, member(name, "trainer"))
    store(workspace, pod("alone"))
    waiting = [
        {"pod": f"default/{name}", "uid": f"uid-{name}", "node": "n1", "pendingPlugins": [plugin]}
        for name, plugin in (
            ("trainer-0", "GangScheduling"),
            ("alone", "Gate"),
            ("trainer-2", "GangScheduling"),
        )
    ]
    SchedulerStatus.objects.create(
        workspace=workspace, queue={"waiting": waiting}, waiting_pods=waiting
    )

    content = logged_in.get("/w/lab/permit/").content.decode()

    gang = content[content.index('aria-label="Pod group default/trainer"') :]
    gang = gang[: gang.index("</tbody>")]
    assert '<span class="quorum-text">2 of 4 assumed</span>' in gang
    assert 'href="/w/lab/pod-groups/default/trainer/"' in gang
    assert "default/trainer-0" in gang and "default/trainer-2" in gang
    assert "default/alone" not in gang
    assert "default/alone" in content
    # Each member is still allowed or rejected on its own.
    assert gang.count('name="uid" value="uid-trainer-0"') == 4  # per plugin, and all
