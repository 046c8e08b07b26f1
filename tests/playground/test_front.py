"""The playground starts and serves its landing page."""

import pytest


@pytest.mark.django_db
def test_the_landing_page_names_the_product(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Scheduler Playground" in response.content


def test_django_system_checks_pass():
    from django.core.management import call_command

    call_command("check", "--fail-level", "WARNING")
