"""``python -m benchmarks compare``: issue 25's scale, one comparison variant at a time and two
at once.

The cluster: ``nodes`` nodes (upstream's node-default, 4 CPUs, 32Gi, in three zones),
``bound`` pods already running on them (pod-default, round robin, owned by ReplicaSets of 50
so the skew measure has workloads to group) and ``pending`` pods to schedule (pod-default,
ReplicaSets of 100). Each variant (spreading: kube-scheduler's default profile, LeastAllocated;
bin-packing: NodeResourcesFit MostAllocated) runs ``run_variant`` with tracing off in a fresh
interpreter, so its seconds include reading the objects and its peak RSS is its own. Then both
run at once, each in its own interpreter, beside one alone: with two free cores the pair should
take about as long as one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.harness import peak_rss_mib
from benchmarks.workloads import ZONE_LABEL, node_manifest, pod_manifest

DEFAULT_NODES = 5_000
DEFAULT_BOUND = 50_000
DEFAULT_PENDING = 5_000
BOUND_PER_WORKLOAD = 50
PENDING_PER_WORKLOAD = 100
ZONES = ("zone-a", "zone-b", "zone-c")
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
VARIANTS = {
    "spreading": HEADER,
    "bin-packing": HEADER + "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n"
    "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
    "        type: MostAllocated\n        resources:\n"
    "        - {name: cpu, weight: 1}\n        - {name: memory, weight: 1}\n",
}


@dataclass(frozen=True, slots=True)
class VariantFigures:
    """One variant's run in its own interpreter."""

    variant: str
    seconds: float
    """Wall seconds of ``run_variant``: reading the objects, scheduling, the measures."""
    cpu_seconds: float
    """CPU seconds the child used for it (what a busy machine does not inflate)."""
    peak_rss_mib: float
    scheduled: int
    pods: int
    cycle_p50_ms: float
    cycle_p99_ms: float


def cluster_objects(nodes: int, bound: int, pending: int) -> list[dict[str, Any]]:
    """The manifests of the benchmark's cluster (see the module's docstring)."""
    width = len(str(max(nodes - 1, 0)))
    names = [f"node-{i:0{width}d}" for i in range(nodes)]
    objects = [
        node_manifest(name, {ZONE_LABEL: ZONES[i % len(ZONES)]}) for i, name in enumerate(names)
    ]
    for i in range(bound):
        pod = _owned(pod_manifest(f"running-{i}"), f"running-{i // BOUND_PER_WORKLOAD}")
        pod["spec"]["nodeName"] = names[i % nodes]
        pod["status"] = {"phase": "Running"}
        objects.append(pod)
    for i in range(pending):
        objects.append(_owned(pod_manifest(f"pending-{i}"), f"pending-{i // PENDING_PER_WORKLOAD}"))
    return objects


def _owned(pod: dict[str, Any], replica_set: str) -> dict[str, Any]:
    pod["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": replica_set,
            "uid": f"uid-{replica_set}",
            "controller": True,
        }
    ]
    return pod


def write_objects(path: Path, nodes: int, bound: int, pending: int) -> None:
    """The cluster as a JSON list (what the comparison reads fastest)."""
    path.write_text(json.dumps(cluster_objects(nodes, bound, pending), separators=(",", ":")))


def run_one(variant: str, objects_path: Path) -> VariantFigures:
    """Runs one variant in this process (the child's job) and returns its figures."""
    from framework.compare.inputs import CompareInputs
    from framework.compare.variant import VariantSpec, run_variant

    start, cpu = time.perf_counter(), time.process_time()
    inputs = CompareInputs(objects_path.read_text())
    result = run_variant(VariantSpec(variant, VARIANTS[variant]), inputs)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    pods = result.measures["pods"]
    latency = result.measures["latency"]
    return VariantFigures(
        variant=variant,
        seconds=round(seconds, 2),
        cpu_seconds=round(cpu, 2),
        peak_rss_mib=round(peak_rss_mib(), 1),
        scheduled=pods["scheduled"],
        pods=pods["total"],
        cycle_p50_ms=latency["cycleP50Ms"],
        cycle_p99_ms=latency["cycleP99Ms"],
    )


def run(nodes: int, bound: int, pending: int, say: Any = print) -> str:
    """Every variant alone, then one alone beside two at once; the report's text."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.json"
        write_objects(path, nodes, bound, pending)
        load = os.getloadavg()
        lines = [
            f"compare: {nodes} nodes, {bound} bound pods, {pending} pending, tracing off;"
            f" load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
            f"{'variant':>12}  {'seconds':>8}  {'CPU s':>6}  {'RSS MiB':>8}  {'scheduled':>9}"
            f"  {'p50 ms':>7}  {'p99 ms':>7}",
        ]
        say(lines[0])
        say(lines[1])
        for variant in VARIANTS:
            figures, _ = _children([variant], path)
            lines.append(_row(figures[0]))
            say(lines[-1])
        one, one_seconds = _children(["spreading"], path)
        both, both_seconds = _children(list(VARIANTS), path)
        lines.append(
            f"one variant on one process: {one_seconds:.1f} s ({_cpu(one)} CPU s);"
            f" two variants on two processes: {both_seconds:.1f} s ({_cpu(both)} CPU s),"
            f" {both_seconds / one_seconds:.2f}x; load average now {os.getloadavg()[0]:.2f}"
        )
        say(lines[-1])
        return "\n".join(lines)


def _children(variants: list[str], path: Path) -> tuple[list[VariantFigures], float]:
    """Runs each variant in its own interpreter, all at once; their figures and the wall
    seconds until the last one ended."""
    start = time.perf_counter()
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "benchmarks", "compare-one", "--variant", v, str(path)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for v in variants
    ]
    outputs = [child.communicate()[0] for child in children]
    seconds = time.perf_counter() - start
    for child in children:
        if child.returncode:
            raise RuntimeError(f"a compare-one child failed ({child.returncode})")
    figures = [VariantFigures(**json.loads(out.splitlines()[-1])) for out in outputs]
    return figures, seconds


def _cpu(figures: list[VariantFigures]) -> str:
    return " + ".join(f"{f.cpu_seconds:.1f}" for f in figures)


def _row(f: VariantFigures) -> str:
    return (
        f"{f.variant:>12}  {f.seconds:>8.1f}  {f.cpu_seconds:>6.1f}  {f.peak_rss_mib:>8.0f}"
        f"  {f.scheduled:>9}"
        f"  {f.cycle_p50_ms:>7.2f}  {f.cycle_p99_ms:>7.2f}"
    )


def figures_json(figures: VariantFigures) -> str:
    return json.dumps(asdict(figures))
