"""The benchmark harness works: every workload, at a tiny size, places every measured pod.

Counts only; timings are never asserted (they depend on the machine).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks import compare
from benchmarks.__main__ import main
from benchmarks.harness import NotSimulated, not_simulated, percentile, run_workload, throughput
from benchmarks.workloads import WORKLOADS

TINY = {
    "SchedulingBasic": (6, 5),
    "SchedulingBasicManyPods": (6, 5),
    "NodeAffinity": (6, 5),
    "PodAntiAffinity": (6, 4),
    "TopologySpreading": (6, 5),
    "Preemption": (3, 3),
    "SchedulingWithResourceClaimTemplate": (2, 5),
    "GangScheduling": (6, 20),
    "GangSchedulingPlainPods": (6, 20),
    "GangSchedulingZone": (6, 16),
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


@pytest.mark.parametrize("tracing", [False, True], ids=["tracing off", "tracing on"])
def test_gangs_are_bound_whole_each_member_but_the_last_waiting_at_permit(tracing: bool) -> None:
    # 20 pods: gangs of 8, 8 and a last one of 4 that asks for its 4.
    result = run_workload(WORKLOADS["GangScheduling"], nodes=6, pods=20, tracing=tracing)
    assert (result.scheduled, result.groups, result.scheduled_groups) == (20, 3, 3)
    assert result.attempts == 20 + 7 + 7 + 3


def test_the_plain_pods_beside_the_gangs_are_in_no_group() -> None:
    result = run_workload(WORKLOADS["GangSchedulingPlainPods"], nodes=6, pods=20)
    assert (result.scheduled, result.attempts, result.groups, result.scheduled_groups) == (
        20,
        20,
        0,
        0,
    )


def test_the_zone_variant_places_each_gang_in_one_zone() -> None:
    workload = WORKLOADS["GangSchedulingZone"]
    assert "TopologyAwareWorkloadScheduling=true" in workload.features
    assert workload.topology_key == "topology.kubernetes.io/zone"
    assert not_simulated(workload) is None
    result = run_workload(workload, nodes=6, pods=16)
    assert (result.scheduled, result.scheduled_groups) == (16, 2)


def test_a_workload_whose_gates_the_engine_lacks_is_refused_by_name() -> None:
    gates = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
    workload = replace(WORKLOADS["GangScheduling"], features=gates)
    refusal = not_simulated(workload)
    assert refusal is not None and refusal.endswith("DRAWorkloadResourceClaims")
    with pytest.raises(NotSimulated):
        run_workload(workload, nodes=6, pods=16)


def test_the_command_gives_groups_per_second_for_gangs_only(capsys) -> None:
    workloads = ["--workload", "GangScheduling", "--workload", "SchedulingBasic"]
    main(["run", *workloads, "--nodes", "3", "--pods", "16", "--tracing", "off"])
    header, gangs, plain = capsys.readouterr().out.splitlines()
    groups = header.split().index("groups/s")
    assert float(gangs.split()[groups]) > 0 and gangs.split()[groups + 1] == "2"
    assert plain.split()[groups : groups + 2] == ["-", "-"]


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


def test_the_compare_benchmark_runs_each_variant_alone_and_two_at_once():
    lines: list[str] = []
    text = compare.run(nodes=6, bound=12, pending=5, say=lines.append)
    assert text == "\n".join(lines)
    assert lines[0].startswith("compare: 6 nodes, 12 bound pods, 5 pending, tracing off;")
    rows = {line.split()[0]: line.split() for line in lines[2:4]}
    assert set(rows) == set(compare.VARIANTS)
    assert all(row[4] == "5" for row in rows.values())  # every pending pod scheduled
    assert lines[4].startswith("one variant on one process: ")
    assert "two variants on two processes: " in lines[4]


def test_the_compare_benchmarks_cluster_has_its_workloads():
    objects = compare.cluster_objects(nodes=3, bound=100, pending=150)
    assert [o["kind"] for o in objects].count("Node") == 3
    owners = {o["metadata"]["ownerReferences"][0]["name"] for o in objects if o["kind"] == "Pod"}
    assert owners == {"running-0", "running-1", "pending-0", "pending-1"}
