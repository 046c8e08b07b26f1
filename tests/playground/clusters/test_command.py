"""``manage.py cluster``: add (tested first), list, test, remove; never prints a credential."""

from __future__ import annotations

import base64
import io
import sys

import pytest
import yaml
from django.core.management import CommandError, call_command

from playground.clusters.connecting import target_from_text
from playground.clusters.kubeconfig import KubeconfigError, embed_files
from playground.clusters.models import ClusterConnection
from tests.playground.clusters.kubeconfigs import (
    TOKEN,
    closed_port_url,
    kubeconfig,
    kubeconfig_document,
)


def run(*args: str, stdin: str = "") -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin:
        saved, sys.stdin = sys.stdin, io.StringIO(stdin)
        try:
            call_command("cluster", *args, stdout=out, stderr=err)
        finally:
            sys.stdin = saved
    else:
        call_command("cluster", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "config"
    path.write_text(kubeconfig(server=closed_port_url()))
    return path


def test_add_refuses_a_connection_whose_test_fails_unless_saved_anyway(user, config_file):
    with pytest.raises(CommandError, match="not saved: Test connection failed"):
        run("add", "prod", "--owner", "ada", "--kubeconfig", str(config_file))
    assert not ClusterConnection.objects.exists()
    out, err = run(
        "add", "prod", "--owner", "ada", "--kubeconfig", str(config_file), "--save-anyway",
        "--namespaces", "shop,web", "--selector", "app=web",
    )  # fmt: skip
    assert "connection refused" in err
    connection = ClusterConnection.objects.get()
    assert f'Connection "prod" saved (id {connection.pk}).' in out
    assert (connection.namespaces, connection.label_selector) == ("shop, web", "app=web")
    assert connection.kubeconfig_text() == config_file.read_text()
    assert TOKEN not in out + err


def test_add_reads_stdin_and_names_kubeconfig_problems(user):
    with pytest.raises(CommandError, match=r"^users\[0\]\.user\.exec: refused"):
        run(
            "add", "prod", "--owner", "ada", "--kubeconfig", "-",
            stdin=yaml.safe_dump(kubeconfig_document(user={"exec": {"command": "sh"}})),
        )  # fmt: skip
    out, _ = run(
        "add", "prod", "--owner", "ada", "--kubeconfig", "-", "--save-anyway",
        stdin=kubeconfig(server=closed_port_url()),
    )  # fmt: skip
    assert "saved" in out
    with pytest.raises(CommandError, match='ada already has a connection named "prod"'):
        run("add", "prod", "--owner", "ada", "--kubeconfig", "-", stdin=kubeconfig())
    with pytest.raises(CommandError, match='--owner: no user "bob"'):
        run("add", "x", "--owner", "bob", "--kubeconfig", "-", stdin=kubeconfig())
    with pytest.raises(CommandError, match="unable to parse requirement"):
        run("add", "x", "--owner", "ada", "--in-cluster", "--selector", "a in (b")


def test_list_test_and_remove(user, config_file):
    run("add", "prod", "--owner", "ada", "--kubeconfig", str(config_file), "--save-anyway")
    out, _ = run("list")
    assert "prod\tada\thttps://127.0.0.1:" in out and "context test" in out
    assert "failed: the API server at" in out
    with pytest.raises(CommandError, match="Test connection failed"):
        run("test", "prod")
    with pytest.raises(CommandError, match='no connection named "gone"'):
        run("remove", "gone")
    out, _ = run("remove", "prod", "--owner", "ada")
    assert 'Connection "prod" removed.' in out
    assert not ClusterConnection.objects.exists()
    assert TOKEN not in out


def test_add_reads_the_files_a_kubeconfig_names_and_stores_it_flattened(user, kube_api, tmp_path):
    """The kubeconfig kind, minikube and kubeadm write: CA, client certificate and key, and
    the token, in files beside it (relative paths, as kubectl resolves them)."""
    folder = tmp_path / "kube"
    (folder / "pki").mkdir(parents=True)
    (folder / "pki" / "ca.crt").write_text(kube_api.ca_pem)
    (folder / "pki" / "client.crt").write_bytes(b"client certificate")
    (folder / "pki" / "client.key").write_bytes(b"client key")
    (folder / "token").write_text(kube_api.token + "\n")
    document = kubeconfig_document(server=kube_api.url, user={})
    document["clusters"][0]["cluster"]["certificate-authority"] = "pki/ca.crt"
    document["users"][0]["user"] = {"tokenFile": "token"}
    config = folder / "config"
    config.write_text(yaml.safe_dump(document))

    out, err = run("add", "prod", "--owner", "ada", "--kubeconfig", str(config))

    assert 'Connection "prod" saved' in out and "v1.36" in out + err
    stored = yaml.safe_load(ClusterConnection.objects.get().kubeconfig_text())
    cluster, user_entry = stored["clusters"][0]["cluster"], stored["users"][0]["user"]
    assert "certificate-authority" not in cluster
    assert base64.b64decode(cluster["certificate-authority-data"]).decode() == kube_api.ca_pem
    assert user_entry == {"token": kube_api.token}
    assert kube_api.token not in out + err

    # Client certificates too; a file that is missing is named by field.
    document["users"][0]["user"] = {"client-certificate": "pki/client.crt", "client-key": "x.key"}
    config.write_text(yaml.safe_dump(document))
    with pytest.raises(CommandError) as refused:
        run("add", "other", "--owner", "ada", "--kubeconfig", str(config))
    assert str(refused.value) == (
        f"users[0].user.client-key: cannot read {folder / 'x.key'}: No such file or directory"
    )
    flattened = yaml.safe_load(
        embed_files(config.read_text().replace("x.key", "pki/client.key"), str(folder))
    )
    assert flattened["users"][0]["user"] == {
        "client-certificate-data": base64.b64encode(b"client certificate").decode(),
        "client-key-data": base64.b64encode(b"client key").decode(),
    }


def test_the_upload_still_refuses_file_paths(user):
    """Only the command line reads files: an uploaded kubeconfig's paths name the uploader's."""
    document = kubeconfig_document()
    document["users"][0]["user"] = {"tokenFile": "/home/ada/token"}
    with pytest.raises(KubeconfigError, match=r"^users\[0\]\.user\.tokenFile: refused"):
        target_from_text(yaml.safe_dump(document))
