"""The project passes Django's checks and its front door sends people to log in."""

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client


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


@pytest.mark.parametrize(
    "path", ["vendor/htmx.min.js", "vendor/htmx-ext-ws.min.js", "css/playground.css"]
)
def test_the_web_process_serves_static_files_with_debug_off(settings, tmp_path, path):
    """Production runs daphne, which has no static file server: the app must serve them."""
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", "--noinput", verbosity=0)

    response = Client().get(f"/static/{path}")

    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert body == (settings.BASE_DIR / "static" / path).read_bytes()


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/login/", "/admin/login/"])
def test_every_page_finds_the_icon_even_one_that_names_none(client, page):
    """The admin's pages name no icon, so browsers ask for /favicon.ico there (it was a 404)."""
    assert client.get(page).status_code == 200
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/img/favicon.svg")
    assert finders.find("img/favicon.svg") is not None
