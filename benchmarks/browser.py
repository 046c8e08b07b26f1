"""A logged-in browser of the playground, for benchmarks: its HTTP session and a page's websocket.

``Browser`` logs in through the login form and posts forms as the pages do (with the CSRF
token and, for htmx requests, ``HX-Request``). ``PageSocket`` opens a page's websocket with the
session's cookie and the page's origin, as the browser would: ``LiveStream`` is the queue
board's and keeps the number of bound pods it shows, with when each count arrived;
``LiveWatcher`` is a page that watches the live trace (a pod's page, the debugger page) and
counts the Live panels it receives.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from http.cookiejar import CookieJar
from typing import Any, Self
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode, urlsplit
from urllib.request import HTTPCookieProcessor, Request, build_opener

TIMEOUT_SECONDS = 60.0
"""How long one HTTP request may take."""
_BOUND_BADGE = re.compile(r'id="column-bound".*?class="badge">(\d+)<', re.DOTALL)
_LIVE_PANEL = re.compile(r'<section id="live-trace"')
"""The Live panel (templates/front/debugger_live.html): a ``trace.events`` message renders it,
and so does ``trace.followed`` (the service read the page's watch) before any event came."""
_LIVE_POD = re.compile(r"<strong>([^<]+)</strong>")
"""The pod the Live panel shows, its first bold text (only a ``trace.events`` panel has one)."""
_FOLLOWED = 'data-following="true"'
"""What the Live panel says once the service follows the page."""


class BrowserError(Exception):
    """A page answered with an error, or not at all."""


class Browser:
    """An HTTP session with the playground at ``base_url`` (``http://127.0.0.1:8000``)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.cookies = CookieJar()
        self._opener = build_opener(HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> tuple[str, str]:
        """(final URL after redirects, body)."""
        return self._open(Request(self.base_url + path))

    def post(self, path: str, fields: dict[str, Any], htmx: bool = False) -> tuple[str, str]:
        """Posts a form with the session's CSRF token; (final URL after redirects, body)."""
        data = urlencode({**fields, "csrfmiddlewaretoken": self.cookie("csrftoken")}).encode()
        headers = {"HX-Request": "true"} if htmx else {}
        return self._open(Request(self.base_url + path, data=data, headers=headers))

    def login(self, username: str, password: str) -> None:
        self.get("/login/")  # sets the CSRF cookie
        url, _ = self.post("/login/", {"username": username, "password": password})
        if urlsplit(url).path.startswith("/login"):
            raise BrowserError(f"logging in as {username!r} failed")

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.cookies if c.name == name), "") or ""

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.cookies)

    def answers(self) -> bool:
        """Whether the server accepts connections and serves the login page."""
        try:
            self.get("/login/")
        except BrowserError:
            return False
        return True

    def _open(self, request: Request) -> tuple[str, str]:
        try:
            with self._opener.open(request, timeout=TIMEOUT_SECONDS) as response:
                return response.geturl(), response.read().decode("utf-8", errors="replace")
        except HTTPError as err:
            body = err.read().decode("utf-8", errors="replace")
            problems = " ".join(re.sub(r"<[^>]+>", " ", body).split())[:500]
            what = f"{request.get_method()} {request.full_url}"
            raise BrowserError(f"{what}: {err.code} {problems}") from None
        except (URLError, OSError) as err:
            raise BrowserError(f"{request.get_method()} {request.full_url}: {err}") from err


class PageSocket:
    """A page's websocket, as the browser opens it (the session's cookie, the page's origin),
    read on a thread of its own so the server never waits for us; ``messages`` counts what
    arrived. Subclasses look into each message (``_received``, called under the lock)."""

    def __init__(self, browser: Browser, path: str) -> None:
        address = urlsplit(browser.base_url)
        self.path = path
        self._socket = WebSocket(
            address.hostname or "127.0.0.1",
            address.port or 80,
            path,
            origin=f"{address.scheme}://{address.netloc}",
            cookie=browser.cookie_header(),
        )
        self.messages = 0
        self._changed = threading.Condition()
        self._closed_because = ""
        self._thread = threading.Thread(target=self._read, name="live", daemon=True)

    def __enter__(self) -> Self:
        """Connects and waits for the page's first state (BrowserError if none comes)."""
        self._socket.connect(TIMEOUT_SECONDS)
        self._thread.start()
        self._wait(lambda: self.messages > 0 or self._closed_because, TIMEOUT_SECONDS)
        if not self.messages:
            raise BrowserError(f"the websocket {self.path} sent nothing: {self._closed_because}")
        return self

    def __exit__(self, *_: object) -> None:
        self._socket.close()
        self._thread.join(5)

    def _wait(self, condition: Any, seconds: float) -> None:
        with self._changed:
            self._changed.wait_for(condition, max(0.0, seconds))

    def _read(self) -> None:
        try:
            for html in self._socket.messages():
                with self._changed:
                    self.messages += 1
                    self._received(html)
                    self._changed.notify_all()
            why = "the server closed the websocket"
        except OSError as err:
            why = f"the websocket failed: {err}"
        with self._changed:
            self._closed_because = why
            self._changed.notify_all()

    def _received(self, html: str) -> None:
        """One message (HTML fragments), under the lock."""


class LiveStream(PageSocket):
    """A workspace's queue board over its websocket.

    ``bound`` is the count the latest board showed; ``time_of(n)`` tells when a board first
    showed at least ``n`` bound pods (``time.monotonic()``).
    """

    def __init__(self, browser: Browser, slug: str) -> None:
        super().__init__(browser, f"/ws/w/{slug}/?view=queue")
        self.bound = 0
        self._reached: list[tuple[int, float]] = []

    def time_of(self, bound: int, deadline: float) -> float | None:
        """When a board first showed at least ``bound`` pods bound; None if none had by
        ``deadline`` (a ``time.monotonic()`` value)."""
        self._wait(lambda: self.bound >= bound or self._closed_because, deadline - time.monotonic())
        return next((at for count, at in self._reached if count >= bound), None)

    def _received(self, html: str) -> None:
        match = _BOUND_BADGE.search(html)
        if match is not None:
            self.bound = int(match.group(1))
            if not self._reached or self.bound > self._reached[-1][0]:
                self._reached.append((self.bound, time.monotonic()))


class LiveWatcher(PageSocket):
    """A page that shows the live trace: a pod's page (``/ws/w/<slug>/pods/<uid>/``) or the
    debugger page (``/ws/w/<slug>/?view=debugger``), which watches every pod.

    Its socket registers a watch, so the scheduler streams the watched pods' extension points
    (``trace.events``) to it; each one the page renders comes as its Live panel. ``live``
    counts those messages, ``live_pods`` the pods they showed: proof that the stream arrived.
    ``followed`` tells that the service said it read the watch (``trace.followed``).
    """

    def __init__(self, browser: Browser, path: str) -> None:
        super().__init__(browser, path)
        self.live = 0
        self.live_pods: set[str] = set()
        self.followed = False

    @classmethod
    def pod_page(cls, browser: Browser, slug: str, uid: str) -> LiveWatcher:
        return cls(browser, f"/ws/w/{slug}/pods/{uid}/")

    @classmethod
    def debugger_page(cls, browser: Browser, slug: str) -> LiveWatcher:
        return cls(browser, f"/ws/w/{slug}/?view=debugger")

    def wait_followed(self, seconds: float) -> bool:
        """Waits until the service follows the page; whether it did within ``seconds``."""
        self._wait(lambda: self.followed or self._closed_because, seconds)
        return self.followed

    def _received(self, html: str) -> None:
        panel = _LIVE_PANEL.search(html)
        if panel is None:
            return
        self.followed = self.followed or _FOLLOWED in html[panel.end() :]
        pod = _LIVE_POD.search(html, panel.end())
        if pod is not None:
            self.live += 1
            self.live_pods.add(pod.group(1))


class WebSocket:
    """The client side of RFC 6455, as much as a page that only listens needs: text messages
    (possibly fragmented), pings answered, close.

    Written out rather than taken from autobahn (installed with daphne): its asyncio client
    cannot load in a process where Channels already chose autobahn's Twisted flavour, as in
    the test suite.
    """

    TEXT, CONTINUATION, CLOSE, PING = 0x1, 0x0, 0x8, 0x9

    def __init__(self, host: str, port: int, path: str, origin: str, cookie: str) -> None:
        self.host, self.port, self.path = host, port, path
        self.origin, self.cookie = origin, cookie
        self._sock: socket.socket | None = None
        self._file: Any = None
        self._send_lock = threading.Lock()

    def connect(self, timeout: float) -> None:
        """Opens the connection and completes the handshake (BrowserError if refused)."""
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {self.origin}\r\nCookie: {self.cookie}\r\n\r\n"
        )
        sock.sendall(request.encode())
        self._file = sock.makefile("rb")
        status = self._file.readline().decode("latin-1").strip()
        while self._file.readline() not in (b"\r\n", b""):
            pass
        if " 101 " not in f"{status} ":
            sock.close()
            raise BrowserError(f"the websocket {self.path} was refused: {status}")
        sock.settimeout(None)
        self._sock = sock

    def messages(self) -> Iterator[str]:
        """Text messages until the server closes the connection."""
        parts: list[bytes] = []
        while True:
            header = self._file.read(2)
            if len(header) < 2:
                return
            final, opcode = header[0] & 0x80, header[0] & 0x0F
            payload = self._file.read(self._length(header[1] & 0x7F))
            if opcode == self.CLOSE:
                return
            if opcode == self.PING:
                self._send(0xA, payload)
            elif opcode in (self.TEXT, self.CONTINUATION):
                parts.append(payload)
                if final:
                    yield b"".join(parts).decode("utf-8", errors="replace")
                    parts = []

    def close(self) -> None:
        if self._sock is None:
            return
        with contextlib.suppress(OSError):
            self._send(self.CLOSE, b"\x03\xe8")  # 1000: normal closure
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

    def _length(self, short: int) -> int:
        if short == 126:
            return struct.unpack("!H", self._file.read(2))[0]
        if short == 127:
            return struct.unpack("!Q", self._file.read(8))[0]
        return short

    def _send(self, opcode: int, payload: bytes) -> None:
        """A client's frames are masked (RFC 6455 5.3); ours are short control frames."""
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        frame = bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked
        with self._send_lock:
            self._sock.sendall(frame)
