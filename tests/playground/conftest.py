"""Fixtures every playground test may use: a user, their workspace and its cluster."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from playground.scheduling import binding
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import Workspace

PASSWORD = "correct horse battery staple"


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("ada", password=PASSWORD)


@pytest.fixture
def workspace(user):
    return Workspace.objects.create(name="Lab", slug="lab", owner=user)


@pytest.fixture
def cluster(workspace):
    return DatabaseCluster(workspace)


@pytest.fixture(autouse=True)
def fresh_binders(monkeypatch):
    """Binding tasks keep their schedulers by workspace id and revision, which never name two
    configurations in a database; a test's rolled-back database gives the next test's
    workspace the same id, so every test starts with none kept."""
    monkeypatch.setattr(binding, "_binders", binding._Binders())
