"""The scheduler service driven tick by tick, with a fake clock and binding tasks run by hand."""

from __future__ import annotations

import pytest
from django.conf import settings

from playground.live import broadcast
from playground.scheduling.binding import BINDING_FINISHED, LOST_LEASE
from playground.scheduling.scheduler_state import scheduler_state
from playground.scheduling.service import BINDING_TIMEOUT
from playground.workspaces.models import (
    SchedulerCommand,
    SchedulerConfiguration,
    SchedulerLease,
    SchedulerStatus,
    SchedulingAttempt,
    Workspace,
)
from tests.playground.scheduling.manifests import node_manifest, pod_manifest

pytestmark = pytest.mark.django_db

WAIT_FOR_APPROVAL = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    permit:
      enabled:
      - name: WaitForApproval
  pluginConfig:
  - name: WaitForApproval
    args: {timeoutSeconds: 30}
"""

SECOND_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packer
"""


def settle(service, binding_tasks, rounds: int = 20) -> None:
    """Ticks and runs the binding tasks until nothing is left to do."""
    for _ in range(rounds):
        assert service.tick()
        if binding_tasks.requests:
            binding_tasks.run_all()
        elif not service.busy:
            return
    raise AssertionError("the service did not settle")


def command(workspace, kind, **payload):
    return SchedulerCommand.objects.create(workspace=workspace, kind=kind, payload=payload)


def configure(workspace, text, revision=1):
    return SchedulerConfiguration.objects.create(workspace=workspace, revision=revision, text=text)


def results(pod_key=None):
    attempts = SchedulingAttempt.objects.order_by("id")
    if pod_key:
        attempts = attempts.filter(pod_key=pod_key)
    return [(a.pod_key, a.result, a.node) for a in attempts]


def queue_of(workspace, place):
    return [entry["pod"] for entry in SchedulerStatus.objects.get(workspace=workspace).queue[place]]


# ----------------------------------------------------------------------------------------------
# Scheduling


def test_pending_pods_end_bound_to_a_node(make_service, cluster, binding_tasks):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    assert service.start()

    settle(service, binding_tasks)

    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"
    assert results() == [("default/web", "Scheduled", "n1")]
    trace = SchedulingAttempt.objects.get().trace.events()
    points = [e["point"] for e in trace if e["kind"] == "extensionPoint"]
    assert points == [
        "preEnqueue",
        "preFilter",
        "filter",
        "reserve",
        "permit",
        "preBind",
        "bind",  # these two ran in the binding task
        "postBind",
    ]


def test_a_pod_that_fits_nowhere_stays_pending_with_its_reason(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1", cpu="1"))
    cluster.add(pod_manifest("big", cpu="2"))
    service = make_service()
    service.start()

    settle(service, binding_tasks)

    message = (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
    pod = cluster.get("Pod", "big", "default")
    condition = pod.status.condition("PodScheduled")
    assert (pod.spec.node_name, condition.reason, condition.message) == (
        "",
        "Unschedulable",
        message,
    )
    assert results() == [("default/big", "Unschedulable", "")]
    [entry] = SchedulerStatus.objects.get(workspace=workspace).queue["unschedulable"]
    assert (entry["pod"], entry["plugins"], entry["message"]) == (
        "default/big",
        ["NodeResourcesFit"],
        message,
    )


def test_changes_made_after_the_start_reach_the_scheduler_as_cluster_events(
    make_service, cluster, binding_tasks
):
    cluster.add(node_manifest("small", cpu="1"))
    cluster.add(pod_manifest("big", cpu="2"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)

    cluster.add(node_manifest("large", cpu="8"))
    settle(service, binding_tasks)

    assert cluster.get("Pod", "big", "default").spec.node_name == "large"
    assert results() == [
        ("default/big", "Unschedulable", ""),
        ("default/big", "Scheduled", "large"),
    ]


def test_pods_deleted_together_leave_the_scheduler_and_free_their_node(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1", cpu="1"))
    cluster.add(pod_manifest("small", cpu="600m"))
    cluster.add(pod_manifest("stuck-1", cpu="2"))
    cluster.add(pod_manifest("stuck-2", cpu="2"))
    cluster.add(pod_manifest("waiter", cpu="600m"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    queued = {"default/stuck-1", "default/stuck-2", "default/waiter"}
    assert set(queue_of(workspace, "unschedulable") + queue_of(workspace, "backoff")) == queued

    doomed = ("small", "stuck-1", "stuck-2")
    uids = [cluster.get("Pod", name, "default").metadata.uid for name in doomed]
    assert cluster.delete_many("Pod", uids) == 3
    settle(service, binding_tasks)

    assert queue_of(workspace, "unschedulable") + queue_of(workspace, "backoff") == []
    assert cluster.get("Pod", "waiter", "default").spec.node_name == "n1"  # small's room


def test_cycles_per_tick_bound_the_work_of_one_tick(make_service, cluster, binding_tasks):
    cluster.add(node_manifest("n1"))
    for index in range(5):
        cluster.add(pod_manifest(f"p{index}"))
    service = make_service(cycles_per_tick=2)
    service.start()

    service.tick()

    assert len(binding_tasks.requests) == 2


# ----------------------------------------------------------------------------------------------
# The lease


def test_a_second_service_cannot_start_while_the_lease_is_live(make_service):
    first = make_service("worker-a")
    assert first.start()

    assert not make_service("worker-b").start()
    assert SchedulerLease.objects.get().holder == "worker-a"


def test_a_second_service_takes_over_an_expired_lease_and_the_first_stops(make_service, clock):
    first = make_service("worker-a")
    first.start()
    clock.step(settings.SCHEDULER_LEASE_SECONDS + 1)

    second = make_service("worker-b")
    assert second.start()

    assert second.generation == first.generation + 1
    assert not first.tick()
    assert second.tick()


def test_a_renewed_lease_is_not_taken_over(make_service, clock):
    first = make_service("worker-a")
    first.start()
    for _ in range(4):
        clock.step(settings.SCHEDULER_LEASE_SECONDS / 2)
        assert first.tick()

    assert not make_service("worker-b").start()


def test_a_released_lease_is_taken_over_at_once(make_service):
    first = make_service("worker-a")
    first.start()
    first.stop(release=True)

    assert make_service("worker-b").start()


def test_the_service_stops_when_its_workspace_is_deleted(make_service, workspace, clock):
    service = make_service()
    service.start()
    Workspace.objects.filter(pk=workspace.pk).delete()
    clock.step(settings.SCHEDULER_LEASE_SECONDS)

    assert not service.tick()


def test_a_successor_rebuilds_the_same_cache_and_queue_from_the_database(
    make_service, cluster, clock, binding_tasks
):
    cluster.add(node_manifest("n1", cpu="2"))
    cluster.add(node_manifest("n2", cpu="2"))
    cluster.add(pod_manifest("running", cpu="1", node_name="n2"))
    for index in range(3):
        cluster.add(pod_manifest(f"web-{index}", cpu="1"))
    cluster.add(pod_manifest("too-big", cpu="4"))
    first = make_service("worker-a")
    first.start()
    settle(first, binding_tasks)
    clock.step(settings.SCHEDULER_LEASE_SECONDS + 1)

    second = make_service("worker-b")
    second.start()

    assert cache_of(second) == cache_of(first)
    assert queue_pods(second) == {"active": ["default/too-big"]}  # tried again, as on a restart
    settle(second, binding_tasks)
    assert queue_pods(second) == queue_pods(first) == {"unschedulable": ["default/too-big"]}


def cache_of(service):
    dump = service.scheduler.cache.dump()
    return {name: sorted(p.pod.key for p in info.pods) for name, info in dump.nodes.items()}


def queue_pods(service):
    listing = service.scheduler.queue.listing()
    places = {
        "active": listing.active,
        "backoff": listing.backoff,
        "unschedulable": listing.unschedulable,
        "gated": listing.gated,
    }
    return {place: sorted(p.pod.key for p in pods) for place, pods in places.items() if pods}


# ----------------------------------------------------------------------------------------------
# Commands


def test_a_paused_service_runs_no_cycle_until_resumed(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1"))
    service = make_service()
    service.start()
    pause = command(workspace, SchedulerCommand.PAUSE)
    cluster.add(pod_manifest("web"))

    settle(service, binding_tasks)
    pause.refresh_from_db()
    assert (pause.outcome, pause.done_at is not None) == ("paused", True)
    assert Workspace.objects.get(pk=workspace.pk).paused
    assert queue_of(workspace, "active") == ["default/web"]

    command(workspace, SchedulerCommand.RESUME)
    settle(service, binding_tasks)
    assert results() == [("default/web", "Scheduled", "n1")]
    assert not Workspace.objects.get(pk=workspace.pk).paused


def test_a_workspace_paused_before_the_start_stays_paused(make_service, workspace, cluster):
    Workspace.objects.filter(pk=workspace.pk).update(paused=True)
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()

    service.tick()

    assert results() == []


def test_applying_a_configuration_schedules_with_its_profiles(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("packed", scheduler_name="bin-packer"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    assert results() == []  # no profile of that name yet

    configure(workspace, SECOND_PROFILE, revision=2)
    applied = command(workspace, SchedulerCommand.APPLY_CONFIGURATION, revision=2)
    settle(service, binding_tasks)

    applied.refresh_from_db()
    assert applied.outcome == "applied revision 2"
    assert results() == [("default/packed", "Scheduled", "n1")]
    assert service.revision == 2


def test_attempt_numbers_go_on_when_a_configuration_is_applied_and_after_a_takeover(
    make_service, workspace, cluster, binding_tasks, clock
):
    """Each new scheduler counts its scheduling cycles from 1 again; a pod's attempts are
    numbered on from those stored, so "attempt 3" names one attempt for good."""
    cluster.add(node_manifest("n1", cpu="1"))
    cluster.add(pod_manifest("big", cpu="2"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    configure(workspace, SECOND_PROFILE, revision=2)
    command(workspace, SchedulerCommand.APPLY_CONFIGURATION, revision=2)
    settle(service, binding_tasks)
    service.stop()
    successor = make_service("worker-b")
    assert successor.start()
    settle(successor, binding_tasks)

    attempts = SchedulingAttempt.objects.order_by("id")
    assert [a.cycle for a in attempts] == [1, 1, 1]  # the engine's counter restarted each time
    assert [a.number for a in attempts] == [1, 2, 3]
    assert [str(a) for a in attempts][-1] == "attempt 3 of pod default/big"


def test_an_invalid_configuration_is_not_applied(make_service, workspace, cluster, binding_tasks):
    cluster.add(node_manifest("n1"))
    service = make_service()
    service.start()
    configure(workspace, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Nope\n", revision=2)

    applied = command(workspace, SchedulerCommand.APPLY_CONFIGURATION, revision=2)
    settle(service, binding_tasks)

    applied.refresh_from_db()
    assert applied.outcome.startswith("not applied: revision 2: ")
    assert service.revision is None


def test_an_apply_waits_until_the_bindings_out_have_reported(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    service.tick()
    assert len(binding_tasks.requests) == 1
    configure(workspace, SECOND_PROFILE, revision=2)
    applied = command(workspace, SchedulerCommand.APPLY_CONFIGURATION)

    service.tick()
    applied.refresh_from_db()
    assert applied.done_at is None

    binding_tasks.run_all()
    service.tick()
    applied.refresh_from_db()
    assert applied.outcome == "applied revision 2"
    assert results() == [("default/web", "Scheduled", "n1")]


def test_unknown_commands_are_answered_not_supported(make_service, workspace):
    service = make_service()
    service.start()
    unknown = command(workspace, "rewind")

    service.tick()

    unknown.refresh_from_db()
    assert unknown.outcome == "not supported: rewind"


# ----------------------------------------------------------------------------------------------
# Permit


@pytest.fixture
def waiting_pod(make_service, workspace, cluster, binding_tasks):
    """A service whose profile holds every pod at Permit, and one pod waiting there."""
    configure(workspace, WAIT_FOR_APPROVAL)
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    return service


def test_a_waiting_pod_is_listed_with_its_pending_plugins_and_time_left(waiting_pod, workspace):
    [entry] = SchedulerStatus.objects.get(workspace=workspace).waiting_pods
    assert entry == {
        "pod": "default/web",
        "uid": "uid-web",
        "node": "n1",
        "pendingPlugins": ["WaitForApproval"],
        "secondsLeft": {"WaitForApproval": 30.0},
    }
    assert results() == [("default/web", "Waiting", "n1")]


def test_an_approved_pod_is_bound(waiting_pod, workspace, cluster, binding_tasks):
    allow = command(workspace, SchedulerCommand.ALLOW, uid="uid-web")
    settle(waiting_pod, binding_tasks)

    allow.refresh_from_db()
    assert allow.outcome == "allowed by WaitForApproval"
    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"
    assert results() == [("default/web", "Scheduled", "n1")]
    points = [e["point"] for e in SchedulingAttempt.objects.get().trace.events()]
    assert "permit" in points and "waitOnPermit" in points and points[-1] == "postBind"


def test_a_rejected_pod_goes_back_to_the_queue_with_the_message(
    waiting_pod, workspace, cluster, binding_tasks
):
    command(workspace, SchedulerCommand.REJECT, uid="uid-web", message="not today")
    waiting_pod.tick()

    pod = cluster.get("Pod", "web", "default")
    assert pod.spec.node_name == ""
    attempt = SchedulingAttempt.objects.get()
    assert (attempt.result, attempt.message) == (
        "Unschedulable",
        "0/1 nodes are available: 1 not today.",
    )
    assert not waiting_pod.scheduler.cache.is_assumed_pod(pod)


def test_a_pod_nobody_approves_is_rejected_when_its_time_runs_out(waiting_pod, clock, cluster):
    clock.step(31)
    waiting_pod.tick()

    attempt = SchedulingAttempt.objects.get()
    assert (attempt.result, attempt.message) == (
        "Unschedulable",
        "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin "
        "WaitForApproval.",
    )


def test_approving_for_a_plugin_the_pod_does_not_wait_for_says_so(waiting_pod, workspace):
    allow = command(workspace, SchedulerCommand.ALLOW, uid="uid-web", plugin="Other")
    waiting_pod.tick()

    allow.refresh_from_db()
    assert allow.outcome == "the pod does not wait for Other"
    assert results() == [("default/web", "Waiting", "n1")]


def test_approving_a_pod_that_does_not_wait_says_so(waiting_pod, workspace):
    allow = command(workspace, SchedulerCommand.ALLOW, uid="nobody")
    waiting_pod.tick()

    allow.refresh_from_db()
    assert allow.outcome == "no such pod waits at Permit"


# ----------------------------------------------------------------------------------------------
# Binding


def test_a_failed_binding_unreserves_forgets_and_requeues_the_pod(
    make_service, workspace, cluster, clock, binding_tasks
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    service.tick()
    [request] = binding_tasks.requests
    binding_tasks.requests.clear()
    failure = {"code": "Error", "reasons": ["etcd is on fire"], "plugin": "DefaultBinder"}
    command(
        workspace,
        BINDING_FINISHED,
        uid=request.uid,
        node=request.node,
        generation=request.generation,
        status=failure,
    )

    service.tick()

    pod = cluster.get("Pod", "web", "default")
    assert not service.scheduler.cache.is_assumed_pod(pod)
    assert [p.name for p in service.scheduler.queue.pods_in_backoff_q()] == ["web"]
    assert results() == [("default/web", "Error", "")]
    assert SchedulingAttempt.objects.get().message == "etcd is on fire"
    [entry] = SchedulerStatus.objects.get(workspace=workspace).queue["backoff"]
    assert entry["pod"] == "default/web"
    assert 0 < entry["backoffSeconds"] <= 1.0  # the end is rounded down to a whole second

    clock.step(2)
    settle(service, binding_tasks)
    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"


def test_a_binding_that_never_reports_is_given_up_and_the_pod_requeued(
    make_service, cluster, clock, binding_tasks
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    service.tick()
    binding_tasks.requests.clear()

    clock.step(BINDING_TIMEOUT + 1)
    service.tick()

    assert SchedulingAttempt.objects.get().message == (
        f"the binding task did not report within {BINDING_TIMEOUT:g} seconds"
    )


def binding_sent_then_taken_over(make_service, cluster, clock):
    """A first service sends web's binding, then loses its lease to a second, which starts
    (before that binding task has run); returns both."""
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    first = make_service("worker-a")
    first.start()
    first.tick()
    clock.step(settings.SCHEDULER_LEASE_SECONDS + 1)
    second = make_service("worker-b")
    second.start()
    return first, second


def test_a_binding_sent_before_a_takeover_does_not_bind(
    make_service, cluster, clock, binding_tasks
):
    first, second = binding_sent_then_taken_over(make_service, cluster, clock)

    [stale] = [c for c in binding_tasks.run_all() if c.payload["generation"] == first.generation]

    assert stale.payload["status"]["reasons"] == [
        "the scheduler that started this binding cycle no longer holds the lease"
    ]
    settle(second, binding_tasks)
    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"
    assert results()[-1] == ("default/web", "Scheduled", "n1")


# ----------------------------------------------------------------------------------------------
# Status


def test_the_status_keeps_queue_sizes_over_time(make_service, workspace, cluster, clock):
    cluster.add(node_manifest("n1", cpu="1"))
    service = make_service()
    service.start()
    cluster.add(pod_manifest("big", cpu="2"))
    for _ in range(3):
        clock.step(3)
        service.tick()

    sizes = SchedulerStatus.objects.get(workspace=workspace).queue_sizes
    assert [sample[1:] for sample in sizes] == [
        [0, 0, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 1, 0],
        [0, 0, 1, 0],
    ]


def test_a_gated_pod_is_listed_with_the_plugin_that_gates_it(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("gated", schedulingGates=[{"name": "example.com/approval"}]))
    service = make_service()
    service.start()
    settle(service, binding_tasks)

    status = SchedulerStatus.objects.get(workspace=workspace)
    [entry] = status.queue["gated"]
    assert (entry["pod"], entry["plugins"]) == ("default/gated", ["SchedulingGates"])
    assert status.queue_sizes[-1][1:] == [0, 0, 0, 1], "counted as gated, not unschedulable"
    assert results() == []


def test_node_usage_and_attempts_are_broadcast(
    make_service, workspace, cluster, sent, binding_tasks
):
    cluster.add(node_manifest("n1", cpu="2"))
    cluster.add(pod_manifest("web", cpu="500m"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)

    usage = [m["nodes"] for g, m in sent if m["type"] == "node.usage"][-1]
    assert usage == [
        {
            "name": "n1",
            "cpu": {"requested": 500, "allocatable": 2000},
            "memory": {"requested": 0, "allocatable": 8 * 1024**3},
            "pods": {"requested": 1, "allocatable": 110},
        }
    ]
    recorded = [(g, m["attempts"]) for g, m in sent if m["type"] == "attempts.recorded"]
    [(group, [attempt])] = recorded
    assert (group, attempt["pod"], attempt["result"]) == (
        f"workspace-{workspace.pk}",
        "default/web",
        "Scheduled",
    )
    [(group, trace)] = [(g, m) for g, m in sent if m["type"] == "pod.trace"]
    assert (group, trace["attempt"]) == (f"pod-{workspace.pk}-uid-web", attempt)
    assert trace["events"][-1]["point"] == "postBind"


def test_the_pods_that_reach_bind_leave_in_batches_of_at_most_binding_batch(
    make_service, cluster, binding_tasks
):
    cluster.add(node_manifest("n1"))
    for index in range(5):
        cluster.add(pod_manifest(f"p{index}"))
    service = make_service(binding_batch=2)
    service.start()

    service.tick()

    assert [len(batch) for batch in binding_tasks.batches] == [2, 2, 1]  # the rest: at the end
    assert sorted(r.name for r in binding_tasks.requests) == [f"p{i}" for i in range(5)]
    binding_tasks.run_all()
    service.tick()
    assert sorted(results()) == [(f"default/p{i}", "Scheduled", "n1") for i in range(5)]


def test_each_pod_of_a_batch_gets_its_own_outcome(make_service, workspace, cluster, binding_tasks):
    cluster.add(node_manifest("n1"))
    cluster.add(node_manifest("n2"))
    cluster.add(pod_manifest("web"))
    cluster.add(pod_manifest("api"))
    service = make_service()
    service.start()
    service.tick()
    # Someone else binds "web" before the binding task runs.
    cluster.bind("default", "web", "uid-web", "n2")

    commands = binding_tasks.run_all()
    settle(service, binding_tasks)

    assert [c.payload["status"] is None for c in commands] == [False, True]
    assert commands[0].payload["status"]["reasons"] == [
        'running Bind plugin "DefaultBinder": pod web is already assigned to node "n2"'
    ]
    points = {
        c.payload["uid"]: [e["point"] for e in c.payload["events"] if e["kind"] == "extensionPoint"]
        for c in commands
    }
    assert points == {"uid-web": ["bind"], "uid-api": ["bind", "postBind"]}
    api_node = next(r.node for r in binding_tasks.batches[0] if r.name == "api")
    assert results("default/api") == [("default/api", "Scheduled", api_node)]
    assert results("default/web")[0] == ("default/web", "Error", "")
    assert cluster.get("Pod", "web", "default").spec.node_name == "n2"


def test_a_batch_that_cannot_be_sent_fails_the_binding_cycle_of_each_of_its_pods(
    make_service, cluster
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    cluster.add(pod_manifest("api"))

    def broker_down(batch):
        raise ConnectionError("the broker is away")

    service = make_service(dispatch=broker_down)
    service.start()
    service.tick()

    assert results() == [("default/web", "Error", ""), ("default/api", "Error", "")]
    assert set(SchedulingAttempt.objects.values_list("message", flat=True)) == {
        "sending the binding failed: the broker is away"
    }
    assert not service.bindings
    backoff = [p.name for p in service.scheduler.queue.pods_in_backoff_q()]
    assert sorted(backoff) == ["api", "web"]


def test_a_batch_mixing_two_lease_generations_binds_only_under_the_current_one(
    make_service, cluster, clock, binding_tasks
):
    first, second = binding_sent_then_taken_over(make_service, cluster, clock)
    second.tick()

    commands = binding_tasks.run_all()

    outcomes = [(c.payload["generation"], c.payload["status"]) for c in commands]
    assert outcomes == [
        (first.generation, {"code": "Error", "reasons": [LOST_LEASE], "plugin": ""}),
        (second.generation, None),
    ]
    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"


def test_the_status_is_published_at_once_when_the_work_settles(
    make_service, workspace, cluster, sent, binding_tasks
):
    cluster.add(node_manifest("n1"))
    service = make_service(status_interval=60.0)
    service.start()
    cluster.add(pod_manifest("web"))
    service.tick()  # schedules web and sends its binding
    binding_tasks.run_all()
    service.tick()  # the outcome arrives: still busy
    before = len(statuses(sent))

    service.tick()  # nothing left to do

    assert len(statuses(sent)) == before + 1
    assert statuses(sent)[-1]["queue"]["binding"] == []
    service.tick()  # idle again: nothing new to tell
    assert len(statuses(sent)) == before + 1


def statuses(sent):
    return [m["status"] for _, m in sent if m["type"] == "queue.status"]


def test_a_pod_waiting_for_a_cordoned_node_binds_once_it_is_uncordoned(
    make_service, cluster, binding_tasks
):
    taint = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    cordoned = {**node_manifest("n1"), "spec": {"unschedulable": True, "taints": [taint]}}
    cluster.add(cordoned)
    cluster.add(pod_manifest("web"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    assert cluster.get("Pod", "web", "default").spec.node_name == ""

    # As a person edits it: the stored manifest (with the taint) without spec.unschedulable.
    uncordoned = cluster.get("Node", "n1").to_dict()
    del uncordoned["spec"]["unschedulable"]
    cluster.update(uncordoned)
    settle(service, binding_tasks)

    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"
    assert results() == [("default/web", "Unschedulable", ""), ("default/web", "Scheduled", "n1")]


def test_an_idle_service_sends_nothing_but_stores_the_sizes_it_samples(
    make_service, workspace, cluster, sent, clock, binding_tasks
):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    service = make_service()  # status_interval 0: it looks at every tick
    service.start()
    settle(service, binding_tasks)
    before = list(sent)
    samples = len(SchedulerStatus.objects.get(workspace=workspace).queue_sizes)

    for _ in range(5):
        clock.step(3)
        assert service.tick()

    assert sent == before, "nothing changed: no queue, usage or state message"
    stored = SchedulerStatus.objects.get(workspace=workspace).queue_sizes
    assert len(stored) == samples + 5, "the chart's samples are still kept"


def test_a_change_is_sent_once(make_service, cluster, sent, binding_tasks):
    cluster.add(node_manifest("n1", cpu="1"))
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    before = len(statuses(sent))

    cluster.add(pod_manifest("big", cpu="2"))
    settle(service, binding_tasks)
    service.tick()

    [status] = statuses(sent)[before:]
    assert [entry["pod"] for entry in status["queue"]["unschedulable"]] == ["default/big"]


def test_a_change_to_an_object_the_queue_does_not_show_is_sent_for_the_overview(
    make_service, cluster, sent, binding_tasks
):
    service = make_service()
    service.start()
    settle(service, binding_tasks)
    before = len(statuses(sent))

    cluster.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    service.tick()
    service.tick()

    assert len(statuses(sent)) == before + 1


@pytest.mark.parametrize("kind", ["pause", "resume"])
def test_the_state_is_announced_once_written_where_the_pages_read_it(
    make_service, workspace, sent, kind, monkeypatch
):
    workspace.paused = kind == "resume"
    workspace.save()
    service = make_service()
    service.start()
    written = []
    monkeypatch.setattr(
        broadcast,
        "send",
        lambda group, message: written.append(
            (message["type"], scheduler_state(workspace.pk).state)
        ),
    )

    command(workspace, kind)
    service.tick()

    announced = [state for kind_sent, state in written if kind_sent == "service.state"]
    assert announced == ["paused" if kind == "pause" else "running"]
