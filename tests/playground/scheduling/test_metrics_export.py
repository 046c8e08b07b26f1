"""A workspace's scheduler counts into /metrics, with kube-scheduler's names and a workspace
label, as it schedules."""

from __future__ import annotations

import pytest

from tests.playground.metrics.scrape import samples, value
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db

TOKEN = "scrape"


def scrape(client) -> dict:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    return samples(response.content.decode())


def test_scheduled_and_unschedulable_pods_are_counted_per_result(
    client, settings, make_service, workspace, cluster, binding_tasks
):
    settings.METRICS_TOKEN = TOKEN
    ws = str(workspace.pk)
    before = scrape(client)
    cluster.add(node_manifest("n1", cpu="1"))
    for name in ("a", "b"):
        cluster.add(pod_manifest(name, cpu="400m"))
    cluster.add(pod_manifest("big", cpu="2"))
    service = make_service()
    assert service.start()
    settle(service, binding_tasks)
    service.metrics.publish_gauges(force=True)
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, workspace=ws, **labels) - value(
            before, name, workspace=ws, **labels
        )

    attempts = "scheduler_schedule_attempts_total"
    assert delta(attempts, result="scheduled", profile="default-scheduler") == 2
    assert delta(attempts, result="unschedulable", profile="default-scheduler") == 1
    latency = "scheduler_scheduling_attempt_duration_seconds_count"
    assert delta(latency, result="scheduled", profile="default-scheduler") == 2
    assert delta("scheduler_pod_scheduling_sli_duration_seconds_count", attempts="1") == 2
    assert value(after, "scheduler_pending_pods", queue="unschedulable", workspace=ws) == 1
    assert value(after, "scheduler_pending_pods", queue="active", workspace=ws) == 0
    unschedulable = "scheduler_unschedulable_pods"
    assert (
        value(
            after,
            unschedulable,
            plugin="NodeResourcesFit",
            profile="default-scheduler",
            workspace=ws,
        )
        == 1
    )
    point = "scheduler_framework_extension_point_duration_seconds_count"
    assert delta(point, extension_point="Bind", status="Success", profile="default-scheduler") == 2

    assert delta("playground_binding_duration_seconds_count", result="success") == 2

    service.stop()
    stopped = scrape(client)
    assert value(stopped, "scheduler_pending_pods", queue="unschedulable", workspace=ws) == 0


def test_the_cache_work_in_flight_and_plugin_calls_are_exported(
    client, settings, make_service, workspace, cluster, binding_tasks
):
    settings.METRICS_TOKEN = TOKEN
    ws = str(workspace.pk)
    before = scrape(client)
    cluster.add(node_manifest("n1", cpu="1"))
    for name in ("a", "b"):
        cluster.add(pod_manifest(name, cpu="400m"))
    service = make_service()
    assert service.start()
    assert service.tick()
    assert len(binding_tasks.requests) == 2
    service.metrics.publish_gauges(force=True)
    binding = scrape(client)
    # Both binding cycles are out at the binding tasks; both pods are only assumed.
    assert value(binding, "scheduler_goroutines", operation="binding", workspace=ws) == 2
    assert value(binding, "scheduler_cache_size", type="assumed_pods", workspace=ws) == 2
    settle(service, binding_tasks)
    service.metrics.publish_gauges(force=True)
    bound = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(bound, name, workspace=ws, **labels) - value(
            before, name, workspace=ws, **labels
        )

    assert value(bound, "scheduler_goroutines", operation="binding", workspace=ws) == 0
    sizes = {
        kind: value(bound, "scheduler_cache_size", type=kind, workspace=ws)
        for kind in (
            "nodes",
            "pods",
            "assumed_pods",
        )
    }
    assert sizes == {"nodes": 1, "pods": 2, "assumed_pods": 0}
    evaluations = "scheduler_plugin_evaluation_total"
    fit = {"plugin": "NodeResourcesFit", "profile": "default-scheduler"}
    assert delta(evaluations, extension_point="Filter", **fit) == 2
    assert delta(evaluations, extension_point="PreFilter", **fit) == 2
    assert delta("scheduler_scheduling_algorithm_duration_seconds_count") == 2
    assert delta("scheduler_event_handling_duration_seconds_count", event="NodeAdd") == 1
    assert delta("scheduler_event_handling_duration_seconds_count", event="AssignedPodAdd") == 2
