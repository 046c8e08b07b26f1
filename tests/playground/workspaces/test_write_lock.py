"""What a write of the workspace's objects holds back on PostgreSQL, and what it does not.

A writer of the workspace's objects (a mirror applying a burst, a binding batch) holds the
workspace's row lock to its commit. Rows that only refer to the workspace (its events, the
binding tasks' outcomes) must go in meanwhile: the live benchmark of issue 23 found binding
tasks waiting a fifth of their time for the mirror's writes. Each insert below gives up after
``lock_timeout``, which fails the test instead of waiting for the writer; SQLite orders every
writer itself, so these tests need PostgreSQL (always there under CI=true).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection, transaction

from playground.scheduling.binding import BindingRequest, run_bindings
from playground.scheduling.workspace_deletion import delete_workspace
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import KubeEvent, SchedulerCommand, Workspace

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks are PostgreSQL's (SQLite: one writer)"
    ),
]

WAIT_SECONDS = 10.0
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}


@pytest.fixture
def writing(workspace) -> Iterator[None]:
    """Another connection in the middle of a write of the workspace's objects."""
    holding, done = threading.Event(), threading.Event()

    def write() -> None:
        try:
            with DatabaseCluster(workspace.pk).binding_batch([]):
                holding.set()
                done.wait(WAIT_SECONDS)
        finally:
            connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    assert holding.wait(WAIT_SECONDS), "the writer did not take the lock"
    yield
    done.set()
    thread.join(WAIT_SECONDS)


def no_waiting() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '1s'")


def test_an_event_of_the_workspace_goes_in_while_its_objects_are_written(workspace, writing):
    with transaction.atomic():
        no_waiting()
        KubeEvent.objects.create(
            workspace=workspace, regarding_kind="Pod", regarding_name="p", type="Normal",
            reason="Scheduled",
        )  # fmt: skip

    assert KubeEvent.objects.filter(workspace=workspace).count() == 1


def test_a_binding_tasks_outcome_goes_in_while_the_workspaces_objects_are_written(
    workspace, writing
):
    request = BindingRequest(workspace.pk, 99, "default", "p", "uid-p", "n1", "default-scheduler")

    with transaction.atomic():
        no_waiting()
        [outcome] = run_bindings([request])  # no lease of generation 99: it fails, and says so

    assert outcome.payload["status"]["reasons"] == [
        "the scheduler that started this binding cycle no longer holds the lease"
    ]
    assert SchedulerCommand.objects.filter(workspace=workspace).count() == 1


def test_a_workspace_is_not_deleted_under_an_outcome_being_recorded(workspace):
    # The outcome's lock is the weakest that keeps a deletion out: the deletion waits for it.
    recording, deleted = threading.Event(), threading.Event()

    def delete() -> None:
        try:
            recording.wait(WAIT_SECONDS)
            delete_workspace(Workspace.objects.get(pk=workspace.pk), timeout=WAIT_SECONDS)
            deleted.set()
        finally:
            connection.close()

    thread = threading.Thread(target=delete)
    thread.start()
    with transaction.atomic():
        request = BindingRequest(workspace.pk, 99, "default", "p", "uid-p", "n1", "x")
        run_bindings([request])
        recording.set()
        assert not deleted.wait(1.0), "the workspace was deleted under the outcome's insert"
    thread.join(WAIT_SECONDS)

    assert deleted.is_set()
    assert not Workspace.objects.filter(pk=workspace.pk).exists()


def test_a_second_writer_still_waits_for_the_first(workspace, writing):
    with transaction.atomic(), pytest.raises(OperationalError, match="lock timeout"):
        no_waiting()
        DatabaseCluster(workspace.pk).add(NODE)
