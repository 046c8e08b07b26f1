"""Pods waiting at Permit: each pending plugin must allow; any reject or timeout ends the wait."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from framework.interface.status import Code, Status
from framework.trace import point_start
from framework.util.clock import Clock, Timer
from framework.util.duration import format_duration

if TYPE_CHECKING:
    from framework.api.pod import Pod


class WaitingPod:
    """One pod held at Permit. The outcome is delivered once: a Success, or the first rejection."""

    def __init__(self, pod: Pod, plugins_max_wait: dict[str, float], clock: Clock) -> None:
        self.pod = pod
        self.since = point_start()
        """When the wait began: WaitOnPermit's span, which may be called after the outcome."""
        self._lock = threading.RLock()
        self._decided = threading.Event()
        self._outcome: Status | None = None
        self._done = False
        self._callbacks: list[Callable[[Status], None]] = []
        self.deadlines = {name: clock.now() + wait for name, wait in plugins_max_wait.items()}
        self._pending: dict[str, Timer] = {
            name: clock.after_func(wait, self._timeout_callback(name, wait))
            for name, wait in plugins_max_wait.items()
        }

    def _timeout_callback(self, plugin: str, wait: float) -> Callable[[], None]:
        message = (
            f"rejected due to timeout after waiting {format_duration(wait)} at plugin {plugin}"
        )
        return lambda: self.reject(plugin, message)

    def get_pending_plugins(self) -> list[str]:
        with self._lock:
            return list(self._pending)

    def allow(self, plugin_name: str) -> None:
        """Marks one plugin's approval; the last approval lets the pod proceed to binding."""
        with self._lock:
            timer = self._pending.pop(plugin_name, None)
            if timer is not None:
                timer.stop()
            if self._pending:
                return
            self._deliver(Status(Code.SUCCESS, ""))
            self._done = True

    def reject(self, plugin_name: str, msg: str) -> bool:
        """Declares the pod unschedulable; False if the wait had already ended."""
        return self._stop_with(Code.UNSCHEDULABLE, plugin_name, msg)

    def preempt(self, plugin_name: str, msg: str) -> bool:
        """Ends the wait with an Error so the pod is retried rather than marked unschedulable."""
        return self._stop_with(Code.ERROR, plugin_name, msg)

    def _stop_with(self, code: Code, plugin_name: str, msg: str) -> bool:
        with self._lock:
            for timer in self._pending.values():
                timer.stop()
            self._deliver(Status(code, msg).with_plugin(plugin_name))
            if self._done:
                return False
            self._done = True
            return True

    def _deliver(self, status: Status) -> None:
        # Like upstream's buffered channel of size one: the first outcome wins.
        if self._decided.is_set():
            return
        self._outcome = status
        self._decided.set()
        for callback in self._callbacks:
            callback(status)

    def add_done_callback(self, callback: Callable[[Status], None]) -> None:
        """Calls ``callback(status)`` when the outcome is known (at once if it already is)."""
        with self._lock:
            if self._decided.is_set():
                callback(self._outcome)  # type: ignore[arg-type]
            else:
                self._callbacks.append(callback)

    def outcome(self) -> Status | None:
        """The delivered outcome, or None while still waiting (never blocks)."""
        return self._outcome

    def wait(self, timeout: float | None = None) -> Status | None:
        """Blocks until the outcome is delivered (real-clock use); None if ``timeout`` elapsed."""
        self._decided.wait(timeout)
        return self._outcome


class WaitingPodsMap:
    """The waiting pods of all profiles, by pod uid (shared by the frameworks of one scheduler)."""

    def __init__(self) -> None:
        self._pods: dict[str, WaitingPod] = {}
        self._lock = threading.Lock()

    def add(self, waiting_pod: WaitingPod) -> None:
        with self._lock:
            self._pods[waiting_pod.pod.uid] = waiting_pod

    def remove(self, uid: str) -> None:
        with self._lock:
            self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPod | None:
        return self._pods.get(uid)

    def __iter__(self) -> Iterator[WaitingPod]:
        with self._lock:
            return iter(list(self._pods.values()))

    def __len__(self) -> int:
        return len(self._pods)
