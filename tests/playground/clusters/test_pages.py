"""The connections pages: create (tested first), errors keep what was typed, access, settings
with the second scheduler's confirmation, delete."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from playground.clusters.access import AccessReport
from playground.clusters.models import ClusterConnection
from tests.playground.clusters.kubeconfigs import TOKEN, closed_port_url, kubeconfig
from tests.playground.conftest import PASSWORD

NEW = reverse("connection-new")


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def stored(user):
    connection = ClusterConnection(
        name="prod", owner=user, context="test", server="https://127.0.0.1:6443"
    )
    connection.set_kubeconfig(kubeconfig(server=closed_port_url()))
    connection.save()
    return connection


def sealed_of(page: str) -> str:
    return re.search(r'name="sealed" value="([^"]+)"', page).group(1)


def test_every_page_needs_a_login(client, stored):
    for url in (reverse("connections"), NEW, stored.get_absolute_url()):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_another_user_gets_a_404_and_does_not_see_it_listed(client, stored):
    get_user_model().objects.create_user("eve", password=PASSWORD)
    client.login(username="eve", password=PASSWORD)
    for name in ("connection", "connection-edit", "connection-delete"):
        assert client.get(reverse(name, args=[stored.pk])).status_code == 404
    assert client.post(reverse("connection-test", args=[stored.pk])).status_code == 404
    assert "prod" not in client.get(reverse("connections")).content.decode()
    assert ClusterConnection.objects.filter(pk=stored.pk).exists()


def test_a_kubeconfig_error_is_shown_next_to_the_field_and_the_rest_is_kept(logged_in):
    broken = kubeconfig().replace("cluster: lab", "cluster: x")
    response = logged_in.post(
        NEW, {"name": "prod", "kubeconfig": broken, "namespaces": "shop", "label_selector": "a=b"}
    )
    page = response.content.decode()
    assert response.status_code == 422
    assert "contexts[0].context.cluster: cluster &quot;x&quot; is not defined" in page
    assert 'value="prod"' in page and 'value="shop"' in page and 'value="a=b"' in page
    assert TOKEN not in page
    assert 'name="sealed"' not in page  # a kubeconfig that fails its checks is not kept
    assert not ClusterConnection.objects.exists()


def test_a_wrong_context_keeps_the_kubeconfig_sealed_and_offers_its_contexts(logged_in):
    response = logged_in.post(NEW, {"name": "prod", "kubeconfig": kubeconfig(), "context": "x"})
    page = response.content.decode()
    assert response.status_code == 422
    assert "context: &quot;x&quot; is not in the kubeconfig (it has: test)" in page
    assert '<option value="test"' in page
    assert TOKEN not in page
    assert sealed_of(page)
    assert not ClusterConnection.objects.exists()


def test_an_unreachable_server_is_not_saved_until_save_anyway_is_ticked(logged_in, user):
    server = closed_port_url()
    response = logged_in.post(
        NEW, {"name": "prod", "kubeconfig": kubeconfig(server=server), "label_selector": "app=web"}
    )
    page = response.content.decode()
    assert response.status_code == 422
    assert f"the API server at {server} is unreachable: connection refused" in page
    assert 'name="save_anyway"' in page
    assert TOKEN not in page
    assert not ClusterConnection.objects.exists()

    response = logged_in.post(
        NEW,
        {
            "name": "prod",
            "sealed": sealed_of(page),
            "label_selector": "app=web",
            "save_anyway": "on",
        },
    )
    connection = ClusterConnection.objects.get()
    assert response.status_code == 302
    assert response["Location"] == connection.get_absolute_url()
    assert (connection.owner, connection.server, connection.context) == (user, server, "test")
    assert connection.label_selector == "app=web"
    assert connection.kubeconfig_text() == kubeconfig(server=server)
    assert AccessReport.from_dict(connection.last_test).problem.endswith("connection refused")
    detail = logged_in.get(response["Location"]).content.decode()
    assert "connection refused" in detail and TOKEN not in detail


def test_an_uploaded_kubeconfig_is_read_like_a_pasted_one(logged_in):
    upload = SimpleUploadedFile("config", kubeconfig(server=closed_port_url()).encode())
    response = logged_in.post(NEW, {"name": "prod", "kubeconfig_file": upload, "save_anyway": "on"})
    assert response.status_code == 302
    assert ClusterConnection.objects.get().context == "test"


def test_a_sealed_kubeconfig_that_was_tampered_with_asks_to_paste_it_again(logged_in):
    response = logged_in.post(NEW, {"name": "prod", "sealed": "gAAAAAforged"})
    assert response.status_code == 422
    assert "the kubeconfig given earlier expired: paste it again" in response.content.decode()


def test_selectors_and_names_are_checked(logged_in, stored):
    response = logged_in.post(
        NEW,
        {
            "name": "prod",
            "kubeconfig": kubeconfig(),
            "namespaces": "shop, Bad_NS",
            "label_selector": "app in (web",
        },
    )
    page = response.content.decode()
    assert response.status_code == 422
    assert "you already have a connection named &quot;prod&quot;" in page
    assert "&quot;Bad_NS&quot; is not a namespace name" in page
    assert "unable to parse requirement" in page


def test_in_cluster_needs_no_kubeconfig_and_refuses_one(logged_in, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    response = logged_in.post(NEW, {"name": "here", "in_cluster": "on", "kubeconfig": kubeconfig()})
    assert "an in-cluster connection uses no kubeconfig" in response.content.decode()
    response = logged_in.post(NEW, {"name": "here", "in_cluster": "on"})
    assert response.status_code == 422
    assert "in-cluster: not running inside a cluster&#x27;s pod" in response.content.decode()


def test_test_connection_stores_the_report_and_shows_it(logged_in, stored):
    response = logged_in.post(reverse("connection-test", args=[stored.pk]), follow=True)
    page = response.content.decode()
    assert response.redirect_chain == [(stored.get_absolute_url(), 302)]
    assert 'id="connection-problem"' in page and "connection refused" in page
    stored.refresh_from_db()
    assert "connection refused" in stored.last_test["problem"]
    assert TOKEN not in page


def test_the_second_scheduler_asks_for_a_confirmation_before_it_is_on(logged_in, stored):
    url = reverse("connection-edit", args=[stored.pk])
    response = logged_in.post(url, {"second_scheduler": "on", "namespaces": "shop"})
    page = response.content.decode()
    assert response.status_code == 422
    assert 'id="confirm-second-scheduler"' in page
    assert 'value="shop"' in page
    stored.refresh_from_db()
    assert not stored.second_scheduler

    response = logged_in.post(
        url, {"second_scheduler": "on", "preemption": "on", "confirm": "on", "namespaces": "shop"}
    )
    assert response.status_code == 302
    stored.refresh_from_db()
    assert (stored.second_scheduler, stored.preemption, stored.namespaces) == (True, True, "shop")
    # Already on: saving other settings asks nothing.
    response = logged_in.post(url, {"second_scheduler": "on", "label_selector": "app=web"})
    assert response.status_code == 302


def test_preemption_needs_the_second_scheduler(logged_in, stored):
    response = logged_in.post(reverse("connection-edit", args=[stored.pk]), {"preemption": "on"})
    assert response.status_code == 422
    assert "preemption needs the second scheduler on" in response.content.decode()


def test_new_credentials_replace_the_old_ones_and_are_tested(logged_in, stored):
    server = closed_port_url()
    response = logged_in.post(
        reverse("connection-edit", args=[stored.pk]),
        {"kubeconfig": kubeconfig(server=server, token="another-token")},
    )
    assert response.status_code == 302
    stored.refresh_from_db()
    assert "another-token" in stored.kubeconfig_text()
    assert stored.server == server
    assert "connection refused" in stored.last_test["problem"]
    page = logged_in.get(reverse("connection-edit", args=[stored.pk])).content.decode()
    assert "another-token" not in page


def test_delete_asks_then_deletes(logged_in, stored):
    url = reverse("connection-delete", args=[stored.pk])
    assert "Delete connection prod?" in logged_in.get(url).content.decode()
    assert ClusterConnection.objects.filter(pk=stored.pk).exists()
    response = logged_in.post(url)
    assert response["Location"] == reverse("connections")
    assert not ClusterConnection.objects.filter(pk=stored.pk).exists()


def test_the_list_shows_server_context_and_last_test(logged_in, stored):
    page = logged_in.get(reverse("connections")).content.decode()
    assert "https://127.0.0.1:6443" in page and ">test<" in page and "never" in page
