"""The Django side of the Scheduler Playground: adapts the engine to a database and a browser."""

from playground.celery import app as celery_app

__all__ = ["celery_app"]
