"""The profile editor: YAML checked as typed, the form per profile, Apply."""

import html
import re

import pytest
import yaml
from django.test import Client

from playground.workspaces.models import SchedulerCommand, SchedulerConfiguration

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
TWO_PROFILES = HEADER + "profiles:\n- schedulerName: first\n- schedulerName: second\n"


def draft(content: str) -> dict:
    """The configuration in the editor's textarea, parsed."""
    text = re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', content, re.DOTALL)[1]
    return yaml.safe_load(html.unescape(text))


@pytest.fixture
def revision(workspace, user):
    return SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text=TWO_PROFILES, created_by=user
    )


def test_the_editor_opens_the_latest_revision(logged_in, revision):
    content = logged_in.get("/w/lab/profile/").content.decode()
    assert "schedulerName: second" in content
    assert "Revision 1 is the latest, by ada." in content
    assert "✓ Valid — 2 profiles" in content


def test_the_text_is_checked_as_it_is_typed(logged_in, workspace):
    content = logged_in.get("/w/lab/profile/").content.decode()
    assert 'hx-post="/w/lab/profile/validate/" hx-trigger="input changed delay:400ms"' in content
    assert 'hx-target="#config-check"' in content


def test_the_check_answers_htmx_with_upstreams_messages_and_field_paths(htmx, workspace):
    response = htmx.post("/w/lab/profile/validate/", {"text": HEADER + "parallelism: 0\n"})
    content = response.content.decode()
    assert content.startswith('<div id="config-check"')
    assert (
        "<code>parallelism</code>: Invalid value: 0: should be an integer value greater than zero"
        in content
    )


def test_the_check_without_javascript_returns_the_editor_with_the_text(logged_in, workspace):
    response = logged_in.post("/w/lab/profile/validate/", {"text": HEADER + "bogus: 1\n"})
    content = response.content.decode()
    assert content.startswith("<!doctype html>")
    assert "bogus: 1" in content
    assert "strict decoding error: unknown field &quot;bogus&quot;" in content


def test_the_form_shows_the_chosen_profiles_plugins_and_args(logged_in, revision):
    content = logged_in.get("/w/lab/profile/?profile=1").content.decode()
    assert "Profile <code>second</code>" in content
    assert 'value="up:filter:NodeName"' in content
    assert 'name="weight:TaintToleration" value="3"' in content
    assert 'name="args:NodeResourcesFit"' in content
    assert "<option>WaitForApproval</option>" in content
    assert 'id="expanded-plugins"' in content


def test_a_form_button_comes_back_with_the_changed_text(htmx, revision):
    response = htmx.post(
        "/w/lab/profile/edit/",
        {"text": TWO_PROFILES, "profile": "1", "op": "disable:filter:NodeName"},
    )
    content = response.content.decode()
    assert content.lstrip().startswith('<form id="profile-editor"')
    filter_point = draft(content)["profiles"][1]["plugins"]["filter"]
    assert filter_point["disabled"] == [{"name": "*"}]
    assert {"name": "NodeName"} not in filter_point["enabled"]
    assert SchedulerConfiguration.objects.count() == 1  # a form change is only a draft


def test_a_change_that_would_break_the_configuration_is_explained(htmx, revision):
    response = htmx.post(
        "/w/lab/profile/edit/",
        {"text": TWO_PROFILES, "profile": "0", "op": "add:filter", "add:filter": "PrioritySort"},
    )
    assert "does not extend FilterPlugin plugin" in response.content.decode()


def test_a_profile_tab_keeps_the_draft(htmx, revision):
    draft = TWO_PROFILES + "parallelism: 8\n"
    response = htmx.post("/w/lab/profile/edit/", {"text": draft, "show": "1"})
    content = response.content.decode()
    assert "parallelism: 8" in content
    assert "Profile <code>second</code>" in content


def test_apply_stores_a_revision_and_sends_it_to_the_scheduler(logged_in, user, revision, woken):
    text = TWO_PROFILES + "parallelism: 8\n"
    response = logged_in.post("/w/lab/profile/apply/", {"text": text, "note": "faster"})
    assert response.status_code == 302
    latest = revision.workspace.current_configuration()
    assert (latest.revision, latest.text, latest.note, latest.created_by) == (
        2,
        text,
        "faster",
        user,
    )
    command = SchedulerCommand.objects.get()
    assert (command.kind, command.payload) == ("apply-configuration", {"revision": 2})
    assert woken == [revision.workspace]


def test_an_invalid_configuration_is_never_applied(logged_in, revision, woken):
    response = logged_in.post("/w/lab/profile/apply/", {"text": HEADER + "parallelism: 0\n"})
    assert response.status_code == 422
    assert "Not applied" in response.content.decode()
    assert SchedulerConfiguration.objects.count() == 1
    assert not SchedulerCommand.objects.exists()
    assert woken == []


def test_htmx_apply_redirects_the_whole_page(htmx, revision):
    response = htmx.post("/w/lab/profile/apply/", {"text": TWO_PROFILES})
    assert response["HX-Redirect"] == "/w/lab/profile/"


def test_an_older_revision_can_be_loaded(logged_in, revision):
    SchedulerConfiguration.objects.create(workspace=revision.workspace, revision=2, text=HEADER)
    assert "schedulerName: second" not in logged_in.get("/w/lab/profile/").content.decode()
    assert "schedulerName: second" in logged_in.get("/w/lab/profile/?revision=1").content.decode()


def test_a_workspace_without_revisions_starts_from_the_defaults(logged_in, workspace):
    content = logged_in.get("/w/lab/profile/").content.decode()
    assert "kind: KubeSchedulerConfiguration" in content
    assert "✓ Valid — 1 profile" in content


@pytest.mark.parametrize(
    "url",
    ["/w/lab/profile/validate/", "/w/lab/profile/edit/", "/w/lab/profile/apply/"],
    ids=["check", "form change", "apply"],
)
def test_changes_need_the_csrf_token(user, revision, url):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(url, {"text": HEADER}).status_code == 403


def test_strangers_cannot_apply(client, stranger, revision):
    client.force_login(stranger)
    assert client.post("/w/lab/profile/apply/", {"text": HEADER}).status_code == 404
    assert SchedulerConfiguration.objects.count() == 1


def test_the_yaml_the_form_writes_is_a_valid_document(htmx, revision):
    response = htmx.post(
        "/w/lab/profile/edit/",
        {"text": TWO_PROFILES, "profile": "0", "op": "down:filter:NodeUnschedulable"},
    )
    document = draft(response.content.decode())
    assert document["profiles"][0]["plugins"]["filter"]["enabled"][1] == {
        "name": "NodeUnschedulable"
    }


# ----------------------------------------------------------------------------------------------
# Plugins offered where they work, and their args


def offered(content: str, point: str) -> list[str]:
    """The plugins the form offers to enable at a point."""
    select = re.search(rf'<select name="add:{point}".*?</select>', content, re.DOTALL)
    return re.findall(r"<option>(\w+)</option>", select[0]) if select else []


EMPTIED = HEADER + (
    "profiles:\n- schedulerName: default-scheduler\n  plugins:\n"
    + "".join(
        f"    {point}:\n      disabled: [{{name: '*'}}]\n"
        for point in ("preEnqueue", "filter", "score")
    )
)


def test_a_plugin_is_offered_only_at_the_points_it_implements(logged_in, workspace):
    content = logged_in.post("/w/lab/profile/validate/", {"text": EMPTIED}).content.decode()

    assert offered(content, "preEnqueue") == [
        "DefaultPreemption",
        "DynamicResources",
        "GangScheduling",
        "SchedulingGates",
    ]
    assert "ImageLocality" in offered(content, "score")
    assert "NodeName" not in offered(content, "score")  # a Filter plugin only
    assert "NodeName" in offered(content, "filter")
    assert not {"ImageLocality", "PrioritySort", "DefaultBinder"} & set(offered(content, "filter"))
    permit = ["GangScheduling", "LabelSelectorPermit", "WaitForApproval"]
    assert offered(content, "permit") == permit
    assert offered(content, "queueSort") == []  # PrioritySort, the only one, is enabled
    assert "every plugin that implements queueSort is enabled" in content


IMAGE_LOCALITY_AT_PRE_ENQUEUE = HEADER + (
    "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    preEnqueue:\n"
    "      enabled:\n      - name: ImageLocality\n"
)
UPSTREAMS_REFUSAL = (
    "creating profile for scheduler name default-scheduler: "
    "plugin &quot;ImageLocality&quot; does not extend PreEnqueuePlugin plugin"
)


def test_a_plugin_enabled_in_the_yaml_where_it_does_not_work_is_refused_as_typed(htmx, workspace):
    response = htmx.post("/w/lab/profile/validate/", {"text": IMAGE_LOCALITY_AT_PRE_ENQUEUE})
    content = response.content.decode()
    assert f"<code>profiles[0]</code>: {UPSTREAMS_REFUSAL}" in content
    assert "Valid" not in content


def test_a_plugin_enabled_where_it_does_not_work_is_never_applied(logged_in, revision, woken):
    response = logged_in.post("/w/lab/profile/apply/", {"text": IMAGE_LOCALITY_AT_PRE_ENQUEUE})
    assert response.status_code == 422
    assert UPSTREAMS_REFUSAL in response.content.decode()
    assert SchedulerConfiguration.objects.count() == 1
    assert not SchedulerCommand.objects.exists()


WAIT_FOR_APPROVAL = HEADER + (
    "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    permit:\n"
    "      enabled:\n      - name: WaitForApproval\n"
)


def test_wait_for_approval_gets_its_args_section_with_the_default_timeout(logged_in, workspace):
    response = logged_in.post("/w/lab/profile/validate/", {"text": WAIT_FOR_APPROVAL})
    content = response.content.decode()
    section = re.search(
        r'<textarea name="args:WaitForApproval"[^>]*>(.*?)</textarea>', content, re.DOTALL
    )
    assert yaml.safe_load(html.unescape(section[1])) == {"timeoutSeconds": 300}
    assert 'value="args:WaitForApproval"' in content


def save_approval_args(client, args: str):
    """The form's "Save args of WaitForApproval" button, on a draft that enables it."""
    data = {"text": WAIT_FOR_APPROVAL, "op": "args:WaitForApproval"}
    return client.post("/w/lab/profile/edit/", {**data, "args:WaitForApproval": args})


def test_saving_wait_for_approvals_args_writes_its_plugin_config(htmx, workspace):
    response = save_approval_args(htmx, "timeoutSeconds: 45\n")
    config = draft(response.content.decode())["profiles"][0]["pluginConfig"]
    assert config == [{"name": "WaitForApproval", "args": {"timeoutSeconds": 45}}]


def test_a_bad_timeout_is_refused_with_the_plugins_message(htmx, workspace):
    response = save_approval_args(htmx, "timeoutSeconds: -1\n")
    content = html.unescape(response.content.decode())
    assert "WaitForApproval args: timeoutSeconds: Invalid value: -1" in content
    assert "pluginConfig" not in draft(response.content.decode())["profiles"][0]


LABEL_SELECTOR_PERMIT = WAIT_FOR_APPROVAL + "      - name: LabelSelectorPermit\n"


def save_label_selector_args(client, args: str):
    data = {"text": LABEL_SELECTOR_PERMIT, "op": "args:LabelSelectorPermit"}
    return client.post("/w/lab/profile/edit/", {**data, "args:LabelSelectorPermit": args})


def test_label_selector_permits_args_are_saved_beside_wait_for_approval(htmx, workspace):
    args = "selector: {matchLabels: {team: payments}}\ntimeoutSeconds: 60\n"
    config = draft(save_label_selector_args(htmx, args).content.decode())["profiles"][0]
    assert config["pluginConfig"] == [
        {
            "name": "LabelSelectorPermit",
            "args": {"selector": {"matchLabels": {"team": "payments"}}, "timeoutSeconds": 60},
        }
    ]
    assert config["plugins"]["permit"]["enabled"] == [
        {"name": "WaitForApproval"},
        {"name": "LabelSelectorPermit"},
    ]


def test_label_selector_permits_bad_args_are_refused_naming_the_field(htmx, workspace):
    args = "selector: {matchExpressions: [{key: team, operator: Near}]}\ntimeoutSeconds: 0\n"
    content = html.unescape(save_label_selector_args(htmx, args).content.decode())
    assert (
        "LabelSelectorPermit args: args.selector.matchExpressions[0].operator: Invalid value: "
        '"Near": not a valid selector operator; args.timeoutSeconds: Invalid value: 0: must be > 0'
    ) in content
