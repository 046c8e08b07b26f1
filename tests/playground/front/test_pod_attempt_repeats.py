"""A pod's attempts list shows identical attempts stored once with how many there were and
when the first and the last were made (a failed gang is retried without pause)."""

from __future__ import annotations

import datetime as dt

from playground.workspaces.models import SchedulingAttempt
from tests.playground.front.rows import pod, store

FIRST = dt.datetime(2026, 5, 1, 12, 1, 3, tzinfo=dt.UTC)


def test_a_folded_attempt_shows_its_count_and_first_and_last_time(logged_in, workspace, settings):
    settings.TIME_ZONE = "UTC"
    store(workspace, pod("trainer-0"))
    folded = SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key="default/trainer-0",
        pod_uid="uid-trainer-0",
        result="Unschedulable",
        message="pod group is unschedulable",
        repeats=312,
        last_attempted=FIRST + dt.timedelta(seconds=37),
    )
    SchedulingAttempt.objects.filter(pk=folded.pk).update(created=FIRST)
    SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/trainer-0", pod_uid="uid-trainer-0", result="Error"
    )

    content = logged_in.get("/w/lab/pods/uid-trainer-0/").content.decode()

    assert "\N{MULTIPLICATION SIGN} 312</span>, 12:01:03\N{EN DASH}12:01:40" in content
    assert content.count('class="repeats"') == 1  # an attempt made once shows its time only
