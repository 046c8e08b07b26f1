"""The benchmark harness works: every workload, at a tiny size, places every measured pod.

Counts only; timings are never asserted (they depend on the machine).
"""

from __future__ import annotations

import pytest

from benchmarks.__main__ import main
from benchmarks.harness import percentile, run_workload, throughput
from benchmarks.workloads import WORKLOADS

TINY = {
    "SchedulingBasic": (6, 5),
    "SchedulingBasicManyPods": (6, 5),
    "NodeAffinity": (6, 5),
    "PodAntiAffinity": (6, 4),
    "TopologySpreading": (6, 5),
    "Preemption": (3, 3),
    "SchedulingWithResourceClaimTemplate": (2, 5),
}


@pytest.mark.parametrize("tracing", [False, True], ids=["tracing off", "tracing on"])
@pytest.mark.parametrize("name", sorted(WORKLOADS), ids=lambda n: f"{n} at a tiny size")
def test_it_schedules_every_measured_pod(name: str, tracing: bool) -> None:
    nodes, pods = TINY[name]
    result = run_workload(WORKLOADS[name], nodes=nodes, pods=pods, tracing=tracing)
    assert (result.nodes, result.measured_pods, result.scheduled) == (nodes, pods, pods)
    assert result.init_pods == WORKLOADS[name].init_pods_for(nodes)
    assert (result.trace_events > 0) == tracing


def test_it_needs_a_second_attempt_for_each_preempting_pod() -> None:
    result = run_workload(WORKLOADS["Preemption"], nodes=3, pods=3)
    assert result.attempts == 6


def test_it_leaves_pods_unscheduled_when_anti_affinity_allows_one_per_node() -> None:
    result = run_workload(WORKLOADS["PodAntiAffinity"], nodes=4, init_pods=1, pods=5)
    assert result.scheduled == 3


def test_dra_init_pods_are_scheduled_first_and_the_measured_ones_fill_the_devices() -> None:
    # 2 nodes of 20 devices: 20 initial pods take half, 20 measured pods the rest, one is left.
    result = run_workload(WORKLOADS["SchedulingWithResourceClaimTemplate"], nodes=2, pods=21)
    assert (result.init_pods, result.scheduled, result.attempts) == (20, 20, 21)


@pytest.mark.parametrize(
    ("times", "want"),
    [
        ([1.0 + i for i in range(11)], 1.0),
        ([1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5], 2.0),
    ],
    ids=["one pod a second", "two pods a second"],
)
def test_it_measures_throughput_between_ten_and_ninety_percent(
    times: list[float], want: float
) -> None:
    assert throughput(times, 0.0) == pytest.approx(want)


def test_it_takes_the_nearest_rank_percentile() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 99), percentile([], 50)) == (50, 99, 0)


def test_the_command_prints_one_row_per_workload_and_tracing_mode(capsys) -> None:
    main(["run", "--workload", "SchedulingBasic", "--nodes", "3", "--pods", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert [line.split()[4] for line in lines[1:]] == ["off", "on"]
    # Every row says what else the machine was doing: load, rest of the machine, stolen.
    assert lines[0].split()[-5:] == ["load", "rest", "s", "stolen", "s"]
    for line in lines[1:]:
        load, rest, stolen = (float(cell) for cell in line.split()[-3:])
        assert load >= 0 and rest >= 0 and stolen >= 0
