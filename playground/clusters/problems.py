"""What went wrong talking to a cluster, in one sentence naming the problem.

Messages are built from the kind of failure and, for API errors, the ``message`` of the
server's Status body, never from ``str()`` of an exception: the client's ApiException prints
the response headers, and urllib3's errors can quote the request.
"""

from __future__ import annotations

import json
import socket
import ssl

import urllib3.exceptions
from kubernetes.client.exceptions import ApiException

from playground.clusters.encryption import EncryptionKeyError
from playground.clusters.kubeconfig import KubeconfigError

DNS_FAILURES = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "no address associated",
    "getaddrinfo failed",
)


def describe(err: BaseException, server: str = "") -> str:
    """The problem as a person fixes it (see the module)."""
    at = f" at {server}" if server else ""
    if isinstance(err, KubeconfigError | EncryptionKeyError):
        return str(err)
    if isinstance(err, ApiException):
        return _api_problem(err)
    reason = err.reason if isinstance(err, urllib3.exceptions.MaxRetryError) else err
    chain = list(_causes(reason))
    if any(_is_tls(cause) for cause in chain):
        return (
            f"TLS verification failed{at}: the server's certificate is not signed by the "
            f"kubeconfig's certificate-authority-data (or does not name this host)"
        )
    text = " ".join(str(cause).lower() for cause in chain)
    if any(isinstance(cause, socket.gaierror) for cause in chain) or any(
        failure in text for failure in DNS_FAILURES
    ):
        return f"the API server's host name{at} cannot be resolved (DNS)"
    if any(isinstance(cause, ConnectionRefusedError) for cause in chain) or "refused" in text:
        return f"the API server{at} is unreachable: connection refused"
    if any(_is_timeout(cause) for cause in chain):
        return f"the API server{at} did not answer in time (timeout)"
    if isinstance(reason, urllib3.exceptions.HTTPError | OSError):
        return f"the API server{at} is unreachable: {type(reason).__name__}"
    return f"unexpected error talking to the API server{at}: {type(err).__name__}"


def _api_problem(err: ApiException) -> str:
    status = err.status
    message = _status_message(err.body)
    if status == 401:
        return (
            "401 Unauthorized: the API server rejected the credentials (the token is wrong or "
            "expired, or the client certificate is not accepted)"
        )
    if status == 403:
        return f"403 Forbidden: {message or 'the credentials may not do this'}"
    return f"{status} {err.reason or ''}: {message or 'the API server refused the request'}"


def _status_message(body: object) -> str:
    """The ``message`` of a Status body, if the body is one."""
    if isinstance(body, bytes):
        body = body.decode(errors="replace")
    if not isinstance(body, str):
        return ""
    try:
        document = json.loads(body)
    except ValueError:
        return ""
    message = document.get("message") if isinstance(document, dict) else None
    return message if isinstance(message, str) else ""


def _causes(err: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while err is not None and err not in seen:
        seen.append(err)
        nested = getattr(err, "reason", None)
        err = nested if isinstance(nested, BaseException) else (err.__cause__ or err.__context__)
    return seen


def _is_tls(err: BaseException) -> bool:
    return isinstance(err, ssl.SSLError | urllib3.exceptions.SSLError)


def _is_timeout(err: BaseException) -> bool:
    # urllib3's NewConnectionError (refused, unreachable) is a subclass of its TimeoutError.
    if isinstance(err, urllib3.exceptions.NewConnectionError):
        return "timed out" in str(err).lower()
    return isinstance(err, TimeoutError | urllib3.exceptions.TimeoutError)
