"""A comparison's run: phase 1 runs every variant untraced, phase 2 reruns the finished ones
with the pods that landed differently traced (``framework.compare``'s two phases, spread over
Celery tasks instead of processes).

The tasks (``playground.compare.tasks``) only call in here. Each variant's row is its state:
a task claims a queued row (so a redelivered or cancelled task does nothing), writes progress
now and then, and its ``should_stop`` reads the row again, so Cancel on the page stops it
between two scheduling cycles. Whoever ends a phase's last variant moves the comparison on;
the move is a conditional update of ``phase``, so two tasks ending together move it once.
Nothing here writes to the workspace.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from framework.compare import (
    Cancelled,
    CompareError,
    VariantResult,
    VariantSpec,
    compare_results,
    run_variant,
)
from playground.compare.inputs import variant_inputs
from playground.compare.models import (
    CANCELLED,
    DONE,
    ENDED,
    FAILED,
    QUEUED,
    RUNNING,
    Comparison,
    ComparisonVariant,
)

logger = logging.getLogger(__name__)

TRACE = 2
"""The phase of a task that traces the differing pods (1: the variant's plain run)."""
Dispatch = Callable[[int, int], None]
"""Sends the task of (phase, variant id)."""
PROGRESS_SECONDS = 0.5
"""At most one progress write per variant in this time."""
STOP_POLL_SECONDS = 0.25
"""At most one read of the variant's row per cancel check in this time."""
MAX_TRACED_PODS = 100
"""Differing pods whose attempts phase 2 keeps (the first in the report's order): a trace
holds every node's verdicts and scores, and thousands of them would make a huge row."""


def start(comparison: Comparison, dispatch: Dispatch) -> None:
    """Sends every variant's phase-1 task once the rows are committed."""
    ids = list(comparison.variants.values_list("pk", flat=True))
    transaction.on_commit(lambda: [dispatch(1, pk) for pk in ids])


def run_phase(phase: int, variant_id: int, dispatch: Dispatch, worker: str = "") -> str:
    """Runs the variant's phase 1 (untraced) or 2 (the differing pods traced), stores the
    outcome on its row, and moves the comparison on if this was the phase's last variant."""
    field = "trace_state" if phase == TRACE else "state"
    claimed = ComparisonVariant.objects.filter(pk=variant_id, **{field: QUEUED}).update(
        **{field: RUNNING, "settled": 0},
        **({} if phase == TRACE else {"started": timezone.now(), "worker": worker}),
    )
    variant = ComparisonVariant.objects.select_related("comparison").filter(pk=variant_id).first()
    if variant is None:
        return "the comparison is gone"
    comparison = variant.comparison
    if not claimed:
        advance(comparison.pk, dispatch)
        return f"variant {variant.name} was not queued"
    Comparison.objects.filter(pk=comparison.pk, state=QUEUED).update(state=RUNNING)
    outcome = _run(phase, comparison, variant, field)
    advance(comparison.pk, dispatch)
    return outcome


def _run(phase: int, comparison: Comparison, variant: ComparisonVariant, field: str) -> str:
    running = ComparisonVariant.objects.filter(pk=variant.pk, **{field: RUNNING})
    spec = VariantSpec(variant.name, variant.config_text)
    traced = frozenset(traced_pods(comparison.report)) if phase == TRACE else frozenset()
    try:
        result = run_variant(
            spec,
            variant_inputs(comparison, variant),
            trace_pods=traced,
            progress=_progress_writer(variant.pk),
            should_stop=_stop_check(variant.pk, field),
        )
    except Cancelled:
        running.update(**{field: CANCELLED, "finished": timezone.now()})
        return f"variant {variant.name} cancelled"
    except CompareError as err:
        running.update(**{field: FAILED, "error": str(err), "finished": timezone.now()})
        return f"variant {variant.name} failed: {err}"
    except Exception as err:  # the variant fails, the comparison goes on with the others
        logger.exception("variant %s of comparison %s", variant.name, comparison.pk)
        problem = f"{type(err).__name__}: {err}"
        running.update(**{field: FAILED, "error": problem, "finished": timezone.now()})
        return f"variant {variant.name} failed: {problem}"
    stored: dict[str, Any] = {field: DONE, "finished": timezone.now()}
    if phase == TRACE:
        stored["attempts"] = result.attempts
    else:
        stored["result"] = result.to_dict()
    running.update(**stored)
    return f"variant {variant.name} " + ("traced" if phase == TRACE else "done")


def _progress_writer(variant_id: int) -> Callable[[int, int], None]:
    """Writes (settled, total) to the row, at most every PROGRESS_SECONDS (and the last)."""
    last = [0.0]

    def progress(settled: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_SECONDS or settled >= total:
            last[0] = now
            ComparisonVariant.objects.filter(pk=variant_id).update(settled=settled, total=total)

    return progress


def _stop_check(variant_id: int, field: str) -> Callable[[], bool]:
    """True once the row's state (``field``) is cancelled; reads it every STOP_POLL_SECONDS."""
    checked = [0.0, False]

    def should_stop() -> bool:
        now = time.monotonic()
        if not checked[1] and now - checked[0] >= STOP_POLL_SECONDS:
            checked[0] = now
            state = ComparisonVariant.objects.filter(pk=variant_id).values_list(field, flat=True)
            checked[1] = state.first() in (CANCELLED, None)
        return bool(checked[1])

    return should_stop


def differing_pods(report: dict[str, Any] | None) -> list[str]:
    """The pods placed differently from the first variant, as the report lists them."""
    return [entry["pod"] for entry in ((report or {}).get("differences") or {}).get("pods", [])]


def traced_pods(report: dict[str, Any] | None) -> list[str]:
    """The differing pods phase 2 traces: the first MAX_TRACED_PODS."""
    return differing_pods(report)[:MAX_TRACED_PODS]


# ----------------------------------------------------------------------------------------------
# Moving a comparison on


def advance(comparison_id: int, dispatch: Dispatch) -> None:
    """Ends phase 1 once every variant has ended (report, then traces or the end), and phase 2
    once every trace has."""
    if all(state in ENDED for state, _ in _states(comparison_id)):
        _end_phase_one(comparison_id, dispatch)
    running = (QUEUED, RUNNING)
    if not any(state in running or trace in running for state, trace in _states(comparison_id)):
        _end(comparison_id, from_phase=TRACE)


def _states(comparison_id: int) -> list[tuple[str, str]]:
    """(state, trace_state) of every variant, read now (not their results: they can be large)."""
    rows = ComparisonVariant.objects.filter(comparison_id=comparison_id)
    return list(rows.values_list("state", "trace_state"))


@transaction.atomic
def _end_phase_one(comparison_id: int, dispatch: Dispatch) -> None:
    """The report of the variants that finished; their traces if pods landed differently.

    One transaction: a task ending at the same time waits for it on the comparison's row, then
    finds phase 1 ended and the traces queued (not a comparison with nothing left to run)."""
    if not Comparison.objects.filter(pk=comparison_id, phase=1).update(phase=TRACE):
        return  # another task ended it
    variants = ComparisonVariant.objects.filter(comparison_id=comparison_id)
    done = variants.filter(state=DONE).order_by("index")
    if not done.exists():
        failed = variants.filter(state=FAILED).count()
        problem = f"no variant finished: {failed} failed, {variants.count() - failed} cancelled"
        _end(comparison_id, TRACE, FAILED if failed else CANCELLED, problem)
        return
    results = [VariantResult.from_dict(result) for result in done.values_list("result", flat=True)]
    report = compare_results(results)
    Comparison.objects.filter(pk=comparison_id).update(report=report)
    if len(results) < 2 or not differing_pods(report):
        return  # advance() ends it: nothing to trace
    ids = list(done.values_list("pk", flat=True))
    ComparisonVariant.objects.filter(pk__in=ids).update(trace_state=QUEUED, settled=0, total=0)
    transaction.on_commit(lambda: [dispatch(TRACE, pk) for pk in ids])


def _end(comparison_id: int, from_phase: int, state: str = DONE, error: str = "") -> None:
    Comparison.objects.filter(pk=comparison_id, phase=from_phase).update(
        phase=3, state=state, error=error, finished=timezone.now()
    )


# ----------------------------------------------------------------------------------------------
# Cancel


def cancel_variant(variant: ComparisonVariant, dispatch: Dispatch) -> bool:
    """Stops the variant's running phase (its task sees it at its next check; a queued task
    does nothing when it starts). False when it had ended."""
    field = "trace_state" if variant.tracing else "state"
    stopped = ComparisonVariant.objects.filter(
        pk=variant.pk, **{f"{field}__in": (QUEUED, RUNNING)}
    ).update(**{field: CANCELLED, "finished": timezone.now()})
    advance(variant.comparison_id, dispatch)
    return bool(stopped)


def cancel_comparison(comparison: Comparison) -> int:
    """Stops every variant still queued or running, in either phase; the comparison ends
    cancelled, keeping the report it has (if phase 1 had ended). How many were stopped."""
    now = timezone.now()
    rows = ComparisonVariant.objects.filter(comparison=comparison)
    stopped = rows.filter(state__in=(QUEUED, RUNNING)).update(state=CANCELLED, finished=now)
    stopped += rows.filter(trace_state__in=(QUEUED, RUNNING)).update(
        trace_state=CANCELLED, finished=now
    )
    Comparison.objects.filter(pk=comparison.pk).filter(~Q(phase=3)).update(
        phase=3, state=CANCELLED, finished=now
    )
    return stopped
