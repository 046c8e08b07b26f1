"""Who may read /metrics: a scraper with the token, a staff member; nobody else."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.playground.metrics.scrape import TOKEN

pytestmark = pytest.mark.django_db


def test_it_refuses_a_request_without_credentials(client):
    response = client.get("/metrics")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "header",
    ["Bearer wrong", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer "],
)
def test_it_refuses_a_wrong_token(client, header):
    assert client.get("/metrics", HTTP_AUTHORIZATION=header).status_code == 401


def test_it_serves_a_scraper_with_the_token(client):
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert b"# TYPE scheduler_schedule_attempts_total counter" in response.content
    assert TOKEN.encode() not in response.content


def test_no_configured_token_lets_no_scraper_in(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 401


def test_it_serves_a_staff_session_but_not_another_user(client, user):
    client.force_login(user)
    assert client.get("/metrics").status_code == 401
    staff = get_user_model().objects.create_user("grace", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get("/metrics").status_code == 200
