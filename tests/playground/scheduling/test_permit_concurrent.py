"""Two people deciding the same waiting pod at the same moment, through the permit console,
against a running service: real concurrent requests (two threads, two connections), each
waiting for the outcome of its command. Exactly one decision acts; the other is told
``already decided: …`` with what the first did.

The threads commit their own data, so these tests need a database they can share
(PostgreSQL, or SQLite in a file).
"""

from __future__ import annotations

import html
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from playground.workspaces.models import SchedulerCommand
from tests.playground.scheduling.manifests import node_manifest
from tests.playground.scheduling.test_permit_multi import TWO_PERMIT_PLUGINS, payments_pod
from tests.playground.scheduling.test_service import configure, settle
from tests.playground.scheduling.test_tasks import close_connections_of_finished_threads

pytestmark = pytest.mark.django_db(transaction=True)
ROUNDS = 4
"""Pods decided, one race each (more chances for the two requests to overlap)."""


@pytest.fixture(autouse=True)
def shared_database(monkeypatch):
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the request threads need a database they can share: PostgreSQL or a file")
    monkeypatch.setattr("playground.front.commands.ensure_scheduler_running", lambda w: None)
    yield
    close_connections_of_finished_threads()


@pytest.fixture
def running(make_service, workspace, cluster, binding_tasks):
    """A service with ROUNDS payments pods waiting on both plugins, ticking in a thread."""
    configure(workspace, TWO_PERMIT_PLUGINS)
    cluster.add(node_manifest("n1", cpu="64"))
    for index in range(ROUNDS):
        cluster.add(payments_pod(f"pay-{index}"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            service.tick()
            stop.wait(0.02)
        connection.close()

    ticking = threading.Thread(target=tick)
    ticking.start()
    yield service
    stop.set()
    ticking.join(timeout=10)


def decide_at_once(user, decisions):
    """Posts each decision from its own thread (its own client and connection), all released
    together; the note each page shows."""
    start = threading.Barrier(len(decisions))

    def post(form):
        client = Client(HTTP_HX_REQUEST="true")
        client.force_login(user)
        start.wait()
        try:
            content = client.post("/w/lab/permit/decide/", form).content.decode()
        finally:
            connection.close()
        return html.unescape(re.search(r'<p id="permit-note"[^>]*>(.*?)</p>', content).group(1))

    with ThreadPoolExecutor(len(decisions)) as pool:
        return list(pool.map(post, decisions))


@pytest.mark.parametrize("plugin", ["WaitForApproval", ""], ids=["one plugin", "the whole pod"])
def test_allow_and_reject_at_the_same_moment_have_exactly_one_outcome(
    running, user, workspace, plugin
):
    for index in range(ROUNDS):
        uid = f"uid-pay-{index}"
        allow = {"uid": uid, "decision": "allow", "plugin": plugin}
        reject = {"uid": uid, "decision": "reject", "plugin": plugin, "message": "no"}
        notes = decide_at_once(user, [allow, reject])

        pod = f"default/pay-{index}: "
        assert all(note.startswith(pod) for note in notes), notes
        outcomes = [note.removeprefix(pod) for note in notes]
        losers = [o for o in outcomes if o.startswith("already decided: ")]
        assert len(losers) == 1, outcomes
        [winner] = [o for o in outcomes if o not in losers]
        # The loser reads what the winner did (a rejection with its message).
        said = losers[0].removeprefix("already decided: ")
        assert said.split(";")[0] == winner.split(";")[0] or said == f"{winner}: no", outcomes
        commands = SchedulerCommand.objects.filter(workspace=workspace, payload__uid=uid)
        assert sorted(c.outcome for c in commands) == sorted(outcomes)


def test_the_same_click_from_two_browsers_acts_once(running, user, workspace):
    allow = {"uid": "uid-pay-0", "decision": "allow", "plugin": "LabelSelectorPermit"}
    notes = decide_at_once(user, [allow, dict(allow)])
    assert sorted(notes) == [
        "default/pay-0: allowed by LabelSelectorPermit; still waiting for WaitForApproval",
        "default/pay-0: already decided: allowed by LabelSelectorPermit",
    ]
