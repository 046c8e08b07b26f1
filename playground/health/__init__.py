"""Health endpoints as kube-scheduler serves them (``/healthz``, ``/livez``, ``/readyz``) for the
web process, and the workers' health check (``manage.py worker_health``)."""
