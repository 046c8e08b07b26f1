"""``python -m framework explain``: simulate a cluster, then explain one pod's latest attempt.

The run is ``simulate``'s (every pending pod created at once, in file order, scheduled until
the queue is idle); the explanation reads the pod's latest attempt over the objects that
attempt saw, and its queue place at the end of the run. When the pod ran PostFilter the
preemption explainer shows what preemption weighed (its latest such attempt).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from framework.config.commands import add_feature_gates_argument, feature_gates_argument
from framework.explain.capture import AttemptObjects
from framework.explain.explanation import Explanation, explain_pod
from framework.explain.preemption_explainer import PreemptionExplanation, explain_preemption
from framework.explain.queue_state import queue_state
from framework.explain.render import render_explanation
from framework.simulate_command import INPUT_ERRORS, read_objects
from framework.simulator import AttemptReport, Simulation


class ExplainError(ValueError):
    """The pod cannot be explained as asked (the message names the field)."""


def run(args: argparse.Namespace) -> int:
    try:
        output = explain_command(
            args.config,
            read_objects(args.objects),
            args.pod,
            args.seed,
            feature_gates_argument(args),
        )
    except (*INPUT_ERRORS, ExplainError) as err:
        print(f"explain: {err}", file=sys.stderr)
        return 1
    if args.output == "json":
        json.dump(output, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_explanation(output))
    return 0


def explain_command(
    config: str, objects_text: str, pod_key: str, seed: int = 0, features: Any = None
) -> dict[str, Any]:
    """The JSON the command prints: the explanation, and the preemption explainer or null."""
    namespace, name = _pod_argument(pod_key)
    kwargs = {"features": features} if features is not None else {}
    simulation = Simulation(config, objects_text, seed=seed, **kwargs)
    pod = _pod_in(simulation, namespace, name)
    capture = AttemptObjects(simulation.cluster, pod.key).attach(simulation.scheduler)
    reports = [r for r in simulation.run() if r.attempt.pod == pod.key]
    current = simulation.cluster.get("Pod", name, namespace) or pod
    explanation = _explain(simulation, current, reports, capture)
    preemption = _explain_preemption(simulation, pod, reports, capture)
    return {**explanation.to_dict(), "preemption": preemption.to_dict() if preemption else None}


def _explain(
    simulation: Simulation, pod: Any, reports: list[AttemptReport], capture: AttemptObjects
) -> Explanation:
    queue = queue_state(simulation.scheduler.queue, pod)
    now = simulation.clock.now()
    if not reports:
        attempt = _not_attempted(pod, queue)
        objects = _objects(simulation)
    else:
        attempt = reports[-1].to_dict()
        objects = capture.at(len(reports) - 1) or _objects(simulation)
    if queue is not None and queue.get("unschedulablePlugins"):
        attempt["unschedulablePlugins"] = queue["unschedulablePlugins"]
    return explain_pod(
        pod,
        objects,
        attempt,
        profile=simulation.configuration,
        registry=simulation.registry,
        queue=queue,
        now=now,
        features=simulation.features,
    )


def _explain_preemption(
    simulation: Simulation, pod: Any, reports: list[AttemptReport], capture: AttemptObjects
) -> PreemptionExplanation | None:
    """The pod's latest attempt that ran PostFilter, explained over the objects it saw."""
    for index in range(len(reports) - 1, -1, -1):
        report = reports[index]
        if not any(e.point == "postFilter" for e in report.events):
            continue
        objects = capture.at(index)
        if objects is None:
            return None
        seen = next((o for o in objects if o.kind == "Pod" and o.key == pod.key), pod)
        return explain_preemption(
            seen,
            objects,
            report.to_dict(),
            profile=simulation.configuration,
            registry=simulation.registry,
            features=simulation.features,
            clock=simulation.clock,
            search=capture.searches.get(index),
        )
    return None


def _not_attempted(pod: Any, queue: dict[str, Any] | None) -> dict[str, Any]:
    """A pod never tried: bound before the run, or held by PreEnqueue (scheduling gates)."""
    if pod.spec.node_name:
        return {"pod": pod.key, "result": "Scheduled", "node": pod.spec.node_name, "message": ""}
    gates = ", ".join(pod.spec.scheduling_gates)
    message = f"waiting for scheduling gates: {gates}" if gates else "not tried yet"
    return {"pod": pod.key, "result": "Gated" if gates else "Pending", "message": message}


def _objects(simulation: Simulation) -> list[Any]:
    cluster = simulation.cluster
    return [obj for kind in cluster.kinds() for obj in cluster.list(kind)]


def _pod_argument(value: str) -> tuple[str, str]:
    namespace, slash, name = value.partition("/")
    if not slash or not namespace or not name:
        raise ExplainError(f"--pod: want NAMESPACE/NAME, got {value!r}")
    return namespace, name


def _pod_in(simulation: Simulation, namespace: str, name: str) -> Any:
    for pod in [*simulation.pending, *simulation.cluster.list("Pod")]:
        if pod.namespace == namespace and pod.name == name:
            return pod
    raise ExplainError(f"--pod: pod {namespace}/{name} is not in the objects")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain", help="simulate, then explain why a pod is pending (and its preemption)"
    )
    parser.add_argument("--config", required=True, help="KubeSchedulerConfiguration file")
    parser.add_argument("--objects", required=True, help="Kubernetes manifests (YAML or JSON)")
    parser.add_argument("--pod", required=True, help="the pod to explain, as NAMESPACE/NAME")
    parser.add_argument("--seed", type=int, default=0, help="random seed (ties, preemption)")
    parser.add_argument("--output", choices=("json", "table"), default="table")
    add_feature_gates_argument(parser)
    parser.set_defaults(handler=run)
