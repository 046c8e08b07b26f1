"""Setting and clearing breakpoints on the debugger page and on a pod's page: the engine's
checks name each wrong field, nothing is saved then and the input comes back as typed, and
every change tells the scheduler to read its breakpoints again."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from playground.workspaces.models import (
    Breakpoint,
    SchedulerCommand,
    SchedulerConfiguration,
    Workspace,
)
from tests.playground.front.rows import node, pod, store

PAGE = "/w/lab/debugger/"
ADD = "/w/lab/debugger/breakpoints/"
CLEAR = "/w/lab/debugger/breakpoints/clear/"
APPROVER = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: approver
  plugins:
    permit:
      enabled:
      - name: WaitForApproval
"""


def delete_url(breakpoint_: Breakpoint) -> str:
    return f"/w/lab/debugger/breakpoints/{breakpoint_.pk}/delete/"


def form(**fields: str) -> dict[str, str]:
    """A submitted breakpoint form: every field, empty unless given."""
    empty = dict.fromkeys(("point", "plugin", "node", "pod", "selector", "profile"), "")
    return {**empty, **fields}


def stored(workspace: Workspace, **fields) -> Breakpoint:
    return Breakpoint.objects.create(workspace=workspace, **fields)


def commands() -> list[str]:
    return list(SchedulerCommand.objects.values_list("kind", flat=True))


def field_error(content: str, name: str) -> str:
    """The error shown next to the field: ``name: problem`` as the person reads it."""
    found = re.search(
        rf'<p class="errors field-error" id="bp-{name}-error"[^>]*>(.*?)</p>', content
    )
    assert found, f"no error next to {name}"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def input_value(content: str, name: str) -> str:
    found = re.search(rf'<input id="bp-{name}" name="{name}" value="([^"]*)"', content)
    assert found, f"no input {name}"
    return html.unescape(found.group(1))


def listed(content: str) -> list[list[str]]:
    """The rows of the breakpoint list, each cell's text."""
    rows = re.findall(r'<tr data-testid="breakpoint"[^>]*>(.*?)</tr>', content, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in rows]
    text = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row] for row in cells]
    return [row[:6] for row in text]


# ----------------------------------------------------------------------------------------------
# The form on the debugger page


def test_the_page_offers_every_point_by_its_name_the_profiles_plugins_and_profiles(
    logged_in, workspace
):
    content = logged_in.get(PAGE).content.decode()
    assert 'id="breakpoints"' in content and 'id="breakpoint-form"' in content
    options = re.findall(r'<option value="([^"]*)">([^<]*)</option>', content)
    assert ("score", "Score") in options and ("preBind", "PreBind") in options
    assert ("unreserve", "Unreserve") in options and ("failure", "On failure") in options
    assert ("", "any profile") in options and ("default-scheduler", "default-scheduler") in options
    assert '<option value="NodeResourcesFit" label="preFilter, filter, preScore, score">' in content
    assert "No breakpoints: the scheduler runs without stopping." in content


def test_a_breakpoint_is_set_and_the_scheduler_told_to_read_them_again(
    logged_in, workspace, user, woken
):
    response = logged_in.post(
        ADD, {**form(point="score", plugin="NodeResourcesFit", pod="shop/web-3"), "next": PAGE}
    )
    assert (response.status_code, response["Location"]) == (302, PAGE)
    row = Breakpoint.objects.get()
    assert (row.workspace, row.point, row.plugin, row.pod, row.on_failure, row.created_by) == (
        workspace,
        "score",
        "NodeResourcesFit",
        "shop/web-3",
        False,
        user,
    )
    assert commands() == [SchedulerCommand.BREAKPOINTS]
    assert woken == [workspace]
    content = logged_in.get(PAGE).content.decode()
    assert "Breakpoint set: Score · NodeResourcesFit · pod shop/web-3." in content
    assert listed(content) == [["Score", "NodeResourcesFit", "any", "shop/web-3", "any", "any"]]


def test_htmx_gets_the_panel_back_with_the_new_breakpoint_and_an_empty_form(htmx, workspace):
    store(workspace, node("n1"))
    response = htmx.post(ADD, {**form(point="filter", node="n1"), "next": PAGE})
    content = response.content.decode()
    assert response.status_code == 200
    assert content.startswith('<section class="panel breakpoints" id="breakpoints"')
    assert "Breakpoint set: Filter · node n1.</p>" in content
    assert "breakpoint-warning" not in content
    assert listed(content) == [["Filter", "any", "n1", "any", "any", "any"]]
    assert input_value(content, "node") == ""
    assert commands() == [SchedulerCommand.BREAKPOINTS]


def test_a_breakpoint_on_a_node_that_does_not_exist_is_set_with_a_warning(htmx, workspace):
    """The node may come later (a live cluster's autoscaler adds it); a mistyped one never."""
    store(workspace, node("n1"))
    response = htmx.post(ADD, {**form(point="score", node="no-such-node"), "next": PAGE})
    content = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert (
        "Breakpoint set: Score · node no-such-node. No node is named no-such-node in this "
        "workspace now: it stops only once one is."
    ) in content
    assert listed(content) == [
        ["Score", "any", "no-such-node" + "no node no-such-node now"] + ["any"] * 3
    ]

    store(workspace, node("no-such-node"))
    content = htmx.get(PAGE).content.decode()
    assert listed(content) == [["Score", "any", "no-such-node", "any", "any", "any"]]


def test_a_breakpoint_on_failure_is_stored_without_a_point(logged_in, workspace):
    logged_in.post(ADD, form(point="failure", selector="app=web"))
    row = Breakpoint.objects.get()
    assert (row.point, row.on_failure, row.selector) == ("", True, "app=web")
    assert str(row.engine_breakpoint()) == "on failure selector app=web"


def test_a_reserve_plugin_can_be_stopped_at_unreserve(logged_in, workspace):
    """Unreserve is no point of the configuration: the Reserve plugins' Unreserve runs there."""
    logged_in.post(ADD, form(point="unreserve", plugin="VolumeBinding"))
    assert Breakpoint.objects.get().plugin == "VolumeBinding"


@pytest.mark.parametrize(
    ("fields", "name", "message"),
    [
        (form(), "point", "point: a breakpoint names an extension point, or stops on failure"),
        (form(point="scores"), "point", "point: unknown extension point 'scores' (one of"),
        (
            form(point="score", plugin="NodeResourceFit"),
            "plugin",
            "plugin: unknown plugin 'NodeResourceFit': no profile runs it",
        ),
        (
            form(point="score", plugin="DefaultBinder"),
            "plugin",
            "plugin: DefaultBinder does not run at score (it runs at bind)",
        ),
        (
            form(point="failure", plugin="NodeResourcesFit"),
            "plugin",
            "plugin: a breakpoint on failure stops where the attempt fails, not at a plugin",
        ),
        (
            form(point="reserve", node="n1"),
            "node",
            "node: only a breakpoint at filter or score can name a node",
        ),
        (form(point="score", pod="web-3"), "pod", "pod: 'web-3' is not namespace/name"),
        (form(point="score", pod="/web-3"), "pod", "pod: '/web-3' is not namespace/name"),
        (
            form(point="score", selector="app in (web"),
            "selector",
            "selector: unable to parse requirement",
        ),
        (
            form(point="score", profile="bin-packer"),
            "profile",
            "profile: no profile is named 'bin-packer' (one of default-scheduler)",
        ),
        (
            form(point="score", plugin="x" * 129),
            "plugin",
            "plugin: Ensure this value has at most 128 characters (it has 129).",
        ),
    ],
    ids=[
        "no point",
        "unknown point",
        "unknown plugin",
        "plugin not at that point",
        "plugin on failure",
        "node not at filter or score",
        "pod without namespace",
        "pod with an empty namespace",
        "selector",
        "unknown profile",
        "too long",
    ],
)
def test_each_wrong_field_is_named_nothing_is_saved_and_the_input_is_kept(
    htmx, workspace, woken, fields, name, message
):
    response = htmx.post(ADD, {**fields, "next": PAGE})
    content = response.content.decode()
    assert response.status_code == 422
    assert field_error(content, name).startswith(message)
    assert f'id="bp-{name}" name="{name}"' in content and 'aria-invalid="true"' in content
    for typed in ("plugin", "node", "pod", "selector"):
        assert input_value(content, typed) == fields[typed]
    assert f'<option value="{fields["point"]}" selected>' in content or not fields["point"]
    assert not Breakpoint.objects.exists()
    assert commands() == [] and woken == []


def test_every_wrong_field_is_named_at_once(htmx, workspace):
    fields = form(point="scores", pod="web", selector="a b", plugin="Nope")
    content = htmx.post(ADD, fields).content.decode()
    assert field_error(content, "point").startswith("point: unknown extension point 'scores'")
    assert field_error(content, "pod") == "pod: 'web' is not namespace/name"
    assert field_error(content, "selector").startswith("selector: unable to parse requirement")
    assert not Breakpoint.objects.exists()


def test_without_javascript_a_wrong_form_comes_back_on_the_whole_page_as_typed(
    logged_in, workspace
):
    response = logged_in.post(ADD, {**form(point="score", selector="app in (web"), "next": PAGE})
    content = response.content.decode()
    assert response.status_code == 422
    assert "<h1>Debugger</h1>" in content
    assert input_value(content, "selector") == "app in (web"
    assert field_error(content, "selector").startswith("selector: unable to parse requirement")
    assert not Breakpoint.objects.exists()


def test_the_same_breakpoint_twice_is_refused(htmx, workspace):
    stored(workspace, point="score", plugin="ImageLocality")
    response = htmx.post(ADD, form(point="score", plugin="ImageLocality"))
    assert response.status_code == 422
    assert '<p class="errors" data-testid="error-form">this breakpoint is set already</p>' in (
        response.content.decode()
    )
    assert Breakpoint.objects.count() == 1 and commands() == []


def test_a_plugin_is_checked_against_the_profile_chosen(htmx, workspace, user):
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text=APPROVER)
    refused = htmx.post(
        ADD, form(point="permit", plugin="WaitForApproval", profile="default-scheduler")
    )
    assert refused.status_code == 422
    assert field_error(refused.content.decode(), "plugin") == (
        "plugin: unknown plugin 'WaitForApproval': profile default-scheduler does not run it"
    )
    for profile in ("approver", ""):
        response = htmx.post(ADD, form(point="permit", plugin="WaitForApproval", profile=profile))
        assert response.status_code == 200
    assert sorted(Breakpoint.objects.values_list("profile", flat=True)) == ["", "approver"]


def test_an_invalid_configuration_offers_the_default_profiles_as_the_service_runs_them(
    htmx, workspace
):
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text="profiles: 3\n")
    response = htmx.post(ADD, form(point="score", plugin="ImageLocality"))
    assert response.status_code == 200 and Breakpoint.objects.count() == 1


@pytest.mark.parametrize(
    ("next_url", "expected"),
    [
        ("/w/lab/pods/?state=bound", "/w/lab/pods/?state=bound"),
        ("https://evil.example/", PAGE),
        ("//evil.example/w/lab/", PAGE),
        ("", PAGE),
    ],
)
def test_without_javascript_the_answer_goes_back_to_a_page_of_this_site_only(
    logged_in, workspace, next_url, expected
):
    response = logged_in.post(ADD, {**form(point="score"), "next": next_url})
    assert response["Location"] == expected


def test_a_stored_breakpoint_the_engine_refuses_is_listed_with_its_problem(logged_in, workspace):
    """Changed in the admin, say: the page shows it rather than failing."""
    stored(workspace, point="scores")
    content = logged_in.get(PAGE).content.decode()
    assert "never stops: point: unknown extension point &#x27;scores&#x27;" in content


# ----------------------------------------------------------------------------------------------
# Clearing


def test_one_breakpoint_is_cleared(htmx, workspace, woken):
    kept = stored(workspace, point="filter")
    cleared = stored(workspace, point="score", plugin="ImageLocality")
    content = htmx.post(delete_url(cleared), {"next": PAGE}).content.decode()
    assert list(Breakpoint.objects.all()) == [kept]
    assert "Breakpoint cleared: Score · ImageLocality." in content
    assert listed(content) == [["Filter", "any", "any", "any", "any", "any"]]
    assert commands() == [SchedulerCommand.BREAKPOINTS] and woken == [workspace]


def test_clear_all_clears_every_breakpoint_of_the_workspace_only(logged_in, workspace, stranger):
    other = Workspace.objects.create(name="Other", slug="other", owner=stranger)
    stored(workspace, point="filter")
    stored(workspace, on_failure=True)
    theirs = stored(other, point="score")
    response = logged_in.post(CLEAR, {"next": PAGE})
    assert (response.status_code, response["Location"]) == (302, PAGE)
    assert list(Breakpoint.objects.all()) == [theirs]
    assert commands() == [SchedulerCommand.BREAKPOINTS]
    assert "Cleared 2 breakpoints." in logged_in.get(PAGE).content.decode()


def test_another_workspaces_breakpoint_cannot_be_cleared_from_this_one(
    logged_in, workspace, stranger
):
    other = Workspace.objects.create(name="Other", slug="other", owner=stranger)
    theirs = stored(other, point="score")
    assert logged_in.post(delete_url(theirs)).status_code == 404
    assert Breakpoint.objects.filter(pk=theirs.pk).exists() and commands() == []


# ----------------------------------------------------------------------------------------------
# Access


def test_strangers_can_neither_see_nor_change_breakpoints(client, stranger, workspace):
    mine = stored(workspace, point="score")
    client.force_login(stranger)
    assert client.get(PAGE).status_code == 404
    assert client.post(ADD, form(point="filter")).status_code == 404
    assert client.post(delete_url(mine)).status_code == 404
    assert client.post(CLEAR).status_code == 404
    assert list(Breakpoint.objects.all()) == [mine] and commands() == []


def test_changes_need_a_post_and_the_csrf_token(user, workspace):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.get(ADD).status_code == 405
    assert strict.post(ADD, form(point="score")).status_code == 403
    assert strict.post(CLEAR).status_code == 403
    assert not Breakpoint.objects.exists() and commands() == []


def test_changes_need_a_login(client, workspace):
    response = client.post(ADD, form(point="score"))
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert not Breakpoint.objects.exists()


# ----------------------------------------------------------------------------------------------
# The pod page's Debugger section


@pytest.fixture
def web(workspace):
    """Pod default/web with the label app=web, and a node to offer."""
    store(workspace, node("n1"))
    manifest = pod("web")
    manifest["metadata"]["labels"] = {"app": "web"}
    return store(workspace, manifest)


POD_PAGE = "/w/lab/pods/uid-web/"


def test_the_pod_page_lists_the_breakpoints_that_apply_to_the_pod(logged_in, workspace, web):
    stored(workspace, point="score")  # every pod
    stored(workspace, point="filter", pod="default/web")  # this pod by its key
    stored(workspace, point="reserve", selector="app=web")  # its labels
    stored(workspace, point="permit", profile="default-scheduler")  # its profile
    stored(workspace, point="bind", pod="default/db")
    stored(workspace, point="bind", selector="app=db")
    stored(workspace, point="bind", profile="bin-packer")
    content = logged_in.get(POD_PAGE).content.decode()
    assert '<h2 id="debugger">Debugger</h2>' in content
    assert [row[0] for row in listed(content)] == ["Score", "Filter", "Reserve", "Permit"]
    assert 'href="/w/lab/debugger/" data-testid="debugger-link"' in content
    assert input_value(content, "pod") == "default/web"
    assert '<input type="hidden" name="for_pod" value="uid-web">' in content
    assert f'<input type="hidden" name="next" value="{POD_PAGE}">' in content
    assert '<option value="n1"></option>' in content and '<option value="default/web">' in content


def test_a_pod_page_without_breakpoints_says_how_many_the_workspace_has(logged_in, workspace, web):
    stored(workspace, point="bind", pod="default/db")
    content = logged_in.get(POD_PAGE).content.decode()
    assert "No breakpoint applies to this pod (1 in the workspace, on the debugger page)." in (
        content
    )


def test_a_breakpoint_set_on_the_pod_page_comes_back_in_its_list(htmx, workspace, web):
    fields = {**form(point="score", pod="default/web"), "for_pod": "uid-web", "next": POD_PAGE}
    content = htmx.post(ADD, fields).content.decode()
    assert "Breakpoints for this pod" in content
    assert listed(content) == [["Score", "any", "any", "default/web", "any", "any"]]
    assert input_value(content, "pod") == "default/web"  # the next one is for this pod too
    other = {**fields, "pod": "default/db"}
    content = htmx.post(ADD, other).content.decode()
    assert "It does not apply to this pod: the debugger page lists it." in content
    assert len(listed(content)) == 1 and Breakpoint.objects.count() == 2


def test_without_javascript_a_wrong_form_comes_back_on_the_pod_page(logged_in, workspace, web):
    fields = {**form(point="bind", node="n1", pod="default/web"), "for_pod": "uid-web"}
    response = logged_in.post(ADD, {**fields, "next": POD_PAGE})
    content = response.content.decode()
    assert response.status_code == 422
    assert "<h1>Pod default/web</h1>" in content
    assert field_error(content, "node") == (
        "node: only a breakpoint at filter or score can name a node"
    )
    assert input_value(content, "node") == "n1"
    assert not Breakpoint.objects.exists()


def test_clearing_on_the_pod_page_clears_only_those_listed_there(htmx, workspace, web):
    stored(workspace, point="score")
    stored(workspace, point="filter", selector="app=web")
    kept = stored(workspace, point="bind", pod="default/db")
    content = htmx.post(CLEAR, {"for_pod": "uid-web", "next": POD_PAGE}).content.decode()
    assert list(Breakpoint.objects.all()) == [kept]
    assert "Cleared 2 breakpoints." in content
    assert "No breakpoint applies to this pod (1 in the workspace" in content
    assert commands() == [SchedulerCommand.BREAKPOINTS]


def test_a_pod_group_breakpoint_is_offered_and_stored_narrowed_to_a_member(logged_in, workspace):
    content = logged_in.get(PAGE).content.decode()
    options = re.findall(r'<option value="([^"]*)">([^<]*)</option>', content)
    assert ("podGroup", "Pod group cycle") in options

    logged_in.post(ADD, form(point="podGroup", pod="default/trainer-0"))

    row = Breakpoint.objects.get()
    assert str(row.engine_breakpoint()) == "podGroup pod default/trainer-0"
    listed = logged_in.get(PAGE).content.decode()
    assert "Pod group cycle" in listed[listed.index('id="breakpoints"') :]


def test_a_pod_group_breakpoint_names_no_plugin(htmx, workspace):
    response = htmx.post(ADD, {**form(point="podGroup", plugin="GangScheduling"), "next": PAGE})
    assert response.status_code == 422
    assert field_error(response.content.decode(), "plugin").startswith(
        "plugin: a pod group breakpoint stops where the group's cycle starts"
    )
    assert not Breakpoint.objects.exists()
