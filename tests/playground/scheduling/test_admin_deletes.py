"""Pods deleted in the admin leave the running scheduler's queue (the issue: they stayed on the
queue board as unschedulable)."""

import pytest
from django.contrib.auth import get_user_model

from playground.workspaces.models import ClusterObject, SchedulerStatus
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db


def test_pods_deleted_in_the_admin_leave_the_schedulers_queue(
    client, make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("small", cpu="1"))
    for index in range(3):
        cluster.add(pod_manifest(f"big-{index}", cpu="2"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    assert unschedulable(workspace) == ["default/big-0", "default/big-1", "default/big-2"]

    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    doomed = ClusterObject.objects.filter(kind="Pod", name__in=["big-0", "big-2"])
    client.post(
        "/admin/workspaces/clusterobject/",
        {"action": "delete_selected", "_selected_action": [r.pk for r in doomed], "post": "yes"},
    )
    settle(service, binding_tasks)

    assert unschedulable(workspace) == ["default/big-1"]
    pending, _ = service.scheduler.queue.pending_pods()
    assert [pod.key for pod in pending] == ["default/big-1"]


def unschedulable(workspace):
    queue = SchedulerStatus.objects.get(workspace=workspace).queue
    return sorted(entry["pod"] for entry in queue["unschedulable"])
