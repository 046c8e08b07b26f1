"""A Celery worker inside the web process: the embedded way to run, with nothing to install.

One worker with a thread pool consumes both queues of the in-memory broker (one worker per
process: two would share the broker transport's event loop and trip over each other on stop).
Each running scheduler service (and cluster mirror) holds a thread for as long as it runs, so
they are limited to ``services`` (``mirrors``) threads and the others stay free for binding
tasks. The watchdog starts every workspace's service and every linked connection's mirror.

``start_embedded_worker()`` is idempotent. ``playground.asgi`` starts it, once it has built
the ASGI application, when the process serves the playground (``runserver`` / daphne) and
``EMBEDDED_WORKER`` is on; tests start their own. A serving process exits as soon as its
server has stopped and the worker has released its leases.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from celery import bootsteps
from celery.worker import WorkController
from django.conf import settings

from playground import memory_broker
from playground.celery import app as celery_app
from playground.clusters import tasks as mirror_tasks
from playground.exiting import exit_now
from playground.scheduling import runs, tasks, watchdog

logger = logging.getLogger(__name__)

QUEUES = ["scheduler", "binding"]
SERVICE_THREADS = 6
"""Scheduler services that can run at once in the process."""
MIRROR_THREADS = 2
"""Cluster mirrors that can run at once in the process (each also runs a thread per stream)."""
BINDING_THREADS = 4
READY_TIMEOUT = 30.0


class _Worker(WorkController):
    """A worker that says when its consumer is ready (so callers can wait for it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.ready = threading.Event()
        super().__init__(*args, **kwargs)

    def on_consumer_ready(self, consumer: Any) -> None:
        self.ready.set()


class EmbeddedWorker:
    """The worker on its own thread, and the watchdog."""

    def __init__(
        self,
        services: int = SERVICE_THREADS,
        binding_threads: int = BINDING_THREADS,
        run_watchdog: bool = True,
        mirrors: int = MIRROR_THREADS,
    ) -> None:
        self.services = services
        self.mirrors = mirrors
        self.threads = services + mirrors + binding_threads
        self.run_watchdog = run_watchdog
        self.worker: _Worker | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> EmbeddedWorker:
        """Starts consuming and waits until the worker is ready."""
        celery_app.finalize()
        celery_app.set_current()
        tasks.limit_services(self.services)
        mirror_tasks.limit_mirrors(self.mirrors)
        worker = _Worker(
            app=celery_app,
            hostname=f"embedded-{id(self)}@playground",
            pool="threads",
            concurrency=self.threads,
            queues=QUEUES,
            loglevel=settings.LOGGING["root"]["level"],
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        thread = threading.Thread(target=worker.start, name="celery-embedded", daemon=True)
        thread.start()
        if not worker.ready.wait(READY_TIMEOUT):
            raise RuntimeError("the embedded Celery worker did not start")
        self.worker, self._thread = worker, thread
        if self.run_watchdog:
            watchdog.start_watchdog()
        return self

    def stop(self, release: bool = True, timeout: float = 10.0) -> None:
        """Stops the services and mirrors (the worker waits for its running tasks), then the
        worker.

        ``release=False`` leaves the services' leases to lapse, as a killed worker would.
        """
        if self.run_watchdog:
            watchdog.stop_watchdog()
        runs.stop_every_run(release=release, timeout=timeout)
        worker, thread, self.worker, self._thread = self.worker, self._thread, None, None
        if worker is None or thread is None:
            return
        # The worker's own thread leaves its consume loop first: shutting it down from here
        # while that loop still reads from the broker races it for the connection. Woken, the
        # loop sees the stop within a poll instead of at the end of its 2 s wait for messages.
        worker.consumer.blueprint.state = bootsteps.CLOSE
        memory_broker.wake_consumer(worker.consumer.connection)
        thread.join(timeout)
        worker.stop(in_sighandler=False)


_embedded: EmbeddedWorker | None = None
_lock = threading.Lock()


def serves_the_playground(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether this process answers HTTP: ``daphne ...``, or ``manage.py runserver`` in the
    process that serves (with autoreload, the child the reloader starts, not the reloader)."""
    program = os.path.basename(argv[0]) if argv else ""
    if program == "daphne":
        return True
    if "runserver" not in argv:
        return False
    return environ.get("RUN_MAIN") == "true" or "--noreload" in argv


def start_embedded_worker_if_serving() -> EmbeddedWorker | None:
    """Starts the embedded worker in a process that serves the playground, when it is on.

    Called by the thread that loads the ASGI application, and it waits until the worker is
    ready: the worker's thread imports Celery's modules and the tasks' while the serving
    thread waits, never while it is still importing the project.
    """
    if settings.EMBEDDED_WORKER and serves_the_playground(sys.argv, os.environ):
        embedded = start_embedded_worker()
        _exit_once_the_server_stops()
        return embedded
    return None


def _exit_once_the_server_stops() -> None:
    """Once daphne has stopped serving, stops the embedded worker and exits at once.

    Daphne's reactor shuts down on SIGTERM or Ctrl-C: it ends each connection's application,
    closes its sockets, then runs the "after shutdown" triggers. Past that point the process
    only released its leases (``stop_embedded_worker``) and tore its heap down, which took
    seconds with a 5,000-node cluster mirrored: it exits instead (``exit_now``), with the 0
    daphne's server returns whatever stopped it. Outside daphne (no reactor) the interpreter's
    exit stops the worker (``_at_interpreter_exit``).
    """
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is not None:
        reactor.addSystemEventTrigger("after", "shutdown", stop_embedded_worker_and_exit)


EXITING = "the server has stopped and the embedded worker with it: exiting"


def stop_embedded_worker_and_exit() -> None:
    stop_embedded_worker()
    logger.info(EXITING)
    exit_now(0)


def start_embedded_worker() -> EmbeddedWorker:
    """The process's embedded worker, started on first call."""
    global _embedded
    with _lock:
        if _embedded is None:
            _embedded = EmbeddedWorker().start()
            logger.info("embedded Celery worker started (queues %s)", ", ".join(QUEUES))
            _at_interpreter_exit(stop_embedded_worker)
        return _embedded


def _at_interpreter_exit(stop: Callable[[], None]) -> None:
    """Calls ``stop`` when the process is about to exit (the server was told to stop).

    The interpreter waits for the worker pool's threads before exiting, and a running scheduler
    service never ends by itself: unstopped, the process would hang. ``atexit`` runs too late
    (after that wait); threading's own hook runs before it, as concurrent.futures uses it.
    """
    register = getattr(threading, "_register_atexit", atexit.register)
    register(stop)


def stop_embedded_worker(release: bool = True) -> None:
    global _embedded
    with _lock:
        embedded, _embedded = _embedded, None
    if embedded is not None:
        embedded.stop(release=release)
