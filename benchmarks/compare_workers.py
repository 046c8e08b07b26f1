"""``python -m benchmarks compare --workers``: issue 25's scale in production mode, where the
playground runs each comparison variant as a Celery task on the ``scheduler`` queue.

Everything real: a throwaway PostgreSQL database (migrated), Redis keys under a prefix of
their own, and the Procfile's ``scheduler`` worker started as production starts it, once per
worker, each with one thread (``SCHEDULER_THREADS=1``) and its own node name: a worker's
threads share one interpreter lock, so a variant uses a core of its own only on a worker
process of its own (docs/compare.md, "Run, progress, Cancel"). The comparison's input is the
benchmark's cluster (``benchmarks.compare.cluster_objects``) as a snapshot, JSON text copied
into the comparison as the Compare page copies a pasted one; no workspace holds its objects.

Two setups, each on workers started for it and stopped after: one worker running a
comparison of one variant (spreading), then two workers running a comparison of two
(spreading and bin-packing). The comparison tasks accept a single variant (the page asks for
two or more; phase 1 is the same task per variant either way), so this is issue 25's "one
worker for one variant against two workers for two". Phase 1's seconds run from the
sending of the tasks to the last variant's end as its row tells (the processes share this
machine's clock); phase 2 (tracing the pods that landed differently) is not what is measured:
the comparison is cancelled once phase 1 has ended.

The workspace's scheduler lease is held by "elsewhere" for the whole run: a worker's watchdog
would otherwise start the workspace's scheduler service on the one thread the variant needs.
The database and the keys are removed and the workers stopped at the end, also on failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.compare import VARIANTS, write_objects
from benchmarks.playground_e2e import (
    _environment,
    _manage,
    _terminated_as_interrupt,
    _wait,
    _workers_answer,
    production_backends,
    throwaway_backends,
)
from benchmarks.processes import ROOT, procfile_commands, started_processes, tree_usage

SETUPS = ((1, ("spreading",)), (2, ("spreading", "bin-packing")))
"""(workers, variants) of the two setups, in the order they run."""
POLL_SECONDS = 0.2
LEASE_HOLDER = "elsewhere (the compare benchmark)"

CHILD = """
import json, sys
import django
django.setup()
from benchmarks import compare_workers
print(json.dumps(getattr(compare_workers, sys.argv[1])(*sys.argv[2:])))
"""
"""Runs one of this module's Django-side functions in the playground's environment."""


@dataclass(frozen=True, slots=True)
class VariantRun:
    """One variant's phase-1 task, as its row tells (seconds from the sending of the tasks)."""

    name: str
    state: str
    worker: str
    """host:pid:thread of the task."""
    started: float
    ended: float
    scheduled: int
    pods: int


@dataclass(frozen=True, slots=True)
class Setup:
    """One setup's phase 1."""

    workers: int
    seconds: float
    """The sending of the tasks to the last variant's end."""
    variants: list[VariantRun]
    cpu_seconds: list[float]
    """CPU seconds each worker process used meanwhile."""


def run(
    nodes: int,
    bound: int,
    pending: int,
    timeout: float = 1800.0,
    say: Callable[[str], None] = print,
) -> str:
    """Both setups on a fresh database; the report's text (``say`` hears each line)."""
    database_url, redis_url = production_backends(os.environ)
    load = os.getloadavg()
    lines = [
        f"compare on Celery workers (production mode): {nodes} nodes, {bound} bound pods,"
        f" {pending} pending, tracing off; load average at start"
        f" {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    ]
    say(lines[0])
    with (
        tempfile.TemporaryDirectory() as folder,
        throwaway_backends(database_url, redis_url, "compare") as (url, prefix),
        _terminated_as_interrupt(),
    ):
        objects = Path(folder) / "cluster.json"
        write_objects(objects, nodes, bound, pending)
        env = {**_environment(url, redis_url, prefix, 0), "SCHEDULER_THREADS": "1"}
        _manage(env, "migrate", "--noinput")
        workspace = _child(env, "prepare")
        setups = []
        for workers, variants in SETUPS:
            setup = _setup(env, redis_url, prefix, workers, variants, workspace, objects, timeout)
            setups.append(setup)
            for line in _setup_lines(setup):
                lines.append(line)
                say(line)
    one, two = setups
    lines.append(
        f"one worker, one variant: {one.seconds:.1f} s; two workers, two variants:"
        f" {two.seconds:.1f} s, {two.seconds / one.seconds:.2f}x;"
        f" load average now {os.getloadavg()[0]:.2f}"
    )
    say(lines[-1])
    return "\n".join(lines)


def _setup(
    env: Mapping[str, str],
    redis_url: str,
    prefix: str,
    workers: int,
    variants: tuple[str, ...],
    workspace: int,
    objects: Path,
    timeout: float,
) -> Setup:
    """Starts the workers, runs a comparison of ``variants`` to the end of phase 1, stops them."""
    with started_processes(_worker_commands(workers), env) as processes:
        names = {f"compare-{n}" for n in range(1, workers + 1)}
        _wait(_workers_answer(redis_url, prefix, names), "the workers answer", processes)
        before = {name: tree_usage(p.pid).cpu_seconds for name, p in processes.items()}
        arguments = (str(workspace), str(objects), ",".join(variants), str(timeout))
        measured = _child(env, "measure", *arguments)
        cpu = [tree_usage(p.pid).cpu_seconds - before[name] for name, p in processes.items()]
    runs = [VariantRun(**variant) for variant in measured["variants"]]
    return Setup(workers, measured["seconds"], runs, [round(c, 1) for c in cpu])


def _worker_commands(workers: int) -> dict[str, str]:
    """The Procfile's scheduler worker ``workers`` times, each with its own node name (the
    later ``--hostname`` wins): two alike on one host would share one."""
    command = procfile_commands()["scheduler"]
    return {f"compare-{n}": f"{command} --hostname compare-{n}@%h" for n in range(1, workers + 1)}


def _setup_lines(setup: Setup) -> list[str]:
    plural = "s" if setup.workers > 1 else ""
    cpu = " + ".join(f"{seconds:.1f}" for seconds in setup.cpu_seconds)
    lines = [
        f"{setup.workers} worker{plural}, {len(setup.variants)} variant{plural}: phase 1"
        f" {setup.seconds:.1f} s (tasks sent to the last variant's end); workers' CPU s {cpu}"
    ]
    for v in setup.variants:
        lines.append(
            f"  {v.name:>12}  {v.state}  running {v.started:6.1f} -> {v.ended:6.1f} s"
            f" ({v.ended - v.started:.1f} s)  scheduled {v.scheduled} of {v.pods}"
            f"  worker pid {v.worker.split(':')[1] if ':' in v.worker else '?'}"
        )
    return lines


def _child(env: Mapping[str, str], function: str, *args: str) -> Any:
    command = [sys.executable, "-c", CHILD, function, *args]
    done = subprocess.run(command, cwd=ROOT, env=dict(env), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"compare_workers.{function} failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


# ----------------------------------------------------------------------------------------------
# Run in the playground's environment (CHILD)


def prepare() -> int:
    """A user and a workspace whose scheduler lease someone else holds; the workspace's id."""

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from playground.workspaces.models import SchedulerLease, Workspace

    user = get_user_model().objects.create_user("bench")
    workspace = Workspace.objects.create(name="Compare benchmark", slug="compare", owner=user)
    SchedulerLease.objects.create(
        workspace=workspace, holder=LEASE_HOLDER, expires_at=timezone.now() + timedelta(days=1)
    )
    return workspace.pk


def measure(workspace: str, objects: str, variants: str, timeout: str = "1800") -> dict:
    """Creates a comparison of ``variants`` (comma-separated names of ``VARIANTS``) on the
    snapshot in file ``objects``, sends its tasks and waits for every variant's phase 1 to
    end; phase 1's seconds and each variant's run (``VariantRun``), from the task's sending.

    The comparison's row is held (``SELECT ... FOR UPDATE``) from the sending on: the last
    task to end can then not move the comparison to phase 2 before the rows are read (a trace
    that ends writes over ``finished``), and the comparison is cancelled instead. The tasks
    never wait for it otherwise: the comparison is made ``running`` before they start, so
    their ``queued -> running`` update matches nothing."""
    from django.db import transaction
    from django.utils import timezone

    from playground.compare import runs, tasks
    from playground.compare.models import ENDED, RUNNING, SNAPSHOT, Comparison, ComparisonVariant

    comparison = Comparison.objects.create(
        workspace_id=int(workspace),
        source=SNAPSHOT,
        source_label="the compare benchmark's cluster",
        inputs_text=Path(objects).read_text(),
        state=RUNNING,
    )
    for index, name in enumerate(variants.split(",")):
        ComparisonVariant.objects.create(
            comparison=comparison, index=index, name=name, config_text=VARIANTS[name]
        )
    rows = comparison.variants.order_by("index")
    deadline = time.monotonic() + float(timeout)
    with transaction.atomic():
        Comparison.objects.select_for_update().get(pk=comparison.pk)
        sent = timezone.now()
        for pk in rows.values_list("pk", flat=True):
            tasks.dispatch(1, pk)
        while rows.exclude(state__in=ENDED).exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"phase 1 did not end in {timeout} s")
            time.sleep(POLL_SECONDS)
        measured = [asdict(_variant_run(row, sent)) for row in rows]
        runs.cancel_comparison(comparison)
    return {"seconds": max(run["ended"] for run in measured), "variants": measured}


def _variant_run(row: Any, sent: datetime) -> VariantRun:
    """A variant's row as a VariantRun, its times in seconds from ``sent``."""
    pods = (row.result or {}).get("measures", {}).get("pods", {})
    return VariantRun(
        name=row.name,
        state=row.state,
        worker=row.worker,
        started=round((row.started - sent).total_seconds(), 2) if row.started else 0.0,
        ended=round((row.finished - sent).total_seconds(), 2),
        scheduled=pods.get("scheduled", 0),
        pods=pods.get("total", 0),
    )
