"""The Celery app: ``celery -A playground worker -Q scheduler`` / ``-Q binding`` in production.

Settings come from Django's (``CELERY_*``). The in-memory broker of embedded runs polls its
queues: every 50 ms instead of kombu's default second, so a binding task or a service start
waits no longer than a page takes to load.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

MEMORY_POLLING_SECONDS = 0.05

app = Celery("playground")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _poll_the_memory_broker_often(sender: Celery, **_: object) -> None:
    if str(sender.conf.broker_url).startswith("memory://"):
        options = dict(sender.conf.broker_transport_options or {})
        options.setdefault("polling_interval", MEMORY_POLLING_SECONDS)
        sender.conf.broker_transport_options = options
