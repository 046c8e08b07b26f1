"""What the Metrics tab's history costs: one sample (collect, then insert a run or extend the
last one), the rows an idle day keeps, and the page over a window, with a realistic number of
series.

The registry holds ``workspaces`` workspaces' series as a busy scheduler leaves them: attempts
and their duration histogram by result, the queue's gauges, unschedulable pods of a few
plugins, every extension point's histogram and the plugin histograms (every default plugin at
each of its points). In multiprocess mode (a fresh interpreter with PROMETHEUS_MULTIPROC_DIR
set, as production runs) a sample reads every process's files, as ``/metrics`` does. The idle
day (8,640 samples of unchanged series) is sampled in single-process mode only: the rows it
keeps do not depend on the mode, and multiprocess reads would take minutes.

Runs against a throwaway SQLite database (whatever DATABASE_URL says).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_WORKSPACES = 20
REPEATS = 20
PLUGINS = (
    "PrioritySort", "SchedulingGates", "NodeUnschedulable", "NodeName", "TaintToleration",
    "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
    "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DefaultPreemption",
    "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder",
)  # fmt: skip
POINTS = ("PreFilter", "Filter", "PreScore", "Score", "Reserve", "PreBind")
EXTENSION_POINTS = (
    "PreEnqueue", "PreFilter", "Filter", "PostFilter", "PreScore", "Score", "Reserve",
    "Unreserve", "Permit", "PreBind", "Bind", "PostBind",
)  # fmt: skip
WINDOW_SAMPLES = {"15m": 90, "24h": 8640}
"""Samples of one workspace in a full window (one every 10 s)."""
DAY_SAMPLES = WINDOW_SAMPLES["24h"]


def run(workspaces: int = DEFAULT_WORKSPACES) -> list[tuple[str, float]]:
    """(what, milliseconds) per measurement, single-process and multiprocess mode."""
    figures = []
    for mode in ("single", "multiprocess"):
        with tempfile.TemporaryDirectory() as scratch:
            env = {**os.environ, "DATABASE_URL": f"sqlite:///{scratch}/samples.db"}
            env.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
            if mode == "multiprocess":
                env["PROMETHEUS_MULTIPROC_DIR"] = str(Path(scratch) / "prometheus")
            else:
                env.pop("PROMETHEUS_MULTIPROC_DIR", None)
            command = [sys.executable, "-m", "benchmarks", "metrics-samples-one"]
            output = subprocess.run(
                [*command, "--workspaces", str(workspaces)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            for line in output.splitlines():
                what, milliseconds = line.rsplit(" ", 1)
                figures.append((f"{mode}: {what}", float(milliseconds)))
    return figures


def run_one(workspaces: int) -> None:
    """This interpreter's measurements, printed as "what milliseconds" lines."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    first = _fill(workspaces)
    for what, milliseconds in _measure(first):
        print(f"{what} {milliseconds:.2f}", flush=True)


def _fill(workspaces: int) -> int:
    """Workspaces with their series counted; returns the first one's id."""
    from django.contrib.auth import get_user_model

    from playground.metrics.workspace_metrics import WorkspaceMetrics
    from playground.workspaces.models import Workspace

    owner = get_user_model().objects.create_user("bench")
    ids = [
        Workspace.objects.create(name=f"w{index}", slug=f"w{index}", owner=owner).pk
        for index in range(workspaces)
    ]
    for workspace in ids:
        metrics = WorkspaceMetrics(workspace)
        for result in ("scheduled", "unschedulable", "error"):
            metrics.inc("scheduler_schedule_attempts_total", 7, result=result, profile="p")
            metrics.observe(
                "scheduler_scheduling_attempt_duration_seconds", 0.01, result=result, profile="p"
            )
        for queue in ("active", "backoff", "unschedulable", "gated"):
            metrics.set("scheduler_pending_pods", 3, queue=queue)
        for plugin in PLUGINS[:5]:
            metrics.set("scheduler_unschedulable_pods", 2, plugin=plugin, profile="p")
        for point in EXTENSION_POINTS:
            for status in ("Success", "Unschedulable"):
                metrics.observe(
                    "scheduler_framework_extension_point_duration_seconds",
                    0.001,
                    extension_point=point,
                    status=status,
                    profile="p",
                )
        for plugin in PLUGINS:
            for point in POINTS:
                metrics.observe(
                    "scheduler_plugin_execution_duration_seconds",
                    0.0001,
                    plugin=plugin,
                    extension_point=point,
                    status="Success",
                )
    return ids[0]


def _measure(workspace: int) -> list[tuple[str, float]]:
    from playground.metrics.history import sample_values, take_sample
    from playground.metrics.registry import exported_registry

    everything = _median(lambda: list(exported_registry().collect()), repeats=3)
    last = take_sample(workspace)
    figures = [
        ("collect every series (as /metrics does)", everything),
        ("collect one workspace's series", _median(lambda: sample_values(workspace))),
        ("a changed sample (collect + insert)", _median(lambda: take_sample(workspace))),
        ("an unchanged sample (collect + update)", _median(
            lambda: take_sample(workspace, last=last)
        )),
        ("stored sample (bytes)", float(len(str(sample_values(workspace))))),
    ]  # fmt: skip
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        figures.append(("rows of an idle day, one per sample (before runs)", float(DAY_SAMPLES)))
        figures.append(("rows of an idle day, as runs", float(_idle_day(workspace))))
    return figures + _tab(workspace, sample_values(workspace))


def _idle_day(workspace: int) -> int:
    """The rows a day of a scheduler service whose series never change leaves."""
    from playground.metrics.history import SAMPLE_INTERVAL, Sampler
    from playground.metrics.models import MetricsSample

    MetricsSample.objects.filter(workspace_id=workspace).delete()
    start = time.time() - DAY_SAMPLES * SAMPLE_INTERVAL
    sampler = Sampler(workspace)
    for index in range(DAY_SAMPLES):
        sampler.sample(start + index * SAMPLE_INTERVAL)
    return MetricsSample.objects.filter(workspace_id=workspace).count()


def _tab(workspace: int, values: dict) -> list[tuple[str, float]]:
    """The tab over full windows of samples that all changed (a row each), and over a day of
    unchanged ones (one run)."""
    from playground.front.metrics_tab import metrics_tab
    from playground.metrics.models import MetricsSample

    now = time.time()
    histories = {
        f"{window}, {count} rows": [(now - 10 * index, now - 10 * index) for index in range(count)]
        for window, count in WINDOW_SAMPLES.items()
    }
    histories["24h, an idle day's 1 row"] = [(now - 10 * (DAY_SAMPLES - 1), now)]
    figures = []
    for name, runs in histories.items():
        MetricsSample.objects.filter(workspace_id=workspace).delete()
        MetricsSample.objects.bulk_create(
            MetricsSample(
                workspace_id=workspace, taken_at=_at(taken_at), until=_at(until), values=values
            )
            for taken_at, until in runs
        )
        query = {"window": name.split(",")[0]}
        figures.append((f"the tab over {name}", _median(
            lambda query=query: metrics_tab(workspace, query, now), repeats=3
        )))  # fmt: skip
    return figures


def _at(seconds: float):
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, tz=UTC)


def _median(call, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)
