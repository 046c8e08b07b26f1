"""Fixtures every playground test may use: a user, their workspace and its cluster; a database
migrated to a given migration, for the tests of migrations that change stored rows."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

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


@pytest.fixture
def at(transactional_db):
    """``at(target)``: the database migrated to ``target``; the historical models' registry."""

    def migrate(target):
        executor = MigrationExecutor(connection)
        executor.migrate(target)
        return executor.loader.project_state(target).apps

    yield migrate
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
