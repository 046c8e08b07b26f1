"""The engine's metrics: upstream's buckets and help, and what a simulation records."""

from __future__ import annotations

import pytest

from framework import metrics as m
from framework.metrics import Metrics, exponential_buckets
from framework.runtime import metrics_recorder
from framework.simulator import Simulation

CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def node(name: str, cpu: str) -> str:
    return f"""
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}
"""


def pod(name: str, cpu: str, priority: int = 0, on: str = "") -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  priority: {priority}
  {f"nodeName: {on}" if on else ""}
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def simulate(*objects: str) -> Metrics:
    simulation = Simulation(CONFIG, "---".join(objects), seed=1)
    simulation.run()
    return simulation.metrics


def test_exponential_buckets_are_upstreams():
    assert exponential_buckets(0.001, 2, 15)[:3] == (0.001, 0.002, 0.004)
    assert exponential_buckets(1, 2, 7) == (1, 2, 4, 8, 16, 32, 64)
    assert len(m.DEFINITIONS[m.PLUGIN_EXECUTION_DURATION_SECONDS].buckets) == 20


def test_histogram_buckets_are_upper_inclusive_and_cumulative():
    metrics = Metrics()
    for victims in (1, 2, 3, 100):
        metrics.observe(m.PREEMPTION_VICTIMS, victims)
    h = metrics.histogram(m.PREEMPTION_VICTIMS)
    assert h is not None
    assert h.cumulative() == [
        (1, 1),
        (2, 2),
        (4, 3),
        (8, 3),
        (16, 3),
        (32, 3),
        (64, 3),
        (float("inf"), 4),
    ]
    assert (h.count, h.sum) == (4, 106)


def test_an_observation_repeated_counts_every_time():
    metrics = Metrics()
    metrics.observe(m.PERMIT_WAIT_DURATION_SECONDS, 0.003, 5, result="Success")
    h = metrics.histogram(m.PERMIT_WAIT_DURATION_SECONDS, result="Success")
    assert h is not None and h.count == 5 and h.sum == pytest.approx(0.015)


def test_to_dict_writes_buckets_as_prometheus_does():
    metrics = Metrics()
    metrics.observe(m.POD_SCHEDULING_ATTEMPTS, 3)
    series = metrics.to_dict()[m.POD_SCHEDULING_ATTEMPTS]
    assert series["type"] == "histogram"
    assert series["series"][0]["buckets"] == {"1": 0, "2": 0, "4": 1, "8": 1, "16": 1, "+Inf": 1}


def test_a_gauge_source_is_read_when_asked():
    metrics = Metrics()
    sizes = {"active": 1.0}
    metrics.gauge_source(m.PENDING_PODS, lambda: {(("queue", "active"),): sizes["active"]})
    sizes["active"] = 7.0
    assert metrics.value(m.PENDING_PODS, queue="active") == 7.0


def test_scheduled_and_unschedulable_attempts_are_counted_per_result_and_profile():
    metrics = simulate(node("n1", "2"), pod("a", "1"), pod("b", "1"), pod("big", "8"))
    profile = "default-scheduler"
    assert metrics.value(m.SCHEDULE_ATTEMPTS_TOTAL, result="scheduled", profile=profile) == 2
    assert metrics.value(m.SCHEDULE_ATTEMPTS_TOTAL, result="unschedulable", profile=profile) == 1
    latency = metrics.histogram(
        m.SCHEDULING_ATTEMPT_DURATION_SECONDS, result="scheduled", profile=profile
    )
    assert latency is not None and latency.count == 2 and latency.sum > 0
    sli = metrics.histogram(m.POD_SCHEDULING_SLI_DURATION_SECONDS, attempts="1")
    assert sli is not None and sli.count == 2


def test_the_queue_reports_incoming_pods_and_its_sizes():
    metrics = simulate(node("n1", "2"), pod("a", "1"), pod("big", "8"))
    assert (
        metrics.value(m.QUEUE_INCOMING_PODS_TOTAL, queue="active", event="UnschedulablePodAdd") == 2
    )
    assert (
        metrics.value(
            m.QUEUE_INCOMING_PODS_TOTAL, queue="unschedulable", event="ScheduleAttemptFailure"
        )
        == 1
    )
    assert metrics.value(m.PENDING_PODS, queue="unschedulable") == 1
    assert metrics.value(m.PENDING_PODS, queue="active") == 0
    assert (
        metrics.value(m.UNSCHEDULABLE_PODS, plugin="NodeResourcesFit", profile="default-scheduler")
        == 1
    )


def test_every_extension_point_run_is_timed_with_its_status():
    metrics = simulate(node("n1", "2"), pod("a", "1"), pod("big", "8"))
    points = {
        (dict(labels)["extension_point"], dict(labels)["status"]): h.count
        for labels, h in metrics.histograms(m.FRAMEWORK_EXTENSION_POINT_DURATION_SECONDS).items()
    }
    assert points[("PreFilter", "Success")] == 2
    assert points[("Filter", "Success")] == 2
    assert points[("PostFilter", "Unschedulable")] == 1
    assert points[("Bind", "Success")] == 1
    assert points[("Reserve", "Success")] == 1


def test_preemption_counts_attempts_and_victims():
    metrics = simulate(
        node("n1", "2"),
        pod("low1", "1", on="n1"),
        pod("low2", "1", on="n1"),
        pod("high", "2", priority=100),
    )
    assert metrics.value(m.PREEMPTION_ATTEMPTS_TOTAL) >= 1
    victims = metrics.histogram(m.PREEMPTION_VICTIMS)
    assert victims is not None and victims.count == 1 and victims.sum == 2


def test_plugin_durations_are_recorded_only_in_sampled_cycles(monkeypatch):
    monkeypatch.setattr("framework.runtime.framework.should_record_plugin_metrics", lambda: False)
    monkeypatch.setattr(
        "framework.scheduler.schedule_one.should_record_plugin_metrics", lambda: False
    )
    unsampled = simulate(node("n1", "2"), pod("a", "1"))
    assert unsampled.histograms(m.PLUGIN_EXECUTION_DURATION_SECONDS) == {}
    monkeypatch.setattr(
        "framework.scheduler.schedule_one.should_record_plugin_metrics", lambda: True
    )
    sampled = simulate(node("n1", "2"), node("n2", "2"), pod("a", "1"))
    fit = sampled.histogram(
        m.PLUGIN_EXECUTION_DURATION_SECONDS,
        plugin="NodeResourcesFit",
        extension_point="Filter",
        status="Success",
    )
    assert fit is not None and fit.count == 2  # one call per node, even in batch form


def test_upstream_samples_one_cycle_in_ten():
    sampled = sum(metrics_recorder.should_record_plugin_metrics() for _ in range(20000))
    assert 1600 < sampled < 2400
