"""The scheduler service, its binding tasks and what-if run with the feature gates of the
workspace's revision (kube-scheduler's --feature-gates), and the service records them.

The gate that shows: with ``PodLevelResources`` off, NodeResourcesFit counts the containers'
requests only, so a pod whose pod-level request does not fit a node is placed there anyway
(``InPlacePodLevelResourcesVerticalScaling`` depends on it and goes off with it)."""

from __future__ import annotations

import pytest

from playground.live import broadcast
from playground.scheduling.binding import _binder
from playground.scheduling.what_if import run_what_if, stored_pod
from playground.workspaces.models import (
    SchedulerCommand,
    SchedulerConfiguration,
    SchedulerStatus,
    SchedulingAttempt,
)
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db

MINIMAL = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
POD_LEVEL_RESOURCES_OFF = "InPlacePodLevelResourcesVerticalScaling=false,PodLevelResources=false"


def configure(workspace, revision: int, feature_gates: str = "") -> None:
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=revision, text=MINIMAL, feature_gates=feature_gates
    )


def add_cluster(cluster) -> None:
    """A node of 2 CPUs and a pod asking for 3 at pod level (100m in its container)."""
    cluster.add(node_manifest("n1", cpu="2"))
    cluster.add(pod_manifest("big", resources={"requests": {"cpu": "3"}}))


def results() -> list[tuple[str, str]]:
    return list(SchedulingAttempt.objects.order_by("id").values_list("result", "node"))


def running(workspace) -> tuple[int | None, str]:
    status = SchedulerStatus.objects.get(workspace=workspace)
    return status.revision, status.feature_gates


def test_the_service_schedules_with_the_latest_revisions_gates(
    make_service, workspace, cluster, binding_tasks
):
    configure(workspace, 1, POD_LEVEL_RESOURCES_OFF)
    add_cluster(cluster)
    service = make_service()

    service.start()
    settle(service, binding_tasks)

    assert results() == [("Scheduled", "n1")]
    assert running(workspace) == (1, POD_LEVEL_RESOURCES_OFF)


def test_a_revision_that_changes_the_gates_applies_like_any_revision(
    make_service, workspace, cluster, binding_tasks, sent
):
    configure(workspace, 1)
    add_cluster(cluster)
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    assert results() == [("Unschedulable", "")]
    assert running(workspace) == (1, "")

    configure(workspace, 2, POD_LEVEL_RESOURCES_OFF)
    sent.clear()
    applied = SchedulerCommand.objects.create(
        workspace=workspace, kind=SchedulerCommand.APPLY_CONFIGURATION, payload={"revision": 2}
    )
    settle(service, binding_tasks)

    applied.refresh_from_db()
    assert applied.outcome == "applied revision 2"
    assert results()[-1] == ("Scheduled", "n1")
    assert running(workspace) == (2, POD_LEVEL_RESOURCES_OFF)
    # The pages hear that the scheduler's state changed, and read the running gates again.
    group = broadcast.workspace_group(workspace.pk)
    assert (group, {"type": broadcast.SERVICE_STATE}) in sent


def test_binding_schedulers_are_built_with_their_revisions_gates(workspace):
    configure(workspace, 1)
    configure(workspace, 2, "OpportunisticBatching=false")

    with_defaults = _binder(workspace.pk, 1).profiles["default-scheduler"]
    without_batching = _binder(workspace.pk, 2).profiles["default-scheduler"]

    assert with_defaults.batch is not None
    assert without_batching.batch is None


def test_what_if_runs_with_the_latest_revisions_gates(workspace, cluster):
    add_cluster(cluster)
    pod = stored_pod(workspace, "uid-big")
    configure(workspace, 1)
    refused = run_what_if(workspace, pod, "default-scheduler")

    configure(workspace, 2, POD_LEVEL_RESOURCES_OFF)
    placed = run_what_if(workspace, pod, "default-scheduler")

    assert (refused.attempt.result, refused.attempt.node) == ("Unschedulable", None)
    assert "Insufficient cpu" in refused.attempt.message
    assert (placed.attempt.result, placed.attempt.node) == ("Scheduled", "n1")
