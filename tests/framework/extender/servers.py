"""Extender servers for tests: scripted answers on 127.0.0.1, an ephemeral port, a thread."""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Reply:
    """A raw answer: status, body bytes, a delay before the status line and one before the body."""

    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    body_delay: float = 0.0


@dataclass
class Request:
    verb: str
    path: str
    content_type: str
    body: Any


Respond = Callable[[str, Any], Any]
"""``(verb, decoded request) -> answer``: a JSON-able value, or a Reply."""


class ScriptedServer(ThreadingHTTPServer):
    """Answers every POST with ``respond``; keeps each request for assertions."""

    daemon_threads = True

    def __init__(self, respond: Respond, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _ScriptedHandler)
        self.respond = respond
        self.requests: list[Request] = []
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)

    def url(self, scheme: str = "http", path: str = "/") -> str:
        return f"{scheme}://127.0.0.1:{self.server_address[1]}{path}"

    def verbs(self) -> list[str]:
        return [r.verb for r in self.requests]

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeouts) or refused our certificate


class _ScriptedHandler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length))
        verb = self.path.rstrip("/").rsplit("/", 1)[-1]
        self.server.requests.append(
            Request(verb, self.path, self.headers.get("Content-Type", ""), body)
        )
        answer = self.server.respond(verb, body)
        reply = answer if isinstance(answer, Reply) else Reply(body=json.dumps(answer).encode())
        time.sleep(reply.delay)
        self.send_response(reply.status)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.flush()
        time.sleep(reply.body_delay)
        self.wfile.write(reply.body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[Any]:
    """Runs ``server`` in a thread for the duration of the block."""
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def unused_port() -> int:
    """A port nothing listens on (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_tls(require_client_certificate: bool = False) -> ssl.SSLContext:
    """TLS for a test server: a certificate for 127.0.0.1 signed by the fixtures' CA."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(FIXTURES / "server.crt", FIXTURES / "server.key")
    if require_client_certificate:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(FIXTURES / "ca.crt")
    return context
