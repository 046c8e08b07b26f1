"""Workspace services: creation with the default configuration, validated revisions."""

from __future__ import annotations

import pytest

from framework.config.defaults import default_configuration, set_defaults
from framework.config.load import load_config
from framework.config.validation import validate
from playground.workspaces import demo
from playground.workspaces.services import (
    add_configuration_revision,
    configuration_problems,
    create_workspace,
    default_configuration_text,
    workspace_name_problem,
)

CUSTOM = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: bin-packer
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: MostAllocated}
"""


def test_a_new_workspace_starts_with_the_default_configuration_as_revision_one(user):
    workspace = create_workspace(user, "Team Lab")
    (revision,) = workspace.configurations.all()
    assert (revision.revision, revision.created_by) == (1, user)
    cfg = set_defaults(load_config(revision.text.encode()))
    assert validate(cfg) == []
    assert cfg == default_configuration()


def test_slugs_come_from_names_and_stay_unique(user):
    slugs = [create_workspace(user, "Team Lab").slug for _ in range(3)]
    assert slugs == ["team-lab", "team-lab-2", "team-lab-3"]
    assert create_workspace(user, "Other", slug="mine").slug == "mine"
    assert create_workspace(user, "Café crème").slug == "cafe-creme"


def test_a_name_without_a_letter_or_digit_gives_no_slug_and_is_refused(user):
    with pytest.raises(ValueError, match="use at least one letter"):
        create_workspace(user, "!!!")
    assert create_workspace(user, "!!!", slug="bangs").slug == "bangs"


def test_a_workspace_can_start_with_objects(user):
    manifests = demo.demo_manifests()
    workspace = create_workspace(user, "Lab", manifests=manifests, feature_gates=demo.FEATURE_GATES)
    kinds = workspace.cluster_objects.values_list("kind", flat=True)
    assert kinds.filter(kind="Node").count() == sum(m["kind"] == "Node" for m in manifests)
    # The scheduler hears of each, and of the claim made for the pod with a claim template.
    assert workspace.changes.count() == len(demo.demo_manifests()) + 1


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Garden", ""),
        ("lab", "you already have a workspace named “Lab”: choose another name"),
        (
            "!!!",
            "use at least one letter (a to z) or digit: the workspace's address is made of them",
        ),
        (
            "  ",
            "use at least one letter (a to z) or digit: the workspace's address is made of them",
        ),
        (
            "日本",
            "use at least one letter (a to z) or digit: the workspace's address is made of them",
        ),
        ("Lab 2", ""),
    ],
    ids=["a new name", "a name taken", "punctuation only", "blank", "no latin letter", "another"],
)
def test_a_workspace_name_is_checked_per_owner(user, name, problem):
    create_workspace(user, "Lab")
    assert workspace_name_problem(user, name) == problem


def test_two_owners_may_use_the_same_name(user, django_user_model):
    create_workspace(user, "Lab")
    other = django_user_model.objects.create_user("bob")
    assert workspace_name_problem(other, "Lab") == ""


def test_a_valid_configuration_becomes_the_next_revision(user):
    workspace = create_workspace(user, "Lab")
    revision, problems = add_configuration_revision(workspace, CUSTOM, user, note="bin-packing")
    assert problems == []
    assert (revision.revision, revision.note, revision.text) == (2, "bin-packing", CUSTOM)
    assert workspace.current_configuration() == revision


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [("", "the configuration is empty")]),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "parallelism: 0\n",
            [("parallelism", "Invalid value: 0: should be an integer value greater than zero")],
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "parallelism: many\n",
            None,
        ),
    ],
    ids=["an empty text", "a value validation refuses", "a value that does not decode"],
)
def test_an_invalid_configuration_is_refused_with_its_problems(user, text, expected):
    workspace = create_workspace(user, "Lab")
    revision, problems = add_configuration_revision(workspace, text, user)
    assert revision is None
    assert workspace.configurations.count() == 1
    if expected is not None:
        assert [(p.field, p.message) for p in problems] == expected
    else:
        assert len(problems) == 1
        assert problems[0].field == ""
        assert "parallelism" in problems[0].message


def test_the_default_text_is_what_kube_scheduler_prints():
    assert configuration_problems(default_configuration_text()) == []
    assert "leaderElect: false" in default_configuration_text()
