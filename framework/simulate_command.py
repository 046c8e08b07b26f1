"""``python -m framework simulate``: schedule every pending pod and print every attempt."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from framework.api.errors import ObjectError
from framework.api.pod_group import POD_GROUP_SCHEDULED
from framework.config.commands import add_feature_gates_argument, feature_gates_argument
from framework.config.load import ConfigError
from framework.debugger.arguments import add_breakpoint_arguments, breakpoints_from_arguments
from framework.debugger.breakpoints import BreakpointError
from framework.debugger.session import CONTINUE, Debugger, Stop, describe_stop
from framework.features import FeatureGateError
from framework.pod_group_report import PodGroupReport
from framework.runtime.framework import FrameworkError
from framework.simulator import AttemptReport, Simulation, SimulationError

INPUT_ERRORS = (
    OSError,
    ConfigError,
    ObjectError,
    FrameworkError,
    SimulationError,
    FeatureGateError,
)
"""What a simulation of bad input raises: the commands print it and exit 1."""


def run(args: argparse.Namespace) -> int:
    stops: list[Stop] = []
    try:
        debugger = _recording_debugger(args, stops)
        objects_text = read_objects(args.objects)
        simulation = Simulation(
            args.config,
            objects_text,
            seed=args.seed,
            debugger=debugger,
            features=feature_gates_argument(args),
        )
        reports = simulation.run_one_at_a_time() if args.one_at_a_time else simulation.run()
    except (*INPUT_ERRORS, BreakpointError) as err:
        print(f"simulate: {err}", file=sys.stderr)
        return 1
    # Pod groups exist only with GenericWorkload: without it the key is left out, as before.
    groups = (
        simulation.pod_group_reports() if simulation.features.enabled("GenericWorkload") else None
    )
    if args.output == "json":
        output: dict[str, Any] = {"pods": [r.to_dict() for r in reports]}
        if groups is not None:
            output["podGroups"] = [group.to_dict() for group in groups]
        if debugger is not None:
            output["stops"] = [stop.to_dict() for stop in stops]
        output["metrics"] = simulation.metrics.to_dict()
        json.dump(output, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_table(reports))
        sys.stdout.write(render_pod_groups(groups or []))
        sys.stdout.write("".join(f"stop: {describe_stop(stop)}\n" for stop in stops))
    return 0


def _recording_debugger(args: argparse.Namespace, stops: list[Stop]) -> Debugger | None:
    """With ``--break``: a debugger that records every stop and continues at once, so the
    placements are those of a run without it."""
    breakpoints = breakpoints_from_arguments(args)
    if not breakpoints:
        return None

    def record(stop: Stop) -> str:
        stops.append(stop)
        return CONTINUE

    return Debugger(breakpoints, record)


def read_objects(path: str) -> str:
    """The objects file's text; a file that cannot be read is reported as the config file is."""
    try:
        return Path(path).read_text()
    except OSError as err:
        raise SimulationError(f"open {path}: {(err.strerror or str(err)).lower()}") from None


def render_table(reports: list[AttemptReport]) -> str:
    """One block per attempt: outcome, then the top scores or the failure message."""
    lines: list[str] = []
    width = max((len(r.attempt.pod) for r in reports), default=3)
    for report in reports:
        attempt = report.attempt
        where = attempt.node or "-"
        lines.append(
            f"{attempt.pod:<{width}}  {attempt.result:<13}  {where:<20}  "
            f"evaluated {attempt.evaluated_nodes}, feasible {attempt.feasible_nodes}"
        )
        if attempt.message:
            lines.append(f"{'':<{width}}  {attempt.message}")
        for node, total in _top(attempt.final_scores):
            lines.append(f"{'':<{width}}    {total:>6}  {node}")
        if report.victims:
            lines.append(f"{'':<{width}}  preempted: {', '.join(report.victims)}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_pod_groups(groups: list[PodGroupReport]) -> str:
    """After the attempts, one block per group: its policy and PodGroupScheduled condition,
    then each member's outcome and, when it went nowhere, the plugins that stopped it and why."""
    lines: list[str] = []
    for group in groups:
        lines += ["", f"pod group {group.pod_group}  {_policy(group)}  {_condition(group)}"]
        width = max((len(m.pod) for m in group.members), default=3)
        for member in group.members:
            lines.append(f"  {member.pod:<{width}}  {member.result:<13}  {member.node or '-'}")
            if member.rejected_by or member.message:
                why = ", ".join(member.rejected_by) or "-"
                lines.append(f"  {'':<{width}}  {why}: {member.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def _policy(group: PodGroupReport) -> str:
    if group.policy is None:
        return "no such PodGroup"
    if group.policy == "gang":
        return f"gang minCount {group.min_count}"
    return group.policy


def _condition(group: PodGroupReport) -> str:
    condition = group.condition
    if condition is None:
        return f"{POD_GROUP_SCHEDULED} not set"
    text = f"{POD_GROUP_SCHEDULED}={condition.status} {condition.reason}"
    return f"{text}: {condition.message}" if condition.message else text


def _top(final_scores: dict[str, int], limit: int = 3) -> list[tuple[str, int]]:
    return sorted(final_scores.items(), key=lambda item: (-item[1], item[0]))[:limit]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate", help="schedule every pending pod of a cluster and print each attempt"
    )
    parser.add_argument("--config", required=True, help="KubeSchedulerConfiguration file")
    parser.add_argument("--objects", required=True, help="Kubernetes manifests (YAML or JSON)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (ties, preemption)")
    parser.add_argument("--output", choices=("json", "table"), default="table")
    parser.add_argument(
        "--one-at-a-time",
        action="store_true",
        help="create each pending pod after the previous one's outcome; delete unschedulable ones",
    )
    add_feature_gates_argument(parser)
    add_breakpoint_arguments(parser)
    parser.set_defaults(handler=run)
