"""What ScheduleOne counts beside attempts: the algorithm's duration, pods scheduled only after
the unschedulable pool's flush, work in flight, and the cache's size."""

from __future__ import annotations

from framework import metrics as m
from framework.backend.queue.scheduling_queue import DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS
from framework.interface.status import Code
from framework.testing.fake_plugins import FakeFilter, FakePermit
from tests.framework.builders import make_pod
from tests.framework.metrics.builders import PROFILE, add, build


def test_the_algorithm_is_timed_once_per_cycle_whatever_its_outcome():
    scheduler = build(
        [FakeFilter("Full", code=Code.UNSCHEDULABLE, fail_nodes={"n1"})],
        {"filter": ["Full"]},
        nodes=("n1", "n2"),
    )
    add(scheduler, make_pod("fits"))
    scheduler.run_until_idle()
    scheduler.profiles[PROFILE].plugins_map["Full"].fail_nodes = None
    add(scheduler, make_pod("fits-nowhere"))
    scheduler.run_until_idle()
    algorithm = scheduler.metrics.histogram(m.SCHEDULING_ALGORITHM_DURATION_SECONDS)
    assert algorithm is not None and algorithm.count == 2
    attempts = scheduler.metrics.histograms(m.SCHEDULING_ATTEMPT_DURATION_SECONDS)
    # Both from the pop: the algorithm is part of the attempt.
    assert algorithm.sum <= sum(h.sum for h in attempts.values())


def test_a_pod_the_flush_let_retry_counts_as_scheduled_after_flush():
    gate = FakeFilter("Gate", code=Code.UNSCHEDULABLE)  # registers no events: only the flush
    scheduler = build([gate], {"filter": ["Gate"]}, nodes=("n1",))
    add(scheduler, make_pod("stuck"))
    add(scheduler, make_pod("other"))
    scheduler.run_until_idle()
    assert len(scheduler.queue.unschedulable_pod_list()) == 2
    gate.fail_nodes = set()  # every node passes now, and no event says so
    scheduler.clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS + 1)
    scheduler.run_until_idle()
    assert scheduler.cluster.get("Pod", "stuck", "default").spec.node_name == "n1"
    assert scheduler.metrics.value(m.POD_SCHEDULED_AFTER_FLUSH_TOTAL) == 2


def test_a_pod_scheduled_at_its_first_attempt_is_not_counted_after_flush():
    scheduler = build([], {}, nodes=("n1",))
    add(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    assert scheduler.cluster.get("Pod", "web", "default").spec.node_name == "n1"
    assert scheduler.metrics.value(m.POD_SCHEDULED_AFTER_FLUSH_TOTAL) == 0


def test_a_binding_cycle_is_in_flight_from_its_start_until_its_outcome():
    scheduler = build([FakePermit("Gate", code=Code.WAIT, timeout=30)], {"permit": ["Gate"]})
    add(scheduler, make_pod("web"))
    add(scheduler, make_pod("api"))
    scheduler.run_until_idle()
    binding = {"operation": m.BINDING}
    assert scheduler.metrics.value(m.GOROUTINES, **binding) == 2, "both wait at Permit"
    framework = scheduler.profiles[PROFILE]
    framework.get_waiting_pod(scheduler.cluster.get("Pod", "web", "default").uid).allow("Gate")
    assert scheduler.metrics.value(m.GOROUTINES, **binding) == 1
    framework.get_waiting_pod(scheduler.cluster.get("Pod", "api", "default").uid).reject(
        "Gate", "no"
    )
    assert scheduler.metrics.value(m.GOROUTINES, **binding) == 0
    assert scheduler.metrics.series(m.GOROUTINES) == {(("operation", m.BINDING),): 0.0}


class Prioritizer:
    """An extender that only prioritizes, and notes the gauge while its call is out."""

    def __init__(self) -> None:
        self.scheduler = None
        self.seen: list[float] = []

    def name(self) -> str:
        return "prioritizer"

    def is_interested(self, pod) -> bool:
        return True

    def is_filter(self) -> bool:
        return False

    def is_prioritizer(self) -> bool:
        return True

    def is_binder(self) -> bool:
        return False

    def is_ignorable(self) -> bool:
        return False

    def filter(self, pod, nodes):
        return nodes, {}, {}  # as an HTTP extender without a filter verb

    def prioritize(self, pod, nodes):
        self.seen.append(
            self.scheduler.metrics.value(m.GOROUTINES, operation=m.PRIORITIZING_EXTENDER)
        )
        return [(n.node_name, 1) for n in nodes], 1


def test_an_extenders_prioritize_call_is_in_flight_while_it_runs():
    extender = Prioritizer()
    scheduler = build([], {}, extenders=[extender])
    extender.scheduler = scheduler
    add(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    assert extender.seen == [1.0]
    assert scheduler.metrics.value(m.GOROUTINES, operation=m.PRIORITIZING_EXTENDER) == 0


def test_the_cache_size_counts_nodes_pods_and_assumed_pods():
    scheduler = build([FakePermit("Gate", code=Code.WAIT, timeout=30)], {"permit": ["Gate"]})
    add(scheduler, make_pod("running", node_name="n2"))
    add(scheduler, make_pod("waiting"))
    scheduler.run_until_idle()
    sizes = {dict(k)["type"]: v for k, v in scheduler.metrics.series(m.CACHE_SIZE).items()}
    assert sizes == {"nodes": 3, "pods": 2, "assumed_pods": 1}
    waiting = scheduler.cluster.get("Pod", "waiting", "default")
    scheduler.profiles[PROFILE].get_waiting_pod(waiting.uid).allow("Gate")
    assert scheduler.metrics.value(m.CACHE_SIZE, type="assumed_pods") == 0, "bound: confirmed"
    assert scheduler.metrics.value(m.CACHE_SIZE, type="pods") == 2
    scheduler.cluster.delete(scheduler.cluster.get("Node", "n3"))
    assert scheduler.metrics.value(m.CACHE_SIZE, type="nodes") == 2
