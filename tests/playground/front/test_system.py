"""The project passes Django's checks and its front door sends people to log in."""

import pytest
from django.core.management import call_command


def test_django_system_checks_pass():
    call_command("check", "--fail-level", "WARNING")


@pytest.mark.django_db
def test_the_front_door_asks_anonymous_visitors_to_log_in(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/"


def test_the_front_door_leads_to_the_workspaces(logged_in):
    response = logged_in.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/w/"
