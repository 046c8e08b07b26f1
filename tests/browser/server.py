"""The playground as a person reaches it: real processes serving the test database.

The web process is ``manage.py runserver --noreload``, as ``scripts/run`` starts it: Daphne
serving the ASGI app (pages, static files and websockets). Who runs the scheduler follows the
broker, as in the two ways to run (docs/playground.md):

- in-memory broker: the embedded Celery worker inside the web process (tasks enqueued there are
  only seen there);
- Redis: a separate Celery worker process for both queues, as the Procfile's workers, so
  commands, tasks and the live stream cross process boundaries as they do in production.

Both read and write the database the test process set up (PostgreSQL, or the SQLite test file),
so tests prepare data with the ORM in committed transactions.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from tests.shared_database import environment_for

ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 60.0
STOP_SECONDS = 15.0
LOG_TAIL_CHARS = 4000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PlaygroundServer:
    """The web process (and, with Redis, the worker process); ``url`` once started."""

    def __init__(
        self, database: dict[str, Any], log_dir: Path, env: dict[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_dir / "server.log"
        self._env = {**self._environment(database), **(env or {})}
        self._log: IO[str] | None = None
        self._processes: list[subprocess.Popen] = []
        self.worker: subprocess.Popen | None = None
        """The separate worker process (with Redis), which a test may kill and replace."""
        self._workers = 0

    def start(self) -> PlaygroundServer:
        self._log = self.log_path.open("w")
        try:
            if settings.REDIS_URL:
                self.start_worker()
            self._spawn([sys.executable, "manage.py", "runserver", "--noreload", self.address()])
            self._wait_until_serving()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """SIGTERM, which both servers take as a request to stop (a worker hands its leases
        back); SIGINT would do the same, but a test run started in the background ignores it,
        and so do its children. Then kill what still runs."""
        for process in reversed(self._processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self._processes:
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._processes = []
        if self._log is not None:
            self._log.close()
            self._log = None

    def start_worker(self) -> None:
        """Starts a worker process (with Redis), as one more Procfile worker would."""
        self._workers += 1
        self.worker = self._spawn(self._worker_command())

    def kill_worker(self) -> None:
        """SIGKILL to the worker: it dies holding its leases, as a crashed machine would."""
        if self.worker is not None:
            self.worker.kill()
            self.worker.wait()
            self._processes.remove(self.worker)
            self.worker = None

    def log_tail(self) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return text[-LOG_TAIL_CHARS:]

    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _environment(self, database: dict[str, Any]) -> dict[str, str]:
        env = environment_for(database)
        # Redis: the worker process schedules; in memory: the web process must.
        env["EMBEDDED_WORKER"] = "false" if settings.REDIS_URL else "true"
        env.setdefault("LOG_LEVEL", "WARNING")
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def _worker_command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "celery",
            "--app",
            "playground",
            "worker",
            "--queues",
            "scheduler,binding",
            "--pool",
            "threads",
            "--concurrency",
            "4",
            "--hostname",
            f"browser-test-{self.port}-{self._workers}@%h",
            "--without-mingle",
            "--without-gossip",
            "--loglevel",
            "WARNING",
        ]

    def _spawn(self, command: list[str]) -> subprocess.Popen:
        process = subprocess.Popen(
            command, cwd=ROOT, env=self._env, stdout=self._log, stderr=subprocess.STDOUT
        )
        self._processes.append(process)
        return process

    def _wait_until_serving(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            exited = [p for p in self._processes if p.poll() is not None]
            if exited:
                raise RuntimeError(
                    f"the playground exited ({exited[0].args[:4]}…):\n{self.log_tail()}"
                )
            if self._answers():
                return
            time.sleep(0.1)
        raise RuntimeError(f"the playground did not answer within {READY_SECONDS:g} s")

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/login/", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False
