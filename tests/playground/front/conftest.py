"""Users, workspaces and logged-in clients for the front's tests."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from playground.workspaces.models import Workspace

PASSWORD = "correct horse battery staple"


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("ada", password=PASSWORD)


@pytest.fixture
def stranger(db):
    return get_user_model().objects.create_user("eve", password=PASSWORD)


@pytest.fixture
def workspace(user):
    return Workspace.objects.create(name="Lab", slug="lab", owner=user)


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def htmx(logged_in):
    """A logged-in client whose requests say they come from htmx."""
    logged_in.defaults["HTTP_HX_REQUEST"] = "true"
    return logged_in


@pytest.fixture(autouse=True)
def woken(monkeypatch):
    """Workspaces whose scheduler the pages asked to start (no task is really enqueued)."""
    calls = []
    monkeypatch.setattr("playground.front.commands.ensure_scheduler_running", calls.append)
    return calls
