"""Attempts written by the recorder's writer thread, as the service writes them in production.

The writer has its own database connection, so these tests commit their data
(``transaction=True``) and need a database threads can share (PostgreSQL or SQLite in a file).
"""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from framework.scheduler.schedule_one import SchedulingAttempt as EngineAttempt
from playground.live import broadcast
from playground.scheduling.attempts import AttemptRecorder
from playground.workspaces.models import SchedulerCommand, SchedulingAttempt
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import WAIT_FOR_APPROVAL, configure, settle
from tests.playground.scheduling.test_tasks import close_connections_of_finished_threads

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def shared_database():
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the writer thread needs a database it can share: PostgreSQL or a file")
    yield
    close_connections_of_finished_threads()


def attempt(pod: str) -> EngineAttempt:
    """A pod's attempt as the engine reports it: scheduled on n1."""
    return EngineAttempt(pod=f"default/{pod}", uid=f"uid-{pod}", profile="p", node="n1")


def test_attempts_are_stored_and_then_broadcast_with_their_ids(workspace, sent):
    recorder = AttemptRecorder(workspace.pk, background=True)
    recorder.on_attempt(attempt("web"))
    recorder.on_attempt(attempt("api"))

    assert recorder.flush() == 2
    recorder.close()

    rows = {row.pod_key: row.pk for row in SchedulingAttempt.objects.all()}
    assert set(rows) == {"default/web", "default/api"}
    [broadcasts] = [m["attempts"] for _, m in sent if m["type"] == broadcast.ATTEMPTS_RECORDED]
    assert {(a["pod"], a["id"]) for a in broadcasts} == set(rows.items())


def test_a_pod_that_waited_at_permit_ends_in_one_row_with_its_whole_trace(
    make_service, workspace, cluster, binding_tasks
):
    configure(workspace, WAIT_FOR_APPROVAL)
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service(background_writes=True)
    service.start()
    settle(service, binding_tasks)  # the Waiting attempt is flushed to the writer
    SchedulerCommand.objects.create(
        workspace=workspace, kind=SchedulerCommand.ALLOW, payload={"uid": "uid-web"}
    )

    settle(service, binding_tasks)  # and its outcome right behind it
    service.stop()

    row = SchedulingAttempt.objects.get()
    assert (row.result, row.node) == ("Scheduled", "n1")
    points = [e["point"] for e in row.trace.events() if e["kind"] == "extensionPoint"]
    assert points[0] == "preEnqueue" and "waitOnPermit" in points and points[-1] == "postBind"


def test_a_batch_that_cannot_be_written_is_logged_and_the_next_is_written(workspace, sent, caplog):
    recorder = AttemptRecorder(workspace.pk, background=True)
    recorder.on_attempt(attempt("orphan"))
    recorder._unsaved[next(iter(recorder._unsaved))].row.workspace_id = workspace.pk + 1000
    recorder.flush()
    recorder.on_attempt(attempt("web"))

    with caplog.at_level(logging.ERROR, logger="playground.scheduling.attempts"):
        recorder.flush()
        recorder.wait_written()
    recorder.close()

    assert list(SchedulingAttempt.objects.values_list("pod_key", flat=True)) == ["default/web"]
    assert "writing 1 attempts failed" in caplog.text


def test_without_a_writer_thread_a_flush_writes_at_once(workspace, sent):
    recorder = AttemptRecorder(workspace.pk)
    recorder.on_attempt(attempt("web"))

    recorder.flush()

    assert SchedulingAttempt.objects.get().pod_key == "default/web"
