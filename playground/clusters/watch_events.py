"""A watch's events, read on a thread of their own and taken in batches.

The mirror applies a watch's events through the database, where one transaction per event
cost more than the event: a burst of a thousand pods took some twenty seconds to reach the
workspace. Reading on a separate thread lets the mirror take, each time it is ready, every
event that arrived while it was writing the previous ones, and write them together.

The reader blocks in the socket's read for as long as the watch is quiet; ``close`` shuts the
socket down for reading (urllib3's ``HTTPResponse.shutdown``), which wakes it at once: closing
the response alone would wait for the read, up to the watch's ``timeoutSeconds``.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from typing import Any

from kubernetes.watch.watch import iter_resp_lines

from playground.workspaces.fields import loads

JOIN_SECONDS = 5.0
"""How long ``close`` waits for the reader once its socket is shut down."""


class _End:
    """The watch ended: cleanly (``error`` None) or with the reader's exception."""

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


class WatchEvents:
    """The decoded events of one watch response, handed over in batches."""

    def __init__(self, response: Any, name: str) -> None:
        self._response = response
        self._queue: queue.SimpleQueue[dict[str, Any] | _End] = queue.SimpleQueue()
        self._ended = False
        self._thread = threading.Thread(target=self._read, name=name, daemon=True)
        self._thread.start()

    def take(self, most: int, wait: float) -> list[dict[str, Any]] | None:
        """Up to ``most`` events: those that arrived, or the next one within ``wait`` seconds
        ([] if none came). None once the watch has ended cleanly and every event was taken;
        the reader's exception (a cut connection, say) is raised there instead."""
        if self._ended:
            return None
        try:
            first = self._queue.get(timeout=wait)
        except queue.Empty:
            return []
        events: list[dict[str, Any]] = []
        item: dict[str, Any] | _End = first
        while True:
            if isinstance(item, _End):
                if events:
                    self._queue.put(item)  # the reader is done: it comes next, after these
                    return events
                self._ended = True
                if item.error is not None:
                    raise item.error
                return None
            events.append(item)
            if len(events) >= most:
                return events
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return events

    def close(self) -> None:
        """Ends the reader (waking a blocked read) and closes the response; its connection is
        not put back into the pool (a server may close a watch's connection as it ends)."""
        if self._thread.is_alive():
            with contextlib.suppress(Exception):  # released already, or no socket to shut
                self._response.shutdown()
            self._thread.join(JOIN_SECONDS)
        self._response.close()
        self._response.release_conn()

    def _read(self) -> None:
        try:
            for line in iter_resp_lines(self._response):
                if line:
                    self._queue.put(loads(line))
        except BaseException as err:  # handed to the mirror's thread, which decides
            self._queue.put(_End(err))
        else:
            self._queue.put(_End(None))
