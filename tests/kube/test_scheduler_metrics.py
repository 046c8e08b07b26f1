"""The playground's scheduler metrics have the names, types, help texts and label names of the
real kube-scheduler v1.36.2's, read from its /metrics after it scheduled pods on the test
control plane (KUBEBUILDER_ASSETS; required under CI=true, as the other kube tests)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.kube.control_plane import ASSETS_ENV
from tests.kube.fixtures import ControlPlaneKubeApi
from tests.kube.scheduler_metrics import (
    create_when_admitted,
    load_fixture,
    metric_families,
    playground_families,
    pod,
    running_kube_scheduler,
    scrape,
    write_fixture,
)

RECORD_ENV = "PLAYGROUND_RECORD_KUBE_METRICS"
SMALL_PODS = 60
"""Enough cycles that upstream's 1-in-10 sampling of plugin durations shows (all but surely)."""

if not os.getenv(ASSETS_ENV):
    if os.getenv("CI") == "true":
        raise RuntimeError(f"CI=true needs {ASSETS_ENV} for the kube-scheduler metrics test")
    pytest.skip(f"{ASSETS_ENV} is not set", allow_module_level=True)


@pytest.fixture
def api(kube_control_plane):
    api = ControlPlaneKubeApi(kube_control_plane)
    yield api
    api.close()


@pytest.fixture
def kube_scheduler(api, tmp_path: Path):
    with running_kube_scheduler(api.raw, tmp_path) as port:
        yield port


def test_shared_metrics_have_kube_schedulers_names_types_and_labels(api, kube_scheduler):
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"{api.namespace}-n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    api.create(node)
    for index in range(SMALL_PODS):
        api.create(pod(f"small-{index}", "50m"))
    api.create(pod("too-big", "16"))  # unschedulable; preemption finds no victims
    high = f"{api.namespace}-high"
    api.create(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": high},
            "value": 1000,
        }
    )
    create_when_admitted(api, pod("vip", "2", high))  # preempts small pods
    recorded = set() if os.getenv(RECORD_ENV) else set(load_fixture())
    families = wait_for_families(kube_scheduler, recorded)

    ours = playground_families()
    shared = sorted(set(ours) & set(families))
    missing = sorted(recorded - set(shared))
    assert not missing, f"not exposed by both (the recording has them): {missing}"
    for name in shared:
        assert ours[name] == families[name], name
    if os.getenv(RECORD_ENV):
        write_fixture(families)


def wait_for_families(port: int, recorded: set[str], seconds: float = 90.0) -> dict:
    """kube-scheduler's families once it has tried every pod, preempted for ``vip`` and shows
    every ``recorded`` name: a family with labels appears with its first label set, and some
    (the preemption goroutine's, say) only after the victims are counted."""
    deadline = time.monotonic() + seconds
    while True:
        families = metric_families(scrape(port))
        attempted = "scheduler_schedule_attempts_total" in families and (
            "scheduler_unschedulable_pods" in families
        )
        preempted = "scheduler_preemption_victims" in families and _victims(scrape(port))
        complete = recorded <= set(families)
        if (attempted and preempted and complete) or time.monotonic() > deadline:
            return families
        time.sleep(1)


def _victims(text: str) -> bool:
    return any(
        line.startswith("scheduler_preemption_victims_count ") and not line.endswith(" 0")
        for line in text.splitlines()
    )
