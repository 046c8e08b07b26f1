"""Migrations of the workspaces app that change stored rows, run forwards from the migration
before them (``at``: tests/playground/conftest.py)."""

from __future__ import annotations

BEFORE_NUMBERS = [("workspaces", "0005_stop_command")]
NUMBERS = [("workspaces", "0006_attempt_number")]


def test_attempts_stored_before_numbers_are_numbered_per_pod_in_their_order(at):
    apps = at(BEFORE_NUMBERS)
    user = apps.get_model("auth", "User").objects.create(username="ada")
    workspaces = apps.get_model("workspaces", "Workspace").objects
    lab = workspaces.create(name="Lab", slug="lab", owner=user)
    other = workspaces.create(name="Other", slug="other", owner=user)
    attempts = apps.get_model("workspaces", "SchedulingAttempt").objects
    stored = [
        attempts.create(workspace=workspace, pod_key=f"default/{uid}", pod_uid=uid, cycle=1)
        for workspace, uid in [(lab, "a"), (lab, "b"), (other, "a"), (lab, "a"), (lab, "a")]
    ]

    apps = at(NUMBERS)

    numbered = apps.get_model("workspaces", "SchedulingAttempt").objects
    numbers = dict(numbered.values_list("pk", "number"))
    assert [numbers[attempt.pk] for attempt in stored] == [1, 1, 1, 2, 3]
