"""The scheduler service: the engine running against a workspace, on Celery."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from django.apps import AppConfig, apps
from django.conf import settings


class SchedulingConfig(AppConfig):
    name = "playground.scheduling"
    label = "scheduling"

    def ready(self) -> None:
        """Embedded runs start the Celery worker inside the process that serves the pages.

        It starts once every app is ready (the worker sets Django up again, which cannot
        happen while the app registry is still being populated).
        """
        if settings.EMBEDDED_WORKER and serves_the_playground(sys.argv, os.environ):
            threading.Thread(
                target=_start_embedded_worker, name="embedded-start", daemon=True
            ).start()


def serves_the_playground(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether this process answers HTTP: ``daphne ...``, or ``manage.py runserver`` in the
    process that serves (with autoreload, the child the reloader starts, not the reloader)."""
    program = os.path.basename(argv[0]) if argv else ""
    if program == "daphne":
        return True
    if "runserver" not in argv:
        return False
    return environ.get("RUN_MAIN") == "true" or "--noreload" in argv


def _start_embedded_worker() -> None:
    while not apps.ready:
        time.sleep(0.05)
    from playground.scheduling.embedded_worker import start_embedded_worker

    start_embedded_worker()
