"""The Celery app: ``celery -A playground worker -Q scheduler`` / ``-Q binding`` in production.

Settings come from Django's (``CELERY_*``). The in-memory broker of embedded runs polls its
queues: every 50 ms instead of kombu's default second, so a binding task or a service start
waits no longer than a page takes to load; its consumer can be woken to stop
(``playground.memory_broker``). Workers collect garbage less often than Python's
defaults (``GC_THRESHOLDS``). A worker process that has shut down exits without tearing its
heap down (``exit_once_shut_down``).
"""

import gc
import os

from celery import Celery, bootsteps
from celery.apps.worker import Worker
from celery.signals import worker_init, worker_process_shutdown, worker_shutdown

from playground import memory_broker
from playground.exiting import exit_now
from playground.metrics.processes import mark_this_process_dead

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

MEMORY_POLLING_SECONDS = 0.05
GC_THRESHOLDS = (50_000, 20, 10)
"""Allocations between two young-generation collections, and the ratios above (Python's
defaults: 700, 10, 10)."""

app = Celery("playground")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _configure_the_memory_broker(sender: Celery, **_: object) -> None:
    if str(sender.conf.broker_url).startswith("memory://"):
        sender.conf.broker_transport = memory_broker.TRANSPORT
        options = dict(sender.conf.broker_transport_options or {})
        options.setdefault("polling_interval", MEMORY_POLLING_SECONDS)
        sender.conf.broker_transport_options = options


@worker_init.connect
def collect_garbage_less_often(**_: object) -> None:
    """A scheduling cycle with tracing allocates thousands of small objects (the score table
    holds a dict per node and plugin) beside a large heap of long-lived ones (the cluster's
    objects, the scheduler's cache). With Python's default thresholds the scheduler worker
    spent about a third of its CPU in the garbage collector, walking that heap again and
    again. Prefork children inherit the setting."""
    gc.set_threshold(*GC_THRESHOLDS)


@worker_shutdown.connect
def exit_once_shut_down(sender: object, **_: object) -> None:
    """A worker process (``celery worker``) that has shut down exits at once.

        By then its scheduler services and mirrors have released their leases, the pool has
        stopped and the broker connection is closed. What is left is the interpreter's teardown of
        a heap the size of the clusters it held (every object parsed, the schedulers' caches):
        seconds on a busy machine, which a supervisor counts against its stop timeout (the warm
        shutdown of a worker scheduling 5,000 nodes took 9 s, most of it there). The embedded
        worker (a WorkController inside the web process, not a ``Worker``) is left alone: the web
    process exits once its server has stopped (``playground.scheduling.embedded_worker``).
    """
    if not isinstance(sender, Worker) or sender.blueprint.state == bootsteps.RUN:
        return
    exit_now(sender.exitcode or 0)


@worker_process_shutdown.connect
def forget_live_gauges(**_: object) -> None:
    """A prefork child of a worker that ends drops its live gauges from /metrics."""
    mark_this_process_dead()
