"""Kubeconfig checks: each problem named by its field, programs and file paths refused."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from playground.clusters.kubeconfig import (
    ALLOW_EXEC_ENV,
    KubeconfigError,
    api_client_from_kubeconfig,
    in_cluster_api_client,
    parse_kubeconfig,
)
from tests.playground.clusters.kubeconfigs import TOKEN, kubeconfig, kubeconfig_document


def problem(document: dict | str) -> str:
    text = document if isinstance(document, str) else yaml.safe_dump(document)
    with pytest.raises(KubeconfigError) as caught:
        parse_kubeconfig(text)
    return str(caught.value)


def test_a_valid_kubeconfig_lists_its_contexts_and_server():
    document = kubeconfig_document(context="prod")
    document["contexts"].append({"name": "dev", "context": {"cluster": "lab", "user": "ada"}})
    parsed = parse_kubeconfig(yaml.safe_dump(document))
    assert parsed.contexts == ("prod", "dev")
    assert parsed.choose_context() == "prod"
    assert parsed.choose_context("dev") == "dev"
    assert parsed.server("dev") == "https://127.0.0.1:6443"


def test_an_undefined_cluster_or_user_is_named_with_its_path():
    document = kubeconfig_document()
    document["contexts"][0]["context"]["cluster"] = "x"
    assert problem(document) == 'contexts[0].context.cluster: cluster "x" is not defined'
    document = kubeconfig_document()
    document["contexts"][0]["context"]["user"] = "bob"
    assert problem(document) == 'contexts[0].context.user: user "bob" is not defined'


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["clusters"][0]["cluster"].pop("server"),
            "clusters[0].cluster.server: required",
        ),
        (
            lambda d: d["clusters"][0]["cluster"].update(server="127.0.0.1:6443"),
            "clusters[0].cluster.server: '127.0.0.1:6443' is not an http(s):// URL",
        ),
        (lambda d: d["users"][0].pop("name"), "users[0].name: required"),
        (lambda d: d.update(clusters={"a": 1}), "clusters: not a list"),
        (lambda d: d.update(contexts=[]), "contexts: the kubeconfig has no context"),
        (
            lambda d: d.update({"current-context": "gone"}),
            'current-context: context "gone" is not defined',
        ),
        (lambda d: d.update(kind="Pod"), 'kind: "Pod" is not Config'),
        (
            lambda d: d["clusters"][0]["cluster"].update({"certificate-authority-data": "@@@"}),
            "clusters[0].cluster.certificate-authority-data: not base64",
        ),
        (
            lambda d: d["users"][0]["user"].update({"client-certificate-data": "QQ=="}),
            "users[0].user: client-certificate-data and client-key-data go together",
        ),
        (
            lambda d: d["contexts"].append(d["contexts"][0]),
            'contexts[1].name: "test" is defined twice',
        ),
    ],
)
def test_each_problem_names_its_field(change, message):
    document = kubeconfig_document()
    change(document)
    assert problem(document) == message


def test_yaml_errors_give_the_line_without_quoting_it():
    message = problem(f"users:\n- name: ada\n  user: {{token: {TOKEN}\n")
    assert message.startswith("kubeconfig: not valid YAML: ")
    assert "line 4" in message
    assert TOKEN not in message
    assert problem("just text") == "kubeconfig: not a YAML mapping (a kubeconfig is kind: Config)"


@pytest.mark.parametrize(
    ("where", "field", "instead"),
    [
        ("cluster", "certificate-authority", "certificate-authority-data"),
        ("user", "client-certificate", "client-certificate-data"),
        ("user", "client-key", "client-key-data"),
        ("user", "tokenFile", "token"),
    ],
)
def test_file_references_are_refused_naming_the_embedded_field(where, field, instead):
    document = kubeconfig_document()
    entry = document["clusters" if where == "cluster" else "users"][0][where]
    entry[field] = "/home/ada/.kube/file"
    message = problem(document)
    assert message.startswith(
        f"{'clusters' if where == 'cluster' else 'users'}[0].{where}.{field}: refused"
    )
    assert f"embed the content as {instead}" in message


def exec_user(token: str = "from-exec") -> dict:
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": token},
    }
    return {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": sys.executable,
            "args": ["-c", f"print({json.dumps(json.dumps(credential))})"],
            "interactiveMode": "Never",
        }
    }


def test_exec_and_auth_provider_are_refused_by_default():
    message = problem(kubeconfig_document(user=exec_user()))
    assert message.startswith("users[0].user.exec: refused: this kubeconfig runs a program")
    assert f"set {ALLOW_EXEC_ENV}=true to allow it" in message
    auth_provider = {"auth-provider": {"name": "oidc", "config": {"cmd-path": "/bin/sh"}}}
    assert problem(kubeconfig_document(user=auth_provider)).startswith(
        "users[0].user.auth-provider: refused"
    )


def test_the_environment_switch_allows_exec_and_the_program_gives_the_token(monkeypatch):
    monkeypatch.setenv(ALLOW_EXEC_ENV, "true")
    parsed = parse_kubeconfig(kubeconfig(user=exec_user()))
    client = api_client_from_kubeconfig(parsed, "test")
    assert client.configuration.api_key["BearerToken"] == "Bearer from-exec"


def test_a_client_carries_the_token_and_times_out():
    parsed = parse_kubeconfig(kubeconfig())
    client = api_client_from_kubeconfig(parsed, "test")
    assert client.configuration.host == "https://127.0.0.1:6443"
    assert client.configuration.api_key["BearerToken"] == f"Bearer {TOKEN}"
    assert client.configuration.retries == 0
    sent = {}
    client.rest_client.request = lambda *args, **kwargs: sent.update(kwargs)
    client.request("GET", "https://127.0.0.1:6443/version")
    assert sent["_request_timeout"] == (5.0, 30.0)


def test_an_unknown_context_lists_the_ones_there_are():
    with pytest.raises(KubeconfigError) as caught:
        parse_kubeconfig(kubeconfig()).choose_context("prod")
    assert str(caught.value) == 'context: "prod" is not in the kubeconfig (it has: test)'


def test_in_cluster_outside_a_cluster_says_so(monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(KubeconfigError, match=r"^in-cluster: not running inside a cluster's pod"):
        in_cluster_api_client()
