"""The stop section (debugger page, pod page) and its controls: what a stored stop shows, the
commands a click sends, bad input, access, and the state every page's top bar shows."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from playground.front.stop_section import render_stop_parts
from playground.live.fragments import top_level_elements
from playground.scheduling.scheduler_state import scheduler_state
from playground.workspaces.models import (
    ClusterObject,
    SchedulerCommand,
    SchedulerLease,
    SchedulerStatus,
)
from tests.framework.debugger.scenario import NODES, WEB
from tests.framework.debugger.test_pod_group_breakpoints import gang
from tests.framework.debugger.test_pod_group_breakpoints import simulate as simulate_groups
from tests.playground.front.test_stop_panels import stop_dict

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def at_score_document() -> dict:
    """A stop at Score as the service stores it (the engine's Stop plus the service's keys)."""
    stop = stop_dict(NODES + WEB, "score")
    return {
        **stop,
        "id": "3-7",
        "since": 1_800_000_000.0,
        "deadline": 1_800_000_600.0,
        "play": None,
        "uid": "uid-web",
        "summary": "default/web attempt 1: score · NodeResourcesFit: Success [breakpoint score]",
    }


@pytest.fixture
def stopped(workspace, at_score_document):
    """The workspace's scheduler holds its lease and waits at the Score stop."""
    now = timezone.now()
    SchedulerLease.objects.update_or_create(
        workspace=workspace,
        defaults={
            "holder": "host:1:task",
            "generation": 3,
            "acquired_at": now,
            "renewed_at": now,
            "expires_at": now + timedelta(seconds=60),
        },
    )
    SchedulerStatus.objects.create(workspace=workspace, stop=at_score_document)
    return at_score_document


@pytest.fixture
def web_pod(workspace):
    return ClusterObject.objects.create(
        workspace=workspace,
        kind="Pod",
        namespace="default",
        name="web",
        uid="uid-web",
        manifest={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "uid": "uid-web"}},
    )


def test_without_a_stop_the_page_says_the_scheduler_is_not_stopped(logged_in, workspace):
    content = logged_in.get("/w/lab/debugger/").content.decode()
    assert 'id="debugger-stop"' in content
    assert "The scheduler is not stopped: it stops at the breakpoints below" in content
    # The controls are in the page, hidden by the stylesheet while the section is not stopped.
    assert '<div id="debugger-stop-where" class="stop-where">' in content
    assert '<input type="hidden" id="debugger-stop-id" name="stop" value="">' in content


def test_a_stop_shows_where_why_the_controls_and_the_panels(logged_in, stopped):
    content = logged_in.get("/w/lab/debugger/").content.decode()
    assert f"Stopped at score · {stopped['plugin']}" in content
    assert "breakpoint score" in content and "attempt 1" in content
    for label in ("Step", "Next", "Continue", "Run to end", "Abort", "Play"):
        assert f">{label}</button>" in content
    assert '<div id="debugger-stop-where" class="stop-where stopped">' in content
    assert content.count('name="stop" value="3-7"') == 1  # one form, a button per command
    assert '<div class="debugger-panels">' in content
    assert "Extension points completed" in content and 'aria-label="PreFilter"' in content


def test_every_page_top_bar_and_state_say_where_the_scheduler_stopped(logged_in, stopped):
    state = scheduler_state(SchedulerStatus.objects.get().workspace_id)
    assert state.label == f"stopped at Score · {stopped['plugin']} · pod default/web"
    for page in ("/w/lab/", "/w/lab/queue/", "/w/lab/pods/"):
        content = logged_in.get(page).content.decode()
        assert state.label in content, page


def test_the_pod_page_of_the_stopped_pod_shows_the_stop_and_another_pod_names_it(
    logged_in, workspace, stopped, web_pod
):
    content = logged_in.get("/w/lab/pods/uid-web/").content.decode()
    assert f"Stopped at score · {stopped['plugin']}" in content
    assert 'name="pod" value="uid-web"' in content

    ClusterObject.objects.create(
        workspace=workspace,
        kind="Pod",
        namespace="default",
        name="db",
        uid="uid-db",
        manifest={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db", "uid": "uid-db"}},
    )
    other = logged_in.get("/w/lab/pods/uid-db/").content.decode()
    assert "The scheduler waits at a breakpoint for another pod: default/web attempt 1" in other
    assert "Stopped at score" not in other


@pytest.mark.parametrize("verb", ["step", "next", "continue", "run", "abort"])
def test_a_click_sends_a_debug_command_naming_the_stop(htmx, stopped, woken, workspace, verb):
    response = htmx.post("/w/lab/debugger/command/", {"command": verb, "stop": "3-7"})
    assert response.status_code == 204  # the page's socket shows where the scheduler went
    command = SchedulerCommand.objects.get()
    assert (command.kind, command.payload) == ("debug", {"command": verb, "stop": "3-7"})
    assert woken == [workspace]


def test_pause_names_no_stop_while_playing_the_one_shown_may_just_have_gone_on(htmx, stopped):
    htmx.post("/w/lab/debugger/command/", {"command": "pause", "stop": "3-7"})
    assert SchedulerCommand.objects.get().payload == {"command": "pause", "stop": ""}


def test_play_sends_its_pace(htmx, stopped):
    htmx.post("/w/lab/debugger/command/", {"command": "play", "stop": "3-7", "pace": "0.5"})
    assert SchedulerCommand.objects.get().payload == {"command": "play", "stop": "3-7", "pace": 0.5}


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"command": "jump"}, "command: 'jump' is not one of"),
        ({"command": "play", "pace": "soon"}, "pace: give the seconds per extension point"),
        ({"command": "play", "pace": "0"}, "pace: seconds per extension point between 0.1 and 60"),
    ],
    ids=["command", "pace-text", "pace-zero"],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_sent(htmx, stopped, form, message):
    response = htmx.post("/w/lab/debugger/command/", form)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not SchedulerCommand.objects.exists()


def test_without_javascript_a_click_goes_back_to_the_page_it_came_from(logged_in, stopped):
    response = logged_in.post("/w/lab/debugger/command/", {"command": "step", "stop": "3-7"})
    assert response["Location"] == "/w/lab/debugger/"
    response = logged_in.post(
        "/w/lab/debugger/command/", {"command": "step", "stop": "3-7", "pod": "uid-web"}
    )
    assert response["Location"] == "/w/lab/pods/uid-web/"


def test_others_may_not_see_or_answer_a_stop(client, stranger, stopped):
    client.force_login(stranger)
    assert client.get("/w/lab/debugger/").status_code == 404
    response = client.post("/w/lab/debugger/command/", {"command": "run", "stop": "3-7"})
    assert response.status_code == 404
    assert not SchedulerCommand.objects.exists()


def test_a_socket_redraws_the_parts_of_the_section_never_the_controls(workspace, stopped):
    parts = render_stop_parts(workspace)
    ids = [element_id for element_id, _ in top_level_elements(parts)]
    assert ids == [
        "debugger-stop-where",
        "debugger-stop-id",
        "debugger-abort",
        "debugger-play",
        "debugger-stop-panels",
        "debugger-note",
    ]
    assert 'data-command="step"' not in parts  # the buttons that never change stay put
    # Play or Pause, and Abort, change with the stop only when what they do changes.
    playing = {**stopped, "id": "3-8", "play": 1.0}
    again = render_stop_parts(workspace, stored={"stop": playing, "note": ""})
    play, abort = part(again, "debugger-play"), part(again, "debugger-abort")
    assert 'data-command="pause"' in play and part(parts, "debugger-abort") == abort
    next_one = render_stop_parts(workspace, stored={"stop": {**playing, "id": "3-9"}, "note": ""})
    assert part(next_one, "debugger-play") == play
    assert part(next_one, "debugger-stop-id") != part(again, "debugger-stop-id")


def part(html: str, element_id: str) -> str:
    return dict(top_level_elements(html))[element_id]


def test_where_abort_cannot_end_the_attempt_its_button_says_it_is_taken_as_run(
    logged_in, workspace, stopped
):
    SchedulerStatus.objects.update(stop={**stopped, "point": "bind", "plugin": "DefaultBinder"})
    content = logged_in.get("/w/lab/debugger/").content.decode()
    assert 'data-pending="Abort is taken as Run to end at bind: running this attempt' in content


def test_each_button_says_what_it_does_the_moment_it_is_clicked(logged_in, stopped):
    content = logged_in.get("/w/lab/debugger/").content.decode()
    aborting = "Aborting: the attempt ends with an Error and the pod goes back to the queue."
    assert f'data-command="abort" data-pending="{aborting}"' in content
    assert 'hx-disabled-elt="find fieldset"' in content  # and none can be clicked again


def test_a_stop_that_continued_by_itself_is_said_on_the_page(logged_in, workspace):
    note = "The stop at default/web attempt 1: score continued by itself after 10 minutes."
    SchedulerStatus.objects.create(workspace=workspace, debugger_note=note)
    assert note in logged_in.get("/w/lab/debugger/").content.decode()


@pytest.fixture
def stopped_at_a_group(workspace):
    """The scheduler waits as gang default/a's cycle starts."""
    objects = NODES + gang("a", 2, 2)
    stop = simulate_groups(objects, "podGroup")[1][0].to_dict()
    document = {
        **json.loads(json.dumps(stop)),
        "id": "3-8",
        "since": 1_800_000_000.0,
        "deadline": 1_800_000_600.0,
        "play": None,
        "uid": "uid-a-0",
        "summary": "pod group default/a (default/a-0, default/a-1): cycle starts",
        "events": [],
    }
    SchedulerStatus.objects.create(workspace=workspace, stop=document)
    return document


def test_a_stop_at_a_pod_groups_cycle_names_the_group_and_its_members(
    logged_in, stopped_at_a_group
):
    content = logged_in.get("/w/lab/debugger/").content.decode()
    assert (
        'Stopped at the cycle of pod group <a href="/w/lab/pod-groups/default/a/">default/a</a>'
        in content
    )
    assert (
        "Members, in the order the cycle tries them: <strong>default/a-0</strong>, "
        "<strong>default/a-1</strong>"
    ) in content
    assert "Abort is taken as Run to end at podGroup" in content
    assert "start of a pod group&#x27;s cycle" in content  # the panels' header
    assert '<div class="debugger-panels">' in content
