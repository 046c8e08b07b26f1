"""Celery tasks of comparisons: one per variant and phase, on the scheduler queue (in the
embedded mode, the in-process worker). They take the variant's id only; the work is
``playground.compare.runs``'s."""

from __future__ import annotations

import os
import socket
import threading

from celery import shared_task
from django.db import close_old_connections

from playground.compare import runs
from playground.compare.models import Comparison, ComparisonVariant


@shared_task(ignore_result=True)
def run_comparison_variant(phase: int, variant_id: int) -> str:
    """Runs phase 1 (the variant untraced) or 2 (the differing pods traced) of a variant."""
    worker = f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"
    try:
        return runs.run_phase(phase, variant_id, dispatch, worker=worker)
    finally:
        close_old_connections()


def dispatch(phase: int, variant_id: int) -> None:
    run_comparison_variant.delay(phase, variant_id)


def start_comparison(comparison: Comparison) -> None:
    """Sends its variants' tasks once the transaction that made them commits."""
    runs.start(comparison, dispatch)


def cancel_variant(variant: ComparisonVariant) -> bool:
    return runs.cancel_variant(variant, dispatch)
