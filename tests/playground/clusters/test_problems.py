"""Each way of failing to reach a cluster gets its own message naming the problem."""

from __future__ import annotations

import socket

import urllib3
from kubernetes.client.exceptions import ApiException

from playground.clusters import kubeconfig as kubeconfig_module
from playground.clusters.connecting import probe, target_from_text
from playground.clusters.problems import describe
from tests.playground.clusters.kubeconfigs import TOKEN, closed_port_url, kubeconfig


def api_exception(status: int, reason: str, message: str) -> ApiException:
    err = ApiException(status=status, reason=reason)
    err.body = f'{{"kind":"Status","status":"Failure","message":"{message}","code":{status}}}'
    err.headers = {"Authorization": f"Bearer {TOKEN}"}
    return err


def test_401_and_403_say_what_the_server_refused_and_nothing_more():
    unauthorized = describe(api_exception(401, "Unauthorized", "Unauthorized"))
    assert unauthorized.startswith("401 Unauthorized: the API server rejected the credentials")
    forbidden = describe(
        api_exception(403, "Forbidden", 'nodes is forbidden: User \\"ada\\" cannot list nodes')
    )
    assert forbidden == '403 Forbidden: nodes is forbidden: User "ada" cannot list nodes'
    assert TOKEN not in unauthorized + forbidden


def test_a_name_that_does_not_resolve_is_a_dns_problem():
    reason = urllib3.exceptions.NewConnectionError(
        None, "Failed to resolve: [Errno -2] Name or service not known"
    )
    reason.__cause__ = socket.gaierror(-2, "Name or service not known")
    err = urllib3.exceptions.MaxRetryError(None, "/version", reason)
    assert describe(err, "https://nowhere.invalid") == (
        "the API server's host name at https://nowhere.invalid cannot be resolved (DNS)"
    )


def test_a_refused_connection_is_unreachable():
    server = closed_port_url()
    report = probe(target_from_text(kubeconfig(server=server)))
    assert report.problem == f"the API server at {server} is unreachable: connection refused"
    assert not report.reached and report.answers == []


def test_a_server_that_never_answers_times_out(monkeypatch):
    monkeypatch.setattr(kubeconfig_module, "READ_TIMEOUT_SECONDS", 0.3)
    with socket.socket() as listener:  # the kernel accepts the connection; nobody answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        server = f"https://127.0.0.1:{listener.getsockname()[1]}"
        report = probe(target_from_text(kubeconfig(server=server)))
    assert report.problem == f"the API server at {server} did not answer in time (timeout)"
