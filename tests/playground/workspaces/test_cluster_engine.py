"""The engine's Scheduler runs over a DatabaseCluster exactly as over the in-memory cluster."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from framework.api.loader import load_objects
from framework.cluster.memory import InMemoryCluster
from framework.config.defaults import default_configuration
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.simulator import CREATION_SPACING, SIMULATION_EPOCH
from framework.util.clock import FakeClock
from playground.workspaces.models import KubeEvent

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def schedule(cluster, objects) -> list[tuple[str, str, str | None, str]]:
    """Stores the objects, starts a scheduler, creates the pending pods; every attempt."""
    pending = [o for o in objects if o.kind == "Pod" and not o.spec.node_name]
    for obj in objects:
        if obj not in pending:
            cluster.add(obj)
    clock = FakeClock(SIMULATION_EPOCH)
    attempts = []
    scheduler = Scheduler.from_configuration(
        default_configuration(),
        cluster,
        in_tree_registry(),
        clock=clock,
        seed=0,
        on_attempt=attempts.append,
    )
    reading = getattr(cluster, "consistent_read", contextlib.nullcontext)
    with reading():
        scheduler.start()
    for pod in pending:
        clock.step(CREATION_SPACING)
        cluster.add(pod)
    scheduler.run_until_idle()
    return [(a.pod, a.result, a.node, a.message) for a in attempts]


@pytest.mark.parametrize(
    "example",
    ["resources", "taints-tolerations", "preemption", "topology-spread"],
    ids=[
        "resources",
        "taints and tolerations",
        "preemption with victims and nominations",
        "topology spread",
    ],
)
def test_every_attempt_matches_the_in_memory_run(cluster, example):
    text = (EXAMPLES / example / "objects.yaml").read_text()
    in_memory = schedule(InMemoryCluster(), load_objects(text))
    in_database = schedule(cluster, load_objects(text))
    assert in_database == in_memory
    assert any(result == "Scheduled" for _, result, _, _ in in_database)


def test_bound_pods_and_events_end_up_in_the_database(cluster):
    text = (EXAMPLES / "resources" / "objects.yaml").read_text()
    attempts = schedule(cluster, load_objects(text))
    for pod, result, node, _ in attempts:
        if result == "Scheduled":
            namespace, name = pod.split("/")
            assert cluster.get("Pod", name, namespace).spec.node_name == node
    scheduled = KubeEvent.objects.filter(workspace_id=cluster.workspace_id, reason="Scheduled")
    assert scheduled.count() == sum(result == "Scheduled" for _, result, _, _ in attempts)
