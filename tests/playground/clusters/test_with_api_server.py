"""Test connection against a real HTTP Kubernetes API server (the ``kube_api`` fixture of
tests/kube/, issue 12): the version, each permission allowed or denied, and each failure's
message. Skipped while that fixture does not exist."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from playground.clusters.access import PERMISSIONS
from playground.clusters.connecting import probe, target_from_text
from playground.clusters.models import ClusterConnection
from tests.playground.clusters.kubeconfigs import kubeconfig, self_signed_ca_pem

VERSION = "v1.36.2"
DENIED = ("create pods/binding", "delete pods")


@pytest.fixture
def api_server(kube_api):
    """The Kubernetes API server for tests (tests/kube/), or a real cluster with
    PLAYGROUND_TEST_KUBECONFIG."""
    return kube_api


@pytest.fixture
def denying(api_server):
    api_server.deny("create", "pods/binding")
    api_server.deny("delete", "pods")
    return api_server


def report_of(text: str):
    return probe(target_from_text(text))


def test_the_version_and_every_permission_allowed_or_denied(denying):
    report = report_of(denying.kubeconfig_text())
    assert report.problem == ""
    assert report.version == VERSION
    answers = {answer.label: answer.allowed for answer in report.answers}
    assert list(answers) == [permission.label for permission in PERMISSIONS]
    assert [label for label, allowed in answers.items() if not allowed] == list(DENIED)
    assert answers["list nodes"] and answers["watch poddisruptionbudgets.policy"]
    assert answers["create events.events.k8s.io"] and answers["update leases.coordination.k8s.io"]


def test_a_wrong_or_expired_token_is_401(api_server):
    text = kubeconfig(server=api_server.url, ca_pem=api_server.ca_pem, token="wrong-token")
    assert report_of(text).problem.startswith("401 Unauthorized: the API server rejected")
    api_server.expire_token()  # the admin user's token
    assert report_of(api_server.kubeconfig_text()).problem.startswith("401 Unauthorized")


def test_a_certificate_signed_by_another_ca_fails_tls_verification(api_server):
    text = kubeconfig(server=api_server.url, ca_pem=self_signed_ca_pem(), token=api_server.token)
    assert report_of(text).problem == (
        f"TLS verification failed at {api_server.url}: the server's certificate is not signed "
        f"by the kubeconfig's certificate-authority-data (or does not name this host)"
    )


def test_a_stopped_server_is_unreachable(api_server):
    text = api_server.kubeconfig_text()
    url = api_server.url
    api_server.stop()
    try:
        assert (
            report_of(text).problem == f"the API server at {url} is unreachable: connection refused"
        )
    finally:
        api_server.start()


def test_the_page_saves_a_reachable_connection_and_shows_its_answers(client, user, denying):
    client.force_login(user)
    response = client.post(
        reverse("connection-new"), {"name": "lab", "kubeconfig": denying.kubeconfig_text()}
    )
    assert response.status_code == 302
    connection = ClusterConnection.objects.get()
    assert connection.server == denying.url
    response = client.post(reverse("connection-test", args=[connection.pk]), follow=True)
    page = response.content.decode()
    assert f'<strong id="server-version">{VERSION}</strong>' in page
    for label in DENIED:
        row = page.split(f'data-permission="{label}"')[1].split("</tr>")[0]
        assert "denied" in row
    assert "allowed" in page.split('data-permission="list nodes"')[1].split("</tr>")[0]
    assert denying.token not in page


def test_the_command_prints_the_answers_and_no_token(user, denying, tmp_path):
    path = tmp_path / "config"
    path.write_text(denying.kubeconfig_text())
    out = io.StringIO()
    call_command("cluster", "add", "lab", "--owner", "ada", "--kubeconfig", str(path), stdout=out)
    call_command("cluster", "test", "lab", stdout=out)
    text = out.getvalue()
    assert f"Server version {VERSION}" in text
    assert "DENIED   create pods/binding  [second scheduler (off)]" in text
    assert "allowed  list nodes  [mirror]" in text
    assert denying.token not in text
    denying.expire_token()
    with pytest.raises(CommandError, match="Test connection failed"):
        call_command("cluster", "test", "lab", stdout=out, stderr=io.StringIO())
