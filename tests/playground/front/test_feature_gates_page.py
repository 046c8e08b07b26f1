"""The feature gates on the profile page: typed beside the YAML, checked with it, applied
with it as a revision, and the gates the scheduler runs with shown live."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from playground.front.breakpoint_form import workspace_profiles
from playground.front.live import LiveView, workspace_resync
from playground.workspaces.models import (
    SchedulerCommand,
    SchedulerConfiguration,
    SchedulerLease,
    SchedulerStatus,
)

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
WITHOUT_NODE_DECLARED_FEATURES = (
    "InPlacePodLevelResourcesVerticalScaling=false,NodeDeclaredFeatures=false"
)


def gates_field(content: str) -> str:
    """The value of the page's feature gates field."""
    return html.unescape(re.search(r'<input name="feature_gates" value="([^"]*)"', content)[1])


def text_area(content: str) -> str:
    return html.unescape(
        re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', content, re.S)[1]
    )


@pytest.fixture
def revision(workspace, user):
    return SchedulerConfiguration.objects.create(
        workspace=workspace,
        revision=1,
        text=HEADER,
        feature_gates="StorageCapacityScoring=true",
        created_by=user,
    )


def test_the_editor_shows_the_latest_revisions_gates_and_those_that_differ(logged_in, revision):
    content = logged_in.get("/w/lab/profile/").content.decode()

    assert gates_field(content) == "StorageCapacityScoring=true"
    changed = re.search(r'<p data-testid="changed-gates">(.*?)</p>', content, re.S)[1]
    assert "<code>StorageCapacityScoring=true</code>" in changed
    assert "(Alpha, default false)" in changed
    assert "<td><code>StorageCapacityScoring=true</code></td>" in content  # the revisions table


def test_the_gates_are_checked_as_they_are_typed(logged_in, revision):
    content = logged_in.get("/w/lab/profile/").content.decode()
    field = re.search(r'<input name="feature_gates"[^>]*>', content, re.S)[0]

    assert 'hx-post="/w/lab/profile/validate/"' in field
    assert 'hx-trigger="input changed delay:400ms"' in field
    assert 'hx-target="#config-check"' in field


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ("Nope=true", "unrecognized feature gate: Nope"),
        (
            "SidecarContainers=false",
            "cannot set feature gate SidecarContainers to false, feature is locked to true",
        ),
        (
            "WorkloadAwarePreemption=true",
            "WorkloadAwarePreemption is enabled, but depends on features that are disabled: "
            "[GangScheduling]",
        ),
        (
            "GangScheduling=yes",
            'invalid value of GangScheduling=yes, err: strconv.ParseBool: parsing "yes": '
            "invalid syntax",
        ),
    ],
    ids=["an unknown gate", "a locked gate", "a missing dependency", "a bad bool"],
)
def test_the_check_names_the_field_and_the_problem(htmx, workspace, gates, message):
    response = htmx.post("/w/lab/profile/validate/", {"text": HEADER, "feature_gates": gates})

    assert response.status_code == 200
    assert (
        f"<li><code>--feature-gates</code>: {html.escape(message)}</li>"
        in response.content.decode()
    )


def test_the_expanded_plugins_follow_the_gates(logged_in, workspace):
    def pre_filter(gates: str) -> str:
        data = {"text": HEADER, "feature_gates": gates}
        content = logged_in.post("/w/lab/profile/validate/", data).content.decode()
        expanded = re.search(r'id="expanded-plugins">(.*?)</details>', content, re.S)[1]
        return re.search(r"<th>preFilter</th><td>(.*?)</td>", expanded)[1]

    assert "NodeDeclaredFeatures" in pre_filter("")
    assert "NodeResourcesFit" in pre_filter(WITHOUT_NODE_DECLARED_FEATURES)
    assert "NodeDeclaredFeatures" not in pre_filter(WITHOUT_NODE_DECLARED_FEATURES)


def test_bad_gates_are_never_applied_and_the_draft_comes_back_as_typed(logged_in, revision, woken):
    text = HEADER + "parallelism: 8\n"
    typed = "GangScheduling=true, Nope=1"

    response = logged_in.post("/w/lab/profile/apply/", {"text": text, "feature_gates": typed})

    content = response.content.decode()
    assert response.status_code == 422
    assert "<code>--feature-gates</code>: unrecognized feature gate: Nope" in content
    assert (text_area(content), gates_field(content)) == (text, typed)
    assert SchedulerConfiguration.objects.count() == 1
    assert not SchedulerCommand.objects.exists()
    assert woken == []


def test_applying_gates_stores_a_revision_with_them_and_sends_it_to_the_scheduler(
    logged_in, revision, woken
):
    gates = "NodeDeclaredFeatures=false , InPlacePodLevelResourcesVerticalScaling=false"

    response = logged_in.post("/w/lab/profile/apply/", {"text": HEADER, "feature_gates": gates})

    assert response.status_code == 302
    latest = revision.workspace.current_configuration()
    assert (latest.revision, latest.feature_gates) == (2, WITHOUT_NODE_DECLARED_FEATURES)
    command = SchedulerCommand.objects.get()
    assert (command.kind, command.payload) == ("apply-configuration", {"revision": 2})
    assert woken == [revision.workspace]


def test_emptying_the_gates_goes_back_to_the_defaults(logged_in, revision, woken):
    logged_in.post("/w/lab/profile/apply/", {"text": HEADER, "feature_gates": ""})

    assert revision.workspace.current_configuration().feature_gates == ""
    content = logged_in.get("/w/lab/profile/").content.decode()
    assert gates_field(content) == ""
    assert 'data-testid="changed-gates"' not in content


def test_a_form_button_keeps_the_gates_and_checks_under_them(htmx, workspace):
    data = {
        "text": HEADER,
        "feature_gates": WITHOUT_NODE_DECLARED_FEATURES,
        "op": "disable:filter:NodePorts",
    }

    content = htmx.post("/w/lab/profile/edit/", data).content.decode()

    # The form wrote the profile's filter plugins out as the gates make them, less NodePorts.
    text = text_area(content)
    assert gates_field(content) == WITHOUT_NODE_DECLARED_FEATURES
    assert "name: NodeResourcesFit" in text
    assert "NodePorts" not in text
    assert "NodeDeclaredFeatures" not in text


@pytest.mark.parametrize(
    ("lease_seconds", "sentence"),
    [
        (
            30,
            "The scheduler runs revision 2 with the feature gates "
            "<code>StorageCapacityScoring=true</code>.",
        ),
        (
            -5,
            "No scheduler runs now; the last one ran revision 2 with the feature gates "
            "<code>StorageCapacityScoring=true</code>.",
        ),
    ],
    ids=["a scheduler runs", "its lease lapsed"],
)
def test_the_page_says_which_revision_and_gates_the_scheduler_runs_with(
    logged_in, workspace, revision, lease_seconds, sentence
):
    SchedulerStatus.objects.create(
        workspace=workspace, revision=2, feature_gates="StorageCapacityScoring=true"
    )
    expires = timezone.now() + timedelta(seconds=lease_seconds)
    SchedulerLease.objects.create(workspace=workspace, holder="w1:7:task", expires_at=expires)

    content = logged_in.get("/w/lab/profile/").content.decode()
    live = workspace_resync(workspace, LiveView.from_query("view=profile"))

    assert sentence in content
    assert sentence in live
    assert 'id="running-configuration"' in live


def test_before_any_scheduler_ran_the_page_says_so(logged_in, revision):
    content = logged_in.get("/w/lab/profile/").content.decode()

    assert "No scheduler has run yet." in content


def test_a_scheduler_on_the_defaults_says_so(logged_in, workspace, revision):
    SchedulerStatus.objects.create(workspace=workspace, revision=None, feature_gates="")

    content = logged_in.get("/w/lab/profile/").content.decode()

    assert "the default configuration with the v1.36 default feature gates." in content


def test_the_overview_names_the_latest_revisions_gates(logged_in, revision):
    content = logged_in.get("/w/lab/").content.decode()

    assert "Feature gates: <code>StorageCapacityScoring=true</code>" in content
    SchedulerConfiguration.objects.create(workspace=revision.workspace, revision=2, text=HEADER)
    assert 'Feature gates: <span class="muted">the v1.36 defaults</span>' in (
        logged_in.get("/w/lab/").content.decode()
    )


def test_recorded_gates_this_engine_no_longer_knows_are_shown_as_recorded(logged_in, workspace):
    SchedulerStatus.objects.create(workspace=workspace, revision=4, feature_gates="Retired=true")

    content = logged_in.get("/w/lab/profile/").content.decode()

    assert "revision 4 with the feature gates <code>Retired=true</code>." in content


def test_the_breakpoint_form_offers_the_plugins_the_gates_give(workspace):
    def pre_filter(gates: str) -> list[str]:
        SchedulerConfiguration.objects.filter(workspace=workspace).delete()
        SchedulerConfiguration.objects.create(
            workspace=workspace, revision=1, text=HEADER, feature_gates=gates
        )
        (profile,) = workspace_profiles(workspace)
        return [name for name, _ in profile.points["preFilter"]]

    assert "NodeDeclaredFeatures" in pre_filter("")
    assert "NodeDeclaredFeatures" not in pre_filter(WITHOUT_NODE_DECLARED_FEATURES)
