"""The Celery app: ``celery -A playground worker -Q scheduler`` / ``-Q binding`` in production.

Settings come from Django's (``CELERY_*``). The in-memory broker of embedded runs polls its
queues: every 50 ms instead of kombu's default second, so a binding task or a service start
waits no longer than a page takes to load. Workers collect garbage less often than Python's
defaults (``GC_THRESHOLDS``).
"""

import gc
import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

MEMORY_POLLING_SECONDS = 0.05
GC_THRESHOLDS = (50_000, 20, 10)
"""Allocations between two young-generation collections, and the ratios above (Python's
defaults: 700, 10, 10)."""

app = Celery("playground")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _poll_the_memory_broker_often(sender: Celery, **_: object) -> None:
    if str(sender.conf.broker_url).startswith("memory://"):
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
