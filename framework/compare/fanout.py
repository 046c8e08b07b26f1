"""A whole comparison in two phases, each variant in a process of its own.

Phase 1 runs every variant with tracing off and finds the pods placed differently from the
first. Phase 2 runs every variant again, same inputs and seed (so the same placements), with
those pods traced, so each one's attempts come with their filter verdicts, scores and events;
it is skipped when no pod differs. At most ``trace_limit`` pods are traced (the first ones in
the report's order): a trace holds an event per plugin and node, which adds up quickly on
thousands of nodes.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from framework.compare.inputs import CompareInputs
from framework.compare.report import compare_results, differing_pods
from framework.compare.variant import VariantResult, VariantSpec, run_variant

TRACE_LIMIT = 20
"""Differing pods traced in phase 2 by default."""


def compare(
    specs: Sequence[VariantSpec],
    inputs: CompareInputs,
    *,
    processes: int | None = None,
    trace_limit: int = TRACE_LIMIT,
) -> dict[str, Any]:
    """The report (``compare_results``) of the specs over the inputs, phase 2's traces in
    ``differences.pods[i].attempts``. ``processes`` caps the worker processes (default: one
    per variant, at most one per CPU)."""
    workers = processes or min(len(specs), os.cpu_count() or 1)
    # spawn, not fork: a caller with threads (a web server, a Celery worker) forks unsafely.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:
        results = run_all(pool, specs, inputs, frozenset())
        traced = frozenset(differing_pods(results)[: max(0, trace_limit)])
        if traced:
            results = run_all(pool, specs, inputs, traced)
    return compare_results(results)


def run_all(
    pool: ProcessPoolExecutor,
    specs: Sequence[VariantSpec],
    inputs: CompareInputs,
    trace_pods: frozenset[str],
) -> list[VariantResult]:
    """Every variant's result, in the specs' order; the first error raised is re-raised."""
    futures = [pool.submit(_run, spec, inputs, trace_pods) for spec in specs]
    return [VariantResult.from_dict(future.result()) for future in futures]


def _run(spec: VariantSpec, inputs: CompareInputs, trace_pods: frozenset[str]) -> dict[str, Any]:
    return run_variant(spec, inputs, trace_pods=trace_pods).to_dict()
