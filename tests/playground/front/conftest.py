"""Logged-in clients and a second user for the front's tests (``user``, ``workspace`` and
``cluster`` come from tests/playground/conftest.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.playground.conftest import PASSWORD


@pytest.fixture
def stranger(db):
    """A user who is neither owner nor member of the workspace."""
    return get_user_model().objects.create_user("eve", password=PASSWORD)


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
