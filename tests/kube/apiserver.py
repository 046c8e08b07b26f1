"""A Kubernetes API server for tests: real HTTPS on 127.0.0.1, the JSON wire protocol of
kube-apiserver v1.36 for the kinds the scheduler reads and writes, and faults on demand.

It is driven through the official ``kubernetes`` client only, so what passes here passes
against a cluster: discovery, list with resourceVersion and selectors, chunked watch streams
with bookmarks and 410 Expired, get / create / update / patch / delete, pods/binding,
pods/status, SelfSubjectAccessReviews, bearer-token authentication, a deny policy, and every
error as the Status object upstream sends. Tests inject faults: drop the open watch streams,
compact the history, restart on the same port, slow a path down, deny a verb.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import secrets
import socket
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.kube.resources import (
    ApiError,
    Attributes,
    Resource,
    bad_request,
    expired,
    unauthorized,
)
from tests.kube.routes import Router, parse_bool
from tests.kube.store import Change, Store, present
from tests.kube.tls import Certificates, make_certificates

DEFAULT_WATCH_SECONDS = 1800
"""kube-apiserver picks 30 to 60 minutes when the client gives no timeoutSeconds."""


@dataclass
class Rule:
    """A denied (verb, group, resource[/subresource], namespace, user); None matches any."""

    verb: str
    resource: str
    group: str = ""
    namespace: str | None = None
    user: str | None = None

    def matches(self, user: str, attrs: Attributes) -> bool:
        target = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
        return (
            fnmatch.fnmatchcase(attrs.verb, self.verb)
            and fnmatch.fnmatchcase(target, self.resource)
            and (self.group == "*" or self.group == attrs.group)
            and self.namespace in (None, attrs.namespace)
            and self.user in (None, user)
        )


@dataclass
class Watch:
    """An open watch stream, so faults can end it."""

    handler: BaseHTTPRequestHandler
    drop: str = ""
    """"" while open; "clean" ends the chunked stream, "abrupt" cuts the connection,
    "expire" sends a 410 ERROR event first."""


@dataclass
class Request:
    """One served request, for tests that check what the product asked for."""

    method: str
    path: str
    query: str
    user: str
    code: int = 0
    content_type: str = ""
    body: object = None


@dataclass
class Faults:
    delays: dict[str, float] = field(default_factory=dict)
    deny: list[Rule] = field(default_factory=list)


class ApiServer:
    """The server and its state; the state outlives restarts, the connections do not."""

    def __init__(self, certificates: Certificates | None = None) -> None:
        self.certificates = certificates or make_certificates()
        self.store = Store()
        self.faults = Faults()
        self.tokens: dict[str, str] = {}
        self.expired_tokens: set[str] = set()
        self.bookmark_interval = 60.0
        self.requests: list[Request] = []
        self.watches: list[Watch] = []
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.port = 0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._ssl = self._ssl_context()

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> None:
        """Listen on 127.0.0.1: a random port the first time, the same port after a stop.
        Started again, the history begins at the current revision, as a restarted
        kube-apiserver's watch cache does: a watch from an older version gets 410."""
        if self.port:
            self.store.compact()
        httpd = _Server(("127.0.0.1", self.port), _Handler)
        httpd.api = self
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop listening; watches end as on a server shutdown, other connections are cut."""
        if self._httpd is None:
            return
        httpd, self._httpd = self._httpd, None
        httpd.shutdown()
        httpd.server_close()
        self.drop_watches(clean=True)
        deadline = time.monotonic() + 2
        while self.watches and time.monotonic() < deadline:
            time.sleep(0.02)
        with self.lock:
            connections = list(self.connections)
        for conn in connections:
            _cut(conn)

    def restart(self) -> None:
        """Stop and start on the same port keeping every object and version (not the
        history, see ``start``)."""
        self.stop()
        self.start()

    # --- users and policy ------------------------------------------------------------------

    def add_user(self, name: str) -> str:
        """A bearer token for ``name`` (a new one each call)."""
        token = secrets.token_urlsafe(24)
        self.tokens[token] = name
        return token

    def expire_token(self, token: str) -> None:
        self.expired_tokens.add(token)

    def deny(
        self,
        verb: str,
        resource: str,
        group: str = "",
        namespace: str | None = None,
        user: str | None = None,
    ) -> None:
        """Forbid a verb on a resource (``pods/binding`` for a subresource, ``*`` globs)."""
        self.faults.deny.append(Rule(verb, resource, group, namespace, user))

    def allow_all(self) -> None:
        self.faults.deny.clear()

    def allowed(self, user: str, attrs: Attributes) -> bool:
        if user == "system:anonymous":
            return False
        return not any(rule.matches(user, attrs) for rule in self.faults.deny)

    # --- faults ----------------------------------------------------------------------------

    def slow(self, path_prefix: str, seconds: float) -> None:
        """Delay every request whose path starts with ``path_prefix`` (0 removes the delay)."""
        if seconds:
            self.faults.delays[path_prefix] = seconds
        else:
            self.faults.delays.pop(path_prefix, None)

    def drop_watches(self, clean: bool = True) -> int:
        """End every open watch stream: ``clean`` finishes the chunked body (the client's
        stream ends), otherwise the connection is cut mid-stream. Returns how many."""
        return self._end_watches("clean" if clean else "abrupt")

    def expire_watches(self) -> int:
        """Compact, and end every open watch with the ERROR event (410 Expired) a watcher
        gets when etcd compacts past it: the client must list again. Returns how many."""
        self.store.compact()
        return self._end_watches("expire")

    def _end_watches(self, how: str) -> int:
        with self.lock:
            watches = list(self.watches)
        for watch in watches:
            watch.drop = how
            if how == "abrupt":
                _cut(watch.handler.connection)
        with self.store.changed:
            self.store.changed.notify_all()
        return len(watches)

    def compact(self) -> int:
        return self.store.compact()

    # --- internals -------------------------------------------------------------------------

    def _ssl_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with tempfile.TemporaryDirectory() as tmp:
            cert, key = Path(tmp, "tls.crt"), Path(tmp, "tls.key")
            cert.write_text(self.certificates.cert_pem)
            key.write_text(self.certificates.key_pem)
            context.load_cert_chain(cert, key)
        return context


def _cut(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    api: ApiServer

    def get_request(self):
        conn, address = self.socket.accept()
        return self.api._ssl.wrap_socket(
            conn, server_side=True, do_handshake_on_connect=False
        ), address

    def handle_error(self, request, client_address) -> None:
        """Clients that hang up or fail the TLS handshake are part of the tests, not errors."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        self.request.settimeout(10)
        self.request.do_handshake()
        self.request.settimeout(None)
        super().setup()
        with self.api.lock:
            self.api.connections.add(self.request)

    def finish(self) -> None:
        with self.api.lock:
            self.api.connections.discard(self.request)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format, *args) -> None:
        """Quiet: tests read ``ApiServer.requests`` instead."""

    @property
    def api(self) -> ApiServer:
        return self.server.api

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    # --- request handling ------------------------------------------------------------------

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        record = Request(method, url.path, url.query, "", content_type=self._content_type())
        self.api.requests.append(record)
        try:
            body = self._body()
            record.body = body
            for prefix, seconds in list(self.api.faults.delays.items()):
                if url.path.startswith(prefix):
                    time.sleep(seconds)
            record.user = self._authenticate()
            code, payload = Router(self, record.user, query, body).route(method, url.path)
        except ApiError as err:
            code, payload = err.code, err.status()
        record.code = code
        if payload is not None:
            self._send_json(code, payload)

    def _content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def _body(self) -> object:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError as err:
            raise bad_request(f"the body of the request could not be decoded: {err}") from None

    def _authenticate(self) -> str:
        header = self.headers.get("Authorization", "")
        if not header:
            return "system:anonymous"
        token = header.removeprefix("Bearer ").strip()
        if not header.startswith("Bearer ") or token in self.api.expired_tokens:
            raise unauthorized()
        user = self.api.tokens.get(token)
        if user is None:
            raise unauthorized()
        return user

    def _send_json(self, code: int, payload: object) -> None:
        data = json.dumps(payload, separators=(",", ":")).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    # --- watch streams ---------------------------------------------------------------------

    def stream_watch(self, resource: Resource, namespace: str, query: dict, match) -> None:
        """Serve a chunked watch until its timeout, a fault, or the client leaving."""
        watch = Watch(self)
        deadline = time.monotonic() + int(query.get("timeoutSeconds") or DEFAULT_WATCH_SECONDS)
        bookmarks = parse_bool(query.get("allowWatchBookmarks"))
        rv = query.get("resourceVersion", "")
        start = None if rv in ("", "0") else _parse_rv(rv)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with self.api.lock:
            self.api.watches.append(watch)
        try:
            cursor = self._watch_loop(watch, resource, namespace, start, match, deadline, bookmarks)
            if watch.drop == "expire":
                why = f"too old resource version: {cursor} ({self.api.store.compacted})"
                self._event({"type": "ERROR", "object": expired(why).status()})
        except (OSError, ValueError):
            watch.drop = "abrupt"
        finally:
            with self.api.lock:
                self.api.watches.remove(watch)
            self.close_connection = True
            if watch.drop != "abrupt":
                self._chunk(b"", final=True)

    def _watch_loop(self, watch, resource, namespace, start, match, deadline, bookmarks) -> int:
        """Send events until the deadline or a fault; returns the revision reached."""
        store = self.api.store
        with store.changed:
            if start is None:
                items, cursor, _, _ = store.list(resource, namespace, match)
            else:
                cursor, items = start, []
        for item in items:
            self._event({"type": "ADDED", "object": item})
        last_bookmark = time.monotonic()
        while not watch.drop:
            left = deadline - time.monotonic()
            if left <= 0:
                return cursor
            next_bookmark = last_bookmark + self.api.bookmark_interval - time.monotonic()
            with store.changed:
                try:
                    changes = store.changes_after(cursor)
                except ApiError as err:
                    changes, error = [], err
                else:
                    error = None
                head = store.rv
                if not changes and error is None:
                    store.changed.wait(min(left, next_bookmark if bookmarks else left))
            if error is not None:
                self._event({"type": "ERROR", "object": error.status()})
                return cursor
            for change in changes:
                event = _event_for(change, resource, namespace, match)
                if event and not watch.drop:
                    self._event(event)
            cursor = max(cursor, head)
            if bookmarks and time.monotonic() - last_bookmark >= self.api.bookmark_interval:
                self._event(_bookmark(resource, cursor))
                last_bookmark = time.monotonic()
        return cursor

    def _event(self, event: dict) -> None:
        self._chunk(json.dumps(event, separators=(",", ":")).encode() + b"\n")

    def _chunk(self, data: bytes, final: bool = False) -> None:
        try:
            if data:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            if final:
                self.wfile.write(b"0\r\n\r\n")
        except (OSError, ValueError):
            if final:
                return
            raise


def _parse_rv(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_request(f"invalid resource version: {text!r}") from None


def _event_for(change: Change, resource: Resource, namespace: str, match) -> dict | None:
    """The event a watcher with this filter sees: leaving the filter is a DELETED."""
    if change.store != resource.storage_key:
        return None

    def visible(obj: dict | None) -> dict | None:
        if obj is None:
            return None
        shown = present(resource, obj)
        in_ns = not namespace or shown["metadata"].get("namespace") == namespace
        return shown if in_ns and match(shown) else None

    before, after = visible(change.old), visible(change.new)
    if change.type == "DELETED":
        gone = visible(change.gone) if before else None
        return {"type": "DELETED", "object": gone} if gone else None
    if before and after:
        return {"type": "MODIFIED", "object": after}
    if after:
        return {"type": "ADDED", "object": after}
    if before:
        # As the watch cache sends it: the object as it last matched, at the change's revision.
        before["metadata"]["resourceVersion"] = str(change.rv)
        return {"type": "DELETED", "object": before}
    return None


def _bookmark(resource: Resource, rv: int) -> dict:
    return {
        "type": "BOOKMARK",
        "object": {
            "kind": resource.kind,
            "apiVersion": resource.api_version,
            "metadata": {"resourceVersion": str(rv), "creationTimestamp": None},
        },
    }
