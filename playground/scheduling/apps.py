"""The scheduler service: the engine running against a workspace, on Celery."""

from __future__ import annotations

from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "playground.scheduling"
    label = "scheduling"

    def ready(self) -> None:
        """Loads the project's Celery app as Django starts, in every process, so that tasks sent
        from the web process go to the project's broker, not to Celery's default one.

        The embedded worker is not started here: see ``playground.asgi``."""
        import playground.celery  # noqa: F401
