"""The tab's read of one workspace's series gives what /metrics's registry gives them, in
both modes: this process's registry, and every process's files (multiprocess mode)."""

from __future__ import annotations

import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key

from playground.metrics.history import SAMPLE_NAMES
from playground.metrics.registry import exported_families, exported_registry
from playground.metrics.workspace_metrics import WorkspaceMetrics

ATTEMPTS = ("scheduler_schedule_attempts", "scheduler_schedule_attempts_total")
DURATION = "scheduler_scheduling_attempt_duration_seconds"
PENDING = "scheduler_pending_pods"


def series(families, workspace: str) -> dict:
    """(sample name, labels) -> value of the wanted samples of the workspace."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in families
        for sample in family.samples
        if sample.name in SAMPLE_NAMES and sample.labels.get("workspace") == workspace
    }


def test_this_process_s_registry_is_read_for_one_workspace():
    for workspace in (515151, 525252):
        metrics = WorkspaceMetrics(workspace)
        metrics.inc("scheduler_schedule_attempts_total", result="scheduled", profile="p")
        metrics.observe(f"{DURATION}", 0.02, result="scheduled", profile="p")
        metrics.set(PENDING, 4, queue="backoff")
    wanted = series(exported_families(SAMPLE_NAMES, "515151"), "515151")
    assert wanted == series(exported_registry().collect(), "515151")
    assert any(name == f"{DURATION}_bucket" for name, _ in wanted)
    assert all(dict(labels)["workspace"] == "515151" for _, labels in wanted)


def write(directory, file: str, entries: list[tuple[str, str, dict, float, float]]) -> None:
    """Entries as a process in multiprocess mode writes them: (family, sample, labels,
    value, timestamp)."""
    store = MmapedDict(str(directory / file))
    for family, name, labels, value, timestamp in entries:
        key = mmap_key(family, name, list(labels), list(labels.values()), f"help of {family}")
        store.write_value(key, value, timestamp)
    store.close()


@pytest.fixture
def multiprocess_dir(tmp_path, settings):
    """Two processes' files, each with two workspaces' series (7 and 77: one's id is a
    prefix of the other's)."""
    settings.PROMETHEUS_MULTIPROC_DIR = str(tmp_path)
    for pid, scale in ((101, 1.0), (202, 10.0)):
        for workspace in ("7", "77"):
            attempts = {"profile": "p", "result": "scheduled", "workspace": workspace}
            write(tmp_path, f"counter_{pid}.db", [(*ATTEMPTS, attempts, 3 * scale, 0.0)])
            buckets = [
                (DURATION, f"{DURATION}_bucket", {**attempts, "le": le}, count * scale, 0.0)
                for le, count in (("0.001", 1.0), ("0.002", 2.0), ("+Inf", 0.0))
            ]
            total = (DURATION, f"{DURATION}_sum", attempts, 0.004 * scale, 0.0)
            write(tmp_path, f"histogram_{pid}.db", [*buckets, total])
            queue = {"queue": "active", "workspace": workspace}
            # The value written last (the later timestamp) is the gauge's.
            write(
                tmp_path,
                f"gauge_livemostrecent_{pid}.db",
                [(PENDING, PENDING, queue, 5 * scale, 100.0 + scale)],
            )
    return tmp_path


@pytest.mark.parametrize("workspace", ["7", "77"])
def test_every_process_s_files_are_read_for_one_workspace(multiprocess_dir, workspace):
    wanted = series(exported_families(SAMPLE_NAMES, workspace), workspace)
    assert wanted == series(exported_registry().collect(), workspace)
    labels = frozenset({"profile": "p", "result": "scheduled", "workspace": workspace}.items())
    assert wanted[("scheduler_schedule_attempts_total", labels)] == 33  # both processes
    assert wanted[(f"{DURATION}_bucket", labels | {("le", "0.002")})] == 3 + 30  # cumulative
    pending = frozenset({"queue": "active", "workspace": workspace}.items())
    assert wanted[(PENDING, pending)] == 50  # the most recent
    assert all(dict(labels)["workspace"] == workspace for _, labels in wanted)
