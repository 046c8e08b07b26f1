"""Schedulers over an in-memory cluster with fake plugins, counting into their own Metrics."""

from __future__ import annotations

import random
from typing import Any

from framework.backend.cache.cache import Cache
from framework.backend.queue.scheduling_queue import PriorityQueue
from framework.cluster.memory import InMemoryCluster
from framework.metrics import Metrics
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.scheduler.scheduler import Scheduler
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from framework.util.clock import FakeClock
from tests.framework.builders import make_node
from tests.framework.runtime.helpers import minimal, profile

PROFILE = "default-scheduler"


def build(
    plugins: list[Any],
    points: dict[str, list[str]],
    *,
    nodes: tuple[str, ...] = ("n1", "n2", "n3"),
    extenders: list[Any] = (),  # type: ignore[assignment]
) -> Scheduler:
    """A started scheduler over ``nodes``; its Bind plugin binds in the cluster."""
    clock = FakeClock()
    metrics = Metrics()
    cluster = InMemoryCluster(make_node(n) for n in nodes)
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", lambda args, handle: _ClusterBinder(cluster))
    for plugin in plugins:
        registry.register(plugin.name, plugin.factory())
    framework = Framework(
        registry,
        profile(**minimal(**points)),
        clock=clock,
        metrics=metrics,
        extenders=extenders,
    )
    queue = PriorityQueue.from_frameworks([framework], clock=clock)
    scheduler = Scheduler(
        {PROFILE: framework},
        queue,
        Cache(),
        cluster=cluster,
        clock=clock,
        rng=random.Random(0),
        extenders=list(extenders),
    )
    scheduler.start()
    return scheduler


class _ClusterBinder(FakeBind):
    """Binds in the cluster, as DefaultBinder does."""

    def __init__(self, cluster: InMemoryCluster) -> None:
        super().__init__("Binder")
        self.cluster = cluster

    def bind(self, state: Any, pod: Any, node_name: str) -> Any:
        self.cluster.bind(pod.namespace, pod.name, pod.uid, node_name)
        return None


def add(scheduler: Scheduler, obj: Any) -> None:
    scheduler.clock.step(0.001)
    scheduler.cluster.add(obj)
