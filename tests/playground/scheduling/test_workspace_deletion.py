"""A workspace is deleted once its scheduler service has stopped (a ``stop`` command).

The service on a real worker is in test_tasks.py; here the service is ticked by hand.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from playground.scheduling.binding import BINDING_FINISHED, _record
from playground.scheduling.workspace_deletion import delete_workspace, stop_scheduler
from playground.workspaces.models import SchedulerCommand, SchedulerLease, Workspace
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import command, settle

pytestmark = pytest.mark.django_db


def test_a_stop_command_ends_the_service_and_leaves_later_commands_to_the_next(
    make_service, workspace
):
    service = make_service()
    service.start()
    stop = command(workspace, SchedulerCommand.STOP)
    pause = command(workspace, SchedulerCommand.PAUSE)

    assert not service.tick()

    assert service.stop_requested
    stop.refresh_from_db()
    pause.refresh_from_db()
    assert (stop.done_at is not None, stop.outcome) == (True, "stopped")
    assert pause.done_at is None
    assert not service.paused


def test_a_stopped_service_releases_its_lease(make_service, workspace, cluster, binding_tasks):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    command(workspace, SchedulerCommand.STOP)

    assert not service.tick()
    service.stop()

    assert SchedulerLease.objects.get(workspace=workspace).holder == ""
    assert stop_scheduler(workspace.pk, timeout=0)


def test_a_workspace_without_a_running_service_is_deleted_at_once(workspace, cluster):
    cluster.add(node_manifest("n1"))

    assert delete_workspace(workspace, timeout=0)

    assert not Workspace.objects.exists()
    assert not SchedulerCommand.objects.exists()


def test_a_service_that_does_not_stop_in_time_does_not_keep_the_workspace(workspace):
    """A worker that died holding the lease never answers: the wait ends at the timeout."""
    SchedulerLease.objects.create(
        workspace=workspace, holder="dead-worker", expires_at=timezone.now() + timedelta(hours=1)
    )

    assert not delete_workspace(workspace, timeout=0.1)

    assert not Workspace.objects.exists()


def test_binding_outcomes_of_a_workspace_deleted_meanwhile_are_dropped(user, workspace):
    """A binding task whose workspace was deleted while it bound stores nothing for it (its
    rows would break the insert) and the other workspaces' outcomes all the same."""
    gone = Workspace.objects.create(name="Gone", slug="gone", owner=user)
    outcomes = [
        SchedulerCommand(workspace_id=gone.pk, kind=BINDING_FINISHED, payload={"uid": "a"}),
        SchedulerCommand(workspace_id=workspace.pk, kind=BINDING_FINISHED, payload={"uid": "b"}),
    ]
    gone.delete()
    stored = _record(outcomes)
    assert [command.payload["uid"] for command in stored] == ["b"]
    assert list(SchedulerCommand.objects.values_list("workspace_id", flat=True)) == [workspace.pk]
