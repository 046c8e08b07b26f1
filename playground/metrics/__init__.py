"""Prometheus ``/metrics``: kube-scheduler's metrics per workspace, and the playground's own.

Every process (web, scheduler worker, binding worker) writes its values to files in
``PROMETHEUS_MULTIPROC_DIR``; the web process's ``/metrics`` reads them all (docs/metrics.md).
"""
