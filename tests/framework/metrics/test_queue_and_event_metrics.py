"""The in-flight record's gauge and the event handlers' durations."""

from __future__ import annotations

from framework import metrics as m
from framework.api.core import PersistentVolume
from framework.simulator import Simulation
from tests.framework.builders import make_node, make_pod
from tests.framework.test_metrics import CONFIG, node, pod


def in_flight(simulation: Simulation) -> dict[str, float]:
    series = simulation.metrics.series(m.INFLIGHT_EVENTS)
    return {dict(k)["event"]: v for k, v in series.items()}


def persistent_volume(name: str) -> PersistentVolume:
    return PersistentVolume.from_dict(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]},
        }
    )


def test_pods_in_flight_and_the_events_they_may_need_are_counted_by_label():
    simulation = Simulation(CONFIG, node("n1", "2"))
    simulation.create([make_pod("p1"), make_pod("p2")], settle=False)
    queue = simulation.scheduler.queue
    first = queue.pop()
    assert in_flight(simulation) == {m.POD_POPPED_IN_FLIGHT_EVENT: 1}
    simulation.create([make_node("n2")], settle=False)
    second = queue.pop()
    simulation.create([persistent_volume("pv1")], settle=False)
    assert in_flight(simulation) == {
        m.POD_POPPED_IN_FLIGHT_EVENT: 2,
        "NodeAdd": 1,
        "PersistentVolumeAdd": 1,
    }
    # The first pod's flight ends: the events only it could need go with it (as upstream's
    # queue test expects [pod2, pvAdd] to remain).
    queue.done(first.pod.uid)
    assert in_flight(simulation) == {m.POD_POPPED_IN_FLIGHT_EVENT: 1, "PersistentVolumeAdd": 1}
    queue.done(second.pod.uid)
    assert in_flight(simulation) == {}


def test_no_event_is_recorded_while_no_pod_is_in_flight():
    simulation = Simulation(CONFIG, node("n1", "2"))
    simulation.create([make_pod("p1")], settle=False)
    simulation.create([make_node("n2")], settle=False)
    assert in_flight(simulation) == {}


def handled(metrics: m.Metrics) -> dict[str, int]:
    return {
        dict(k)["event"]: h.count
        for k, h in metrics.histograms(m.EVENT_HANDLING_DURATION_SECONDS).items()
    }


def test_each_handler_is_timed_under_its_events_label():
    simulation = Simulation(
        CONFIG,
        "---".join(
            [
                node("n1", "2"),
                node("n2", "2"),
                pod("running", "1", on="n1"),
                pod("fits", "1"),
                pod("too-big", "8"),
            ]
        ),
    )
    simulation.run()
    assert handled(simulation.metrics) == {
        "NodeAdd": 2,
        "AssignedPodAdd": 2,  # the running pod, then the bound one
        "UnschedulablePodAdd": 2,
        "UnschedulablePodDelete": 1,  # the bound pod leaves the pending pods' informer
        "UnschedulablePodUpdate": 1,  # too-big's PodScheduled condition
    }
    n1 = simulation.cluster.get("Node", "n1")
    relabelled = n1.deep_copy()
    relabelled.metadata.labels["zone"] = "a"
    simulation.cluster.update(relabelled)
    simulation.cluster.add(persistent_volume("pv1"))
    counted = handled(simulation.metrics)
    assert counted["NodeUpdateNodeLabel"] == 1
    assert counted["PersistentVolumeAdd"] == 1
    assert all(
        h.sum > 0 for h in simulation.metrics.histograms(m.EVENT_HANDLING_DURATION_SECONDS).values()
    )
