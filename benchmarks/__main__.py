"""``python -m benchmarks run [--workload NAME] [--nodes N] [--pods N] [--quick]``.

Every (workload, tracing) pair runs in a fresh interpreter so that each peak RSS is its own.
``one`` is that child's command: it runs a single pair and prints its figures as JSON. Each row
ends with the load average when the run started, the CPU seconds the rest of the machine used
during it and the seconds stolen by the hypervisor: figures from a busy machine are lower.
Gang workloads also give groups/s and the groups whose every member was bound; a workload whose
feature gates the engine does not simulate yet gets a line that says so instead of a row.

``python -m benchmarks playground [--nodes 500] [--pods 1000] [--runs 1] [--watch nobody]`` runs
the playground end to end in production mode (``benchmarks/playground_e2e.py``), with nobody,
one pod's page or the debugger page watching the live trace.

``python -m benchmarks explain-pages [--nodes 2000] [--pods 1000]`` times the explain panels
and the pods list beside them on a big workspace (``benchmarks/explain_pages.py``).

``python -m benchmarks metrics-samples [--workspaces 20]`` times one sample of the Metrics tab's
history, counts the rows an idle day keeps and times the tab over 15 minutes and 24 hours
(``benchmarks/metrics_samples.py``).

``python -m benchmarks live [--nodes 5000] [--pods 10000] [--burst 1000] [--mode both]
[--reference both]`` puts the playground's mirror and second scheduler beside the real
kube-scheduler (with its default client limits and with scheduler_perf's) on a real control
plane from KUBEBUILDER_ASSETS (``benchmarks/live.py``).

``python -m benchmarks compare [--nodes 5000] [--bound 50000] [--pending 5000] [--workers]``
runs issue 25's comparison variants alone and two at once, in plain processes
(``benchmarks/compare.py``) or, with ``--workers``, as the playground's Celery tasks on one
production worker and then two (``benchmarks/compare_workers.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import (
    compare,
    compare_workers,
    explain_pages,
    live,
    metrics_samples,
    playground_e2e,
)
from benchmarks.control_plane import ControlPlaneError
from benchmarks.harness import NotSimulated, Result, not_simulated, run_workload
from benchmarks.processes import machine_usage, stolen_usage
from benchmarks.workloads import WORKLOADS

QUICK_DIVISOR = 10
"""``--quick`` runs every workload at a tenth of its nodes and measured pods."""


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "playground":
        return _playground(args)
    if args.command == "live":
        return _live(args)
    if args.command == "compare":
        return _compare(args)
    if args.command == "compare-one":
        print(compare.figures_json(compare.run_one(args.variant, Path(args.objects))))
        return 0
    if args.command == "explain-pages":
        return _explain_pages(args)
    if args.command == "metrics-samples":
        return _metrics_samples(args)
    if args.command == "metrics-samples-one":
        metrics_samples.run_one(args.workspaces)
        return 0
    if args.command == "one":
        try:
            result = run_workload(
                WORKLOADS[args.workload],
                nodes=args.nodes,
                init_pods=args.init_pods,
                pods=args.pods,
                tracing=args.tracing == "on",
            )
        except NotSimulated as err:
            print(f"{args.workload}: not simulated yet: {err}", file=sys.stderr)
            return 2
        print(json.dumps(result.to_dict()))
        return 0
    names = args.workload or list(WORKLOADS)
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.tracing]
    print(_header())
    for name in names:
        refusal = not_simulated(WORKLOADS[name])
        if refusal is not None:
            print(f"{name}: not simulated yet: {refusal}", flush=True)
            continue
        nodes, pods = _sizes(name, args)
        for tracing in modes:
            result, machine = _run_in_child(name, nodes, pods, tracing)
            print(_row(result, machine), flush=True)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run workloads, tracing off and on, and print a table")
    run.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    run.add_argument("--nodes", type=int, help="nodes (default: the workload's)")
    run.add_argument("--pods", type=int, help="measured pods (default: the workload's)")
    run.add_argument("--quick", action="store_true", help="a tenth of the default sizes")
    run.add_argument("--tracing", choices=("off", "on", "both"), default="both")
    one = commands.add_parser("one", help="run one workload in this process, print JSON")
    one.add_argument("--workload", required=True, choices=sorted(WORKLOADS))
    one.add_argument("--nodes", type=int)
    one.add_argument("--init-pods", type=int)
    one.add_argument("--pods", type=int)
    one.add_argument("--tracing", choices=("off", "on"), default="off")
    e2e = commands.add_parser(
        "playground", help="the playground end to end in production mode (PostgreSQL, Redis)"
    )
    e2e.add_argument("--nodes", type=int, default=playground_e2e.DEFAULT_NODES)
    e2e.add_argument("--pods", type=int, default=playground_e2e.DEFAULT_PODS)
    e2e.add_argument("--runs", type=int, default=1, help="runs, each on a fresh database")
    e2e.add_argument("--timeout", type=float, default=600.0, help="seconds per run at most")
    e2e.add_argument(
        "--watch",
        choices=playground_e2e.WATCHES,
        default=playground_e2e.NOBODY,
        help="who watches the live trace: nobody, a pod's page (one of the pods created in the"
        " middle of the run), or the debugger page (every pod)",
    )
    compare_parser = commands.add_parser(
        "compare", help="issue 25's scale: comparison variants alone and two at once"
    )
    compare_parser.add_argument("--nodes", type=int, default=compare.DEFAULT_NODES)
    compare_parser.add_argument("--bound", type=int, default=compare.DEFAULT_BOUND)
    compare_parser.add_argument("--pending", type=int, default=compare.DEFAULT_PENDING)
    compare_parser.add_argument(
        "--workers",
        action="store_true",
        help="on the playground's Celery workers in production mode (DATABASE_URL and REDIS_URL"
        " set): one worker for one variant, then two workers for two",
    )
    compare_parser.add_argument(
        "--timeout", type=float, default=1800.0, help="seconds phase 1 may take (--workers)"
    )
    compare_one = commands.add_parser("compare-one", help="run one comparison variant, print JSON")
    compare_one.add_argument("--variant", required=True, choices=sorted(compare.VARIANTS))
    compare_one.add_argument("objects", help="the cluster's JSON file")
    pages = commands.add_parser(
        "explain-pages", help="the explain panels and the pods list on a big workspace"
    )
    pages.add_argument("--nodes", type=int, default=explain_pages.DEFAULT_NODES)
    pages.add_argument("--pods", type=int, default=explain_pages.DEFAULT_PODS, help="pending")
    for name in ("metrics-samples", "metrics-samples-one"):
        samples = commands.add_parser(name, help="what the Metrics tab's samples cost")
        samples.add_argument("--workspaces", type=int, default=metrics_samples.DEFAULT_WORKSPACES)
    on_cluster = commands.add_parser(
        "live",
        help="the mirror and the second scheduler beside the real kube-scheduler, on a real"
        " control plane (KUBEBUILDER_ASSETS)",
    )
    on_cluster.add_argument("--nodes", type=int, default=live.DEFAULT_NODES)
    on_cluster.add_argument("--pods", type=int, default=live.DEFAULT_PODS, help="running pods")
    on_cluster.add_argument(
        "--burst", type=int, default=live.DEFAULT_BURST, help="pods each scheduler binds"
    )
    on_cluster.add_argument(
        "--mode",
        choices=(*live.MODES, "both"),
        default="both",
        help="the playground's: embedded (SQLite, in-process worker), production (PostgreSQL,"
        " Redis, worker processes: DATABASE_URL and REDIS_URL set)",
    )
    on_cluster.add_argument(
        "--reference",
        choices=(*live.REFERENCES, "both", "none"),
        default="both",
        help="the real kube-scheduler's client limits: its defaults (qps 50, burst 100),"
        " scheduler_perf's (5000, 5000), both (default), or no kube-scheduler run",
    )
    on_cluster.add_argument(
        "--port", type=int, default=0, help="kube-apiserver's port (default: a free one)"
    )
    on_cluster.add_argument("--timeout", type=float, default=600.0, help="seconds per wait")
    return parser


def _metrics_samples(args: argparse.Namespace) -> int:
    print(f"{args.workspaces} workspaces' series (median of {metrics_samples.REPEATS})")
    for what, figure in metrics_samples.run(args.workspaces):
        print(f"{what:<55} {figure:9.1f}", flush=True)
    return 0


def _explain_pages(args: argparse.Namespace) -> int:
    print(f"{args.nodes} nodes, {args.pods} pending pods (median of {explain_pages.REPEATS})")
    for what, milliseconds in explain_pages.run(args.nodes, args.pods):
        print(f"{what:<45} {milliseconds:9.1f} ms", flush=True)
    return 0


def _live(args: argparse.Namespace) -> int:
    modes = live.MODES if args.mode == "both" else (args.mode,)
    references = {"both": tuple(live.REFERENCES), "none": ()}.get(args.reference, (args.reference,))
    try:
        report = live.run(
            args.nodes,
            args.pods,
            args.burst,
            modes,
            references,
            port=args.port,
            timeout=args.timeout,
            say=lambda what: print(f"... {what}", flush=True),
        )
    except (playground_e2e.NotProductionMode, ControlPlaneError) as err:
        print(err, file=sys.stderr)
        return 2
    print(report.text(), flush=True)
    return 0


def _compare(args: argparse.Namespace) -> int:
    sizes = (args.nodes, args.bound, args.pending)
    if not args.workers:
        compare.run(*sizes, say=_say)
        return 0
    try:
        compare_workers.run(*sizes, timeout=args.timeout, say=_say)
    except playground_e2e.NotProductionMode as err:
        print(err, file=sys.stderr)
        return 2
    return 0


def _say(line: str) -> None:
    print(line, flush=True)


def _playground(args: argparse.Namespace) -> int:
    rates = []
    for number in range(1, args.runs + 1):
        try:
            result = playground_e2e.run(
                args.nodes,
                args.pods,
                args.timeout,
                say=lambda what: print(f"... {what}", flush=True),
                watch=args.watch,
            )
        except playground_e2e.NotProductionMode as err:
            print(err, file=sys.stderr)
            return 2
        print(f"run {number} of {args.runs}: " + result.report(), flush=True)
        rates.append(result.pods_per_second)
    if len(rates) > 1:
        print("pods/s of the runs: " + ", ".join(f"{rate:.1f}" for rate in rates))
    return 0


def _sizes(name: str, args: argparse.Namespace) -> tuple[int, int]:
    workload = WORKLOADS[name]
    divisor = QUICK_DIVISOR if args.quick else 1
    nodes = args.nodes if args.nodes is not None else max(1, workload.nodes // divisor)
    pods = args.pods if args.pods is not None else max(1, workload.measured_pods // divisor)
    return nodes, pods


@dataclass(frozen=True, slots=True)
class Machine:
    """What else the machine did during one run: the shared 2-core machines here lower a
    figure when other work or other guests take the cores, so every row says how much."""

    load: float
    """The 1-minute load average when the run started."""
    rest_seconds: float
    """CPU seconds the rest of the machine used during the run (all cores, the run left out)."""
    stolen_seconds: float
    """CPU seconds the hypervisor gave to other guests during the run."""


def _run_in_child(name: str, nodes: int, pods: int, tracing: bool) -> tuple[Result, Machine]:
    command = [sys.executable, "-m", "benchmarks", "one", "--workload", name]
    command += ["--nodes", str(nodes), "--pods", str(pods)]
    command += ["--tracing", "on" if tracing else "off"]
    load = os.getloadavg()[0]
    busy, stolen, own = machine_usage(), stolen_usage(), _children_cpu_seconds()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    own = _children_cpu_seconds() - own
    machine = Machine(
        load=load,
        rest_seconds=max(0.0, machine_usage().cpu_seconds - busy.cpu_seconds - own),
        stolen_seconds=stolen_usage().cpu_seconds - stolen.cpu_seconds,
    )
    return Result(**json.loads(output.splitlines()[-1])), machine


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_COLUMNS = (
    ("workload", 23),
    ("nodes", 6),
    ("init", 6),
    ("pods", 6),
    ("tracing", 7),
    ("pods/s", 8),
    ("overall", 8),
    ("groups/s", 8),
    ("groups", 6),
    ("p50 ms", 7),
    ("p99 ms", 7),
    ("RSS MiB", 8),
    ("scheduled", 9),
    ("load", 5),
    ("rest s", 6),
    ("stolen s", 8),
)


def _header() -> str:
    return "  ".join(title.rjust(width) for title, width in _COLUMNS)


def _row(r: Result, machine: Machine) -> str:
    cells = (
        r.workload,
        r.nodes,
        r.init_pods,
        r.measured_pods,
        "on" if r.tracing else "off",
        f"{r.pods_per_second:.0f}",
        f"{r.overall_pods_per_second:.0f}",
        f"{r.groups_per_second:.1f}" if r.groups else "-",
        r.scheduled_groups if r.groups else "-",
        f"{r.p50_seconds * 1000:.2f}",
        f"{r.p99_seconds * 1000:.2f}",
        f"{r.peak_rss_mib:.0f}",
        r.scheduled,
        f"{machine.load:.2f}",
        f"{machine.rest_seconds:.1f}",
        f"{machine.stolen_seconds:.1f}",
    )
    return "  ".join(
        str(cell).rjust(width) for cell, (_, width) in zip(cells, _COLUMNS, strict=True)
    )


if __name__ == "__main__":
    sys.exit(main())
