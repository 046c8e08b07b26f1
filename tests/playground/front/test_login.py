"""Logging in and out with Django's auth views, CSRF included."""

import pytest
from django.test import Client

from tests.playground.conftest import PASSWORD


def test_the_login_page_names_the_product(client, db):
    response = client.get("/login/")
    assert response.status_code == 200
    assert b"Scheduler Playground" in response.content
    assert b'name="csrfmiddlewaretoken"' in response.content


def test_a_user_logs_in_and_lands_on_the_workspaces(client, user):
    response = client.post("/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/w/"


def test_a_wrong_password_is_refused(client, user):
    response = client.post("/login/", {"username": "ada", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_logging_in_without_the_csrf_token_is_forbidden(user):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 403


def test_logging_out_ends_the_session(logged_in):
    response = logged_in.post("/logout/")
    assert response.status_code == 302
    assert logged_in.get("/w/").status_code == 302


@pytest.mark.parametrize("page", ["/w/", "/login/"], ids=["workspaces page", "login page"])
def test_pages_load_htmx_and_its_websocket_extension_from_our_own_static_files(logged_in, page):
    content = logged_in.get(page).content.decode()
    assert '<script src="/static/vendor/htmx.min.js"' in content
    assert '<script src="/static/vendor/htmx-ext-ws.min.js"' in content
