"""The replay task on a real Celery worker (threads in this process), as the page starts it:
the replayed objects are edits to the workspace's scheduler service, which schedules them.

Committed transactions: the worker reads the database from its own threads.
"""

from __future__ import annotations

import json
import time

import pytest

from playground.clusters.models import ClusterConnection, Recording, Replay
from playground.clusters.tasks import start_replay
from playground.scheduling.embedded_worker import EmbeddedWorker
from playground.workspaces.models import ClusterObject
from playground.workspaces.services import create_workspace
from tests.playground.clusters.test_mirror import node, pod
from tests.playground.scheduling.test_tasks import close_connections_of_finished_threads

pytestmark = pytest.mark.django_db(transaction=True)

DEADLINE_SECONDS = 60.0


@pytest.fixture
def worker(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.SCHEDULER_LEASE_SECONDS = 1.5
    worker = EmbeddedWorker(services=2, binding_threads=2, run_watchdog=False).start()
    yield worker
    worker.stop()
    close_connections_of_finished_threads()


def test_a_replay_runs_on_the_worker_and_its_pods_get_scheduled(worker, user):
    connection = ClusterConnection.objects.create(name="prod", owner=user)
    recording = Recording.objects.create(connection=connection, file="recordings/r.jsonl")
    recording.stopped_at = recording.started_at
    recording.save()
    pending = pod("web-1", namespace="default")
    lines = [
        {"recording": 1, "connection": "prod", "kinds": ["Node", "Pod"]},
        {"t": 0, "type": "ADDED", "object": node("n1")},
        {"t": 0.5, "type": "ADDED", "object": pending},
    ]
    recording.path.parent.mkdir(parents=True)
    recording.path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    target = create_workspace(user, "Replayed")
    replay = Replay.objects.create(recording=recording, workspace=target, speed="fastest")

    start_replay(replay)

    bound = ClusterObject.objects.filter(workspace=target, kind="Pod", node_name="n1")
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not (bound.exists() and Replay.objects.get(pk=replay.pk).state == Replay.DONE):
        assert time.monotonic() < deadline, Replay.objects.get(pk=replay.pk).__dict__
        time.sleep(0.05)
    replay.refresh_from_db()
    assert (replay.state, replay.applied, replay.total, replay.error) == ("done", 2, 2, "")
