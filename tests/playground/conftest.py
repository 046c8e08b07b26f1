"""Fixtures every playground test may use: a user, their workspace and its cluster."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

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
