"""The scheduler service: the engine running against a workspace, on Celery."""
