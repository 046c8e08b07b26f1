"""The exported scheduler metrics have kube-scheduler v1.36.2's names, types, help texts and
label names (plus ``workspace``), against its /metrics as recorded in tests/fixtures
(tests/kube/test_scheduler_metrics.py compares with the running binary)."""

from __future__ import annotations

import pytest

from playground.metrics.families import SCHEDULER, WORKSPACE
from tests.kube.scheduler_metrics import load_fixture, playground_families

RECORDED = load_fixture()
OURS = playground_families()
SHARED = sorted(set(OURS) & set(RECORDED))

IN_THE_RECORDING = [
    "scheduler_schedule_attempts_total",
    "scheduler_scheduling_attempt_duration_seconds",
    "scheduler_pod_scheduling_sli_duration_seconds",
    "scheduler_pod_scheduling_attempts",
    "scheduler_pending_pods",
    "scheduler_queue_incoming_pods_total",
    "scheduler_framework_extension_point_duration_seconds",
    "scheduler_plugin_execution_duration_seconds",
    "scheduler_unschedulable_pods",
    "scheduler_preemption_attempts_total",
    "scheduler_preemption_victims",
    "scheduler_batch_attempts_total",
    "scheduler_batch_cache_flushed_total",
    "scheduler_scheduling_algorithm_duration_seconds",
    "scheduler_pod_scheduled_after_flush_total",
    "scheduler_plugin_evaluation_total",
    "scheduler_cache_size",
    "scheduler_goroutines",
    "scheduler_inflight_events",
    "scheduler_event_handling_duration_seconds",
    "scheduler_get_node_hint_duration_seconds",
    "scheduler_store_schedule_results_duration_seconds",
    "scheduler_preemption_goroutines_duration_seconds",
    "scheduler_preemption_goroutines_execution_total",
]
"""What the engine keeps and the recorded run of kube-scheduler showed (permit waits, claims
made for extended resources, pod groups and DRA binding conditions need plugins or gates it
ran without)."""


@pytest.mark.parametrize("name", IN_THE_RECORDING)
def test_the_recording_has_every_metric_both_keep(name):
    assert name in SHARED


@pytest.mark.parametrize("name", SHARED)
def test_a_shared_metric_is_exported_as_kube_scheduler_exports_it(name):
    assert OURS[name] == RECORDED[name]


def test_every_exported_scheduler_metric_has_the_workspace_label():
    assert all(WORKSPACE in family._labelnames for family in SCHEDULER.values())
