"""POSTing JSON to an extender, with Go's ``http.Client`` timeout and error texts.

``httpTimeout`` bounds the whole exchange, reading the answer included, as ``Client.Timeout``
does. Failures read as Go's: ``Post "<url>": dial tcp <addr>: connect: connection refused``,
``Post "<url>": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`` —
the texts kube-scheduler puts on a pod when a non-ignorable extender is down or slow.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from urllib.parse import urlsplit

from framework.api.field_errors import go_quote
from framework.extender.tls import TLSSettings

_CHUNK = 64 * 1024
_AWAITING_HEADERS = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
_READING_BODY = (
    "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
)


# OpenSSL's verification codes that Go words differently (crypto/x509's UnknownAuthorityError
# and CertificateInvalidError); other failures keep OpenSSL's text.
_UNKNOWN_AUTHORITY = "certificate signed by unknown authority"
_X509_REASONS = {
    2: _UNKNOWN_AUTHORITY,  # unable to get issuer certificate
    18: _UNKNOWN_AUTHORITY,  # self-signed certificate
    19: _UNKNOWN_AUTHORITY,  # self-signed certificate in chain
    20: _UNKNOWN_AUTHORITY,  # unable to get local issuer certificate
    9: "certificate has expired or is not yet valid",
    10: "certificate has expired or is not yet valid",
}


class ExtenderHTTPError(Exception):
    """The exchange with the extender failed; the message is what Go's client would say."""


class HTTPClient:
    """One extender's client: a timeout and, for ``https://`` URLs, TLS settings."""

    __slots__ = ("timeout", "tls")

    def __init__(self, timeout: float, tls: TLSSettings | None = None) -> None:
        self.timeout = timeout
        self.tls = tls

    def post_json(self, url: str, body: bytes) -> tuple[int, bytes]:
        """The status code and, for 200 only (the only answer upstream reads), the body."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise _url_error(url, f"unsupported protocol scheme {go_quote(parts.scheme)}")
        deadline = time.monotonic() + self.timeout
        connection = self._connect(parts.scheme, parts.hostname or "", parts.port)
        try:
            response, sock = self._send(connection, url, _request_target(url), body, deadline)
            if response.status != 200:
                return response.status, b""
            return response.status, _read_body(sock, response, deadline)
        finally:
            connection.close()

    def _connect(self, scheme: str, host: str, port: int | None) -> http.client.HTTPConnection:
        if scheme == "http":
            return http.client.HTTPConnection(host, port, timeout=self.timeout)
        tls = self.tls or TLSSettings(ssl.create_default_context())
        return _HTTPSConnection(host, port, timeout=self.timeout, tls=tls)

    def _send(
        self,
        connection: http.client.HTTPConnection,
        url: str,
        target: str,
        body: bytes,
        deadline: float,
    ) -> tuple[http.client.HTTPResponse, socket.socket]:
        """The answer's status and headers, and the socket its body will come from."""
        try:
            connection.request("POST", target, body, {"Content-Type": "application/json"})
            sock = connection.sock  # kept: the connection lets go of it once the answer is read
            _set_timeout(sock, deadline, _AWAITING_HEADERS)
            return connection.getresponse(), sock
        except TimeoutError:
            raise _url_error(url, _AWAITING_HEADERS) from None
        except ConnectionRefusedError:
            address = _address(connection.host, connection.port)
            raise _url_error(url, f"dial tcp {address}: connect: connection refused") from None
        except http.client.RemoteDisconnected:
            raise _url_error(url, "EOF") from None  # closed without an answer
        except ssl.SSLCertVerificationError as err:
            reason = _X509_REASONS.get(err.verify_code, err.verify_message)
            raise _url_error(url, f"tls: failed to verify certificate: x509: {reason}") from None
        except (OSError, http.client.HTTPException) as err:
            raise _url_error(url, str(err) or type(err).__name__) from None


class _HTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection that may verify a configured server name instead of the host."""

    def __init__(self, host: str, port: int | None, *, timeout: float, tls: TLSSettings) -> None:
        super().__init__(host, port, timeout=timeout, context=tls.context)
        self._server_name = tls.server_name

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(  # type: ignore[attr-defined]
            self.sock, server_hostname=self._server_name or self.host
        )


def _request_target(url: str) -> str:
    parts = urlsplit(url)
    target = parts.path or "/"
    return f"{target}?{parts.query}" if parts.query else target


def _read_body(sock: socket.socket, response: http.client.HTTPResponse, deadline: float) -> bytes:
    chunks = []
    try:
        while not response.isclosed():  # it closes itself once the whole body is read
            _set_timeout(sock, deadline, _READING_BODY)
            chunk = response.read(_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    except TimeoutError:
        raise ExtenderHTTPError(_READING_BODY) from None
    except (OSError, http.client.HTTPException) as err:
        raise ExtenderHTTPError(str(err) or type(err).__name__) from None


def _set_timeout(sock: socket.socket, deadline: float, reason: str) -> None:
    """Gives the next socket operation only the time left before the deadline."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError(reason)
    sock.settimeout(remaining)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _url_error(url: str, reason: str) -> ExtenderHTTPError:
    """Go's ``url.Error``: the method, the quoted URL and the cause."""
    return ExtenderHTTPError(f"Post {go_quote(url)}: {reason}")
