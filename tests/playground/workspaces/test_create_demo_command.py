"""``manage.py create_demo``: an administrator and the demo workspace, safe to run every time."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import Client

from playground.workspaces.models import Workspace

pytestmark = pytest.mark.django_db


def create_demo(*args: str) -> str:
    out = StringIO()
    call_command("create_demo", *args, stdout=out)
    return out.getvalue()


def test_it_creates_an_administrator_with_a_printed_password_and_the_demo():
    output = create_demo()
    password = re.search(r"Log in as admin with password (\S+) \(new administrator\)", output)
    assert password is not None
    user = authenticate(username="admin", password=password.group(1))
    assert user is not None and user.is_superuser
    demo = Workspace.objects.get(slug="demo")
    assert demo.owner == user
    assert 'Demo workspace "Demo" (/w/demo/): 14 nodes, 23 pods.' in output


def test_a_second_run_changes_nothing():
    create_demo("--password", "first")
    output = create_demo()
    assert "Log in as admin (existing user, password unchanged)." in output
    assert authenticate(username="admin", password="first") is not None
    assert Workspace.objects.count() == 1


def test_a_given_username_and_password_are_used_and_a_password_can_be_reset():
    output = create_demo("--username", "ada", "--password", "s3cret")
    assert "Log in as ada with password s3cret (new administrator)." in output
    output = create_demo("--username", "ada", "--password", "n3w")
    assert "(password reset)" in output
    assert authenticate(username="ada", password="n3w") is not None
    assert get_user_model().objects.count() == 1


def test_the_same_password_again_keeps_the_hash_and_every_session_logged_in():
    create_demo("--password", "same")
    browser = Client()
    assert browser.login(username="admin", password="same")
    hashed = get_user_model().objects.get(username="admin").password
    assert browser.get("/w/").status_code == 200

    output = create_demo("--password", "same")

    assert "Log in as admin with password same (unchanged)." in output
    assert get_user_model().objects.get(username="admin").password == hashed
    assert browser.get("/w/").status_code == 200


def test_a_new_password_logs_the_old_sessions_out():
    create_demo("--password", "old")
    browser = Client()
    assert browser.login(username="admin", password="old")
    create_demo("--password", "new")
    assert browser.get("/w/").status_code == 302
