"""The token never shows: not in the admin, a log line, the workspace's export, or an error."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from playground.clusters.connecting import retest
from playground.clusters.models import ClusterConnection
from tests.playground.clusters.kubeconfigs import TOKEN, closed_port_url, kubeconfig
from tests.playground.conftest import PASSWORD


@pytest.fixture
def admin_client(client, db):
    admin = get_user_model().objects.create_superuser("root", password=PASSWORD)
    client.force_login(admin)
    return client


@pytest.fixture
def stored(user, workspace):
    connection = ClusterConnection(
        name="prod", owner=user, context="test", workspace=workspace, server=closed_port_url()
    )
    connection.set_kubeconfig(kubeconfig(server=connection.server))
    connection.save()
    return connection


def test_the_admin_shows_that_credentials_are_stored_never_them(admin_client, stored):
    change = reverse("admin:clusters_clusterconnection_change", args=[stored.pk])
    page = admin_client.get(change).content.decode()
    assert "stored encrypted; replace them by uploading a kubeconfig" in page
    assert TOKEN not in page
    assert stored.kubeconfig_encrypted not in page
    listing = admin_client.get(reverse("admin:clusters_clusterconnection_changelist"))
    assert "prod" in listing.content.decode() and TOKEN not in listing.content.decode()
    assert admin_client.get(reverse("admin:clusters_clusterconnection_add")).status_code == 403


def test_saving_in_the_admin_keeps_the_credentials_and_the_switches(admin_client, stored):
    change = reverse("admin:clusters_clusterconnection_change", args=[stored.pk])
    response = admin_client.post(
        change,
        {"name": "renamed", "namespaces": "", "label_selector": "", "second_scheduler": "on"},
    )
    assert response.status_code == 302
    stored.refresh_from_db()
    assert stored.name == "renamed"
    assert not stored.second_scheduler  # only the page, after its confirmation, turns it on
    assert stored.kubeconfig_text() == kubeconfig(server=stored.server)


def test_no_log_line_carries_the_token(client, user, stored, caplog):
    client.force_login(user)
    with caplog.at_level(logging.DEBUG):
        client.post(
            reverse("connection-new"),
            {"name": "other", "kubeconfig": kubeconfig(server=closed_port_url())},
        )
        client.post(reverse("connection-test", args=[stored.pk]))
        retest(stored)
    assert "connection refused" in stored.last_test["problem"]
    assert any("tested" in record.getMessage() for record in caplog.records)
    assert TOKEN not in caplog.text


def test_the_workspace_export_has_no_credential(client, user, stored):
    client.force_login(user)
    response = client.get(reverse("export", args=[stored.workspace.slug]))
    assert response.status_code == 200
    assert TOKEN not in response.content.decode()


def test_errors_do_not_quote_the_kubeconfig(client, user):
    client.force_login(user)
    broken = kubeconfig().replace("kind: Config", f"kind: Config\n{TOKEN}: [")
    response = client.post(reverse("connection-new"), {"name": "x", "kubeconfig": broken})
    page = response.content.decode()
    assert response.status_code == 422
    assert "kubeconfig: not valid YAML" in page
    assert TOKEN not in page
