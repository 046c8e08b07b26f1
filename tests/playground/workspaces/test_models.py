"""What the models themselves know: access, current configuration, keys, packed traces,
attempt numbers."""

from __future__ import annotations

import json
import zlib

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError

from playground.workspaces.models import (
    AttemptTrace,
    ClusterObject,
    SchedulerConfiguration,
    SchedulingAttempt,
    Workspace,
    number_attempts,
)


@pytest.fixture
def stranger(db):
    return get_user_model().objects.create_user("eve")


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("owner", True), ("member", True), ("superuser", True), ("stranger", False), ("anon", False)],
    ids=[
        "the owner",
        "a member",
        "a superuser",
        "another user",
        "an anonymous visitor",
    ],
)
def test_who_may_access_a_workspace(workspace, user, stranger, who, allowed):
    users = get_user_model().objects
    member = users.create_user("bob")
    workspace.members.add(member)
    visitor = {
        "owner": user,
        "member": member,
        "superuser": users.create_superuser("root"),
        "stranger": stranger,
        "anon": AnonymousUser(),
    }[who]
    assert workspace.can_access(visitor) is allowed


def test_the_current_configuration_is_the_latest_revision(workspace):
    assert workspace.current_configuration() is None
    for revision in (1, 3, 2):
        SchedulerConfiguration.objects.create(workspace=workspace, revision=revision, text="x")
    assert workspace.current_configuration().revision == 3


def test_a_revision_number_is_taken_once_per_workspace(workspace):
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text="x")
    with pytest.raises(IntegrityError):
        SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text="y")


def test_an_object_is_named_by_kind_and_key(workspace):
    pod = ClusterObject(workspace=workspace, kind="Pod", namespace="shop", name="web", manifest={})
    node = ClusterObject(workspace=workspace, kind="Node", name="n1", manifest={})
    assert (str(pod), str(node)) == ("Pod shop/web", "Node n1")


def test_a_trace_of_thousands_of_nodes_is_stored_compressed_and_read_back(workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", pod_uid="u", profile="default-scheduler"
    )
    events = [
        {"kind": "plugin", "point": "filter", "plugin": "NodeResourcesFit", "node": f"node-{i}"}
        for i in range(5000)
    ]
    AttemptTrace.pack(attempt, events).save()
    trace = AttemptTrace.objects.get(attempt=attempt)
    assert trace.events() == events
    assert trace.event_count == 5000
    assert len(bytes(trace.data)) * 10 < trace.raw_size


def test_a_node_list_shared_by_batch_events_is_stored_once(workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", pod_uid="u", profile="default-scheduler"
    )
    nodes = [f"node-{i}" for i in range(500)]  # one list, as the runtime hands it to each batch
    events = [
        {"kind": "pluginBatch", "point": "filter", "plugin": name, "data": {"nodes": nodes}}
        for name in ("NodeUnschedulable", "TaintToleration", "NodeResourcesFit")
    ]
    events.append({"kind": "extensionPoint", "point": "filter", "code": "Success"})
    AttemptTrace.pack(attempt, events).save()

    trace = AttemptTrace.objects.get(attempt=attempt)
    assert trace.events() == events
    assert events[0]["data"]["nodes"] is nodes, "the events given are left as they were"
    assert trace.raw_size < len(json.dumps(nodes)) * 1.5


def test_a_trace_stored_before_node_lists_were_shared_reads_back(workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", pod_uid="u", profile="default-scheduler"
    )
    events = [{"kind": "pluginBatch", "point": "filter", "data": {"nodes": ["n1", "n2"]}}]
    AttemptTrace.objects.create(attempt=attempt, data=zlib.compress(json.dumps(events).encode()))
    assert AttemptTrace.objects.get(attempt=attempt).events() == events


@pytest.mark.parametrize(
    "data",
    [
        {"scores": {"n1": {"raw": 3, "normalized": 30, "weighted": 30}}},
        {"durationSeconds": 1.5e-06},
        {"nodes": ("n1", "n2")},
        {"byIndex": {1: "n1"}},
        {"message": "0/3 nodes: \u00e9t\u00e9 \u2713"},
    ],
    ids=["nested tables", "small floats", "tuples", "integer keys", "non-ASCII text"],
)
def test_a_trace_reads_back_as_the_json_module_would_read_it(workspace, data):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", pod_uid="u", profile="default-scheduler"
    )
    events = [{"kind": "plugin", "data": data}]
    AttemptTrace.pack(attempt, events).save()

    stored = AttemptTrace.objects.get(attempt=attempt)

    assert stored.events() == json.loads(json.dumps(events))


def attempt_of(workspace, uid: str, **fields) -> SchedulingAttempt:
    return SchedulingAttempt(workspace=workspace, pod_key=f"default/{uid}", pod_uid=uid, **fields)


def test_a_pods_attempts_are_numbered_in_order_each_pod_on_its_own(workspace, user):
    SchedulingAttempt.objects.create(workspace=workspace, pod_key="default/a", pod_uid="a")
    other = Workspace.objects.create(name="Other", slug="other", owner=user)
    SchedulingAttempt.objects.create(workspace=other, pod_key="default/b", pod_uid="b")
    batch = [attempt_of(workspace, uid) for uid in ("a", "b", "a", "c", "b")]

    number_attempts(batch)

    assert [(a.pod_uid, a.number) for a in batch] == [
        ("a", 2),  # after the one stored
        ("b", 1),  # another workspace's pod "b" does not count
        ("a", 3),
        ("c", 1),
        ("b", 2),
    ]


def test_a_saved_attempt_takes_the_next_number_and_keeps_it(workspace):
    first = SchedulingAttempt.objects.create(workspace=workspace, pod_key="default/a", pod_uid="a")
    second = SchedulingAttempt.objects.create(workspace=workspace, pod_key="default/a", pod_uid="a")
    second.result = "Scheduled"
    second.save()
    assert (first.number, second.number) == (1, 2)
    assert SchedulingAttempt.objects.get(pk=second.pk).number == 2
    assert str(second) == "attempt 2 of pod default/a"
    assert second.get_absolute_url() == "/w/lab/pods/a/attempts/2/"


def test_one_number_names_one_attempt_of_a_pod(workspace):
    SchedulingAttempt.objects.create(workspace=workspace, pod_key="default/a", pod_uid="a")
    with pytest.raises(IntegrityError):
        SchedulingAttempt.objects.create(
            workspace=workspace, pod_key="default/a", pod_uid="a", number=1
        )
