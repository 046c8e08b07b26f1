"""The admin's pages of what the scheduler recorded: read-only, and as fast with many rows."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from playground.workspaces.models import AttemptTrace, SchedulingAttempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    return client


def attempts(workspace, count: int) -> list[SchedulingAttempt]:
    return SchedulingAttempt.objects.bulk_create(
        SchedulingAttempt(
            workspace=workspace,
            pod_key=f"default/p{i}",
            pod_uid=uuid.uuid4().hex,
            profile="default-scheduler",
            result="Scheduled",
            node="n1",
        )
        for i in range(count)
    )


def render(client: Client, url: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(response.content), len(queries)


@pytest.mark.parametrize("model", ["schedulingattempt", "attempttrace"])
def test_a_recorded_page_does_not_grow_with_the_number_of_attempts(admin_client, workspace, model):
    [first] = attempts(workspace, 1)
    trace = AttemptTrace.objects.create(attempt=first, data=b"", event_count=3, raw_size=10)
    pk = first.pk if model == "schedulingattempt" else trace.pk
    url = f"/admin/workspaces/{model}/{pk}/change/"
    render(admin_client, url)  # the first request of a session reads what later ones cache
    size, queries = render(admin_client, url)

    attempts(workspace, 300)

    assert render(admin_client, url) == (size, queries)


@pytest.mark.parametrize("model", ["schedulingattempt", "attempttrace"])
def test_recorded_attempts_cannot_be_added_or_edited_by_hand(admin_client, workspace, model):
    [first] = attempts(workspace, 1)
    AttemptTrace.objects.create(attempt=first, data=b"", event_count=3, raw_size=10)
    pk = first.pk if model == "schedulingattempt" else first.trace.pk

    assert admin_client.get(f"/admin/workspaces/{model}/add/").status_code == 403
    response = admin_client.post(f"/admin/workspaces/{model}/{pk}/change/", {"node": "n2"})
    assert response.status_code == 403
    assert SchedulingAttempt.objects.get(pk=first.pk).node == "n1"


def test_every_model_has_a_plural_in_english(admin_client):
    index = admin_client.get("/admin/").content.decode()
    assert "Scheduler statuses" in index
    assert "statuss" not in index
