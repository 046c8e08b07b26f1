"""The permit console: waiting pods, their pending plugins, Approve / Reject as commands."""

import re

import pytest
from django.test import Client

from playground.workspaces.models import SchedulerCommand, SchedulerStatus

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


def test_the_console_lists_pending_plugins_with_their_time_left(logged_in, status):
    content = logged_in.get("/w/lab/permit/").content.decode()
    assert 'href="/w/lab/pods/uw/"' in content
    assert '<span class="label">Gate</span>' in content and "12.5 s left" in content
    assert '<span class="label">Quota</span>' in content and "3.0 s left" in content
    assert content.count('name="decision" value="allow"') == 3


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
    assert content.count('<div class="actions">') == 3  # two plugins, and all of them
