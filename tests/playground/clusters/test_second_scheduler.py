"""The second scheduler against the Kubernetes API server for tests (``kube_api``, tests/kube/),
or a real cluster with PLAYGROUND_TEST_KUBECONFIG (every object here is named ``pg-test-*`` and
labelled, and the connection follows only that label).

An *instance* is what a playground deployment runs for a cluster: a workspace linked to a
connection, its mirror (a thread following the cluster, as the mirror's runtime runs it) and its
scheduler service (ticked by the test, its binding tasks run by the test). Two instances with
two users stand for two playground deployments scheduling the same cluster.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
import yaml
from django.conf import settings

from framework.util.clock import FakeClock, RealClock
from playground.clusters.connecting import api_client
from playground.clusters.leader import micro_time
from playground.clusters.live_writes import LiveWrites
from playground.clusters.mirror import Mirror
from playground.clusters.models import ClusterConnection
from playground.scheduling.binding import (
    LANES,
    SECOND_SCHEDULER_OFF,
    _live_binders,
    run_bindings,
)
from playground.scheduling.service import SchedulerService
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import (
    KubeEvent,
    SchedulerCommand,
    SchedulerConfiguration,
    SchedulerStatus,
    Workspace,
)
from tests.kube.fixtures import LocalKubeApi

pytestmark = pytest.mark.django_db(transaction=True)

SCHEDULER = "pg-test-scheduler"
"""The profile's schedulerName: no real kube-scheduler serves it."""
LABEL = {"pg-test": "second-scheduler"}
SELECTOR = "pg-test=second-scheduler"
DEADLINE = 120.0
WATCH_SECONDS = 1


def configuration(namespace: str, permit: bool = False) -> str:
    """A profile named SCHEDULER, its Lease in the test's namespace (a real cluster's
    kube-system is not the tests' to write in)."""
    permit_plugin = (
        "    plugins:\n      permit:\n        enabled:\n        - name: WaitForApproval\n"
        "    pluginConfig:\n    - name: WaitForApproval\n      args: {timeoutSeconds: 300}\n"
        if permit
        else ""
    )
    return (
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "leaderElection:\n"
        f"  resourceNamespace: {namespace}\n"
        "profiles:\n"
        f"  - schedulerName: {SCHEDULER}\n" + permit_plugin
    )


def node(name: str, cpu: str = "4", memory: str = "8Gi") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"pg-test-{name}", "labels": dict(LABEL)},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def pod(name: str, cpu: str = "100m", priority_class: str = "", **spec) -> dict:
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": dict(LABEL)},
        "spec": {
            "schedulerName": SCHEDULER,
            "containers": [
                {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}
            ],
            **spec,
        },
    }
    if priority_class:
        manifest["spec"]["priorityClassName"] = priority_class
    return manifest


@dataclass
class Instance:
    """A playground deployment following the cluster: workspace, connection, mirror, service."""

    workspace: Workspace
    connection: ClusterConnection
    mirror: Mirror
    clock: FakeClock | RealClock
    service: SchedulerService | None = None
    requests: list = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def dispatch(self, batch) -> None:
        self.requests.extend(batch)

    def run_bindings(self) -> None:
        batch, self.requests = self.requests, []
        if batch:
            run_bindings(batch)

    def start(self) -> SchedulerService:
        """Syncs the mirror, starts the service, then follows the cluster in a thread."""
        self.mirror.sync()
        self.service = SchedulerService(
            self.workspace.pk,
            f"worker-{self.workspace.slug}",
            clock=self.clock,
            dispatch=self.dispatch,
            status_interval=0.0,
            background_writes=False,
        )
        assert self.service.start()
        self.thread = threading.Thread(target=self.mirror.run, args=(self.stop,), daemon=True)
        self.thread.start()
        return self.service

    def tick(self) -> None:
        assert self.service.tick()
        self.run_bindings()

    def halt(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(30)


@pytest.fixture
def instances(kube_api, user):
    """``make(name, user=..., preemption=..., permit=..., dra=DRA_KINDS)``: an instance
    following the test's cluster as that API user (``dra``: the DRA kinds mirrored too)."""
    made: list[Instance] = []

    def make(
        name: str = "a", api_user: str = "admin", permit: bool = False, clock=None, **switches
    ):
        workspace = Workspace.objects.create(name=name, slug=f"live-{name}", owner=user)
        SchedulerConfiguration.objects.create(
            workspace=workspace, revision=1, text=configuration(kube_api.namespace, permit)
        )
        connection = ClusterConnection(
            name=f"cluster-{name}",
            owner=user,
            workspace=workspace,
            server=kube_api.url,
            namespaces=kube_api.namespace,
            label_selector=SELECTOR,
            second_scheduler=switches.get("second_scheduler", True),
            preemption=switches.get("preemption", False),
        )
        connection.set_kubeconfig(kube_api.kubeconfig_text(user=api_user))
        connection.save()
        mirror = Mirror(
            connection,
            workspace,
            api_client(connection),
            RealClock(),  # its backoff after a failed call passes, as in production
            kinds=("PriorityClass", "Node", "Pod", *switches.get("dra", ())),
            watch_seconds=WATCH_SECONDS,
        )
        instance = Instance(workspace, connection, mirror, clock or FakeClock(time.time()))
        made.append(instance)
        return instance

    yield make
    for instance in made:
        instance.halt()
        if instance.service is not None and instance.service.scheduler is not None:
            instance.service.stop()
        instance.mirror.api_client.close()


def drive(*instances: Instance, until, seconds: float = DEADLINE) -> None:
    """Ticks the instances (and runs their binding tasks) until ``until()`` holds."""
    deadline = time.monotonic() + seconds
    while not until():
        assert time.monotonic() < deadline, [i.mirror.state() for i in instances]
        for instance in instances:
            instance.tick()
        time.sleep(0.01)


def started_on(kube_api, instances, nodes: int, pods: int) -> Instance:
    """An instance started on ``nodes`` nodes n0... and ``pods`` pending pods p00..."""
    for i in range(nodes):
        kube_api.create(node(f"n{i}"))
    for i in range(pods):
        kube_api.create(pod(f"p{i:02}"))
    live = instances("a")
    live.start()
    return live


def queue_of(instance: Instance) -> dict:
    status = SchedulerStatus.objects.filter(workspace=instance.workspace).first()
    return status.queue if status is not None else {"waiting": []}


def served_pods(kube_api) -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in kube_api.objects("Pod", kube_api.namespace)}


def placements(kube_api) -> dict[str, str]:
    return {name: p["spec"].get("nodeName", "") for name, p in served_pods(kube_api).items()}


def all_bound(kube_api) -> bool:
    return all(placements(kube_api).values())


def binding_requests(kube_api, code: int | None = None) -> list:
    return [
        r
        for r in kube_api.requests
        if r.method == "POST" and r.path.endswith("/binding") and (code is None or r.code == code)
    ]


def binds(kube_api, *instances: Instance) -> Counter:
    """Successful binds per pod name: the Binding requests the test server answered 201, or,
    on a real cluster (whose requests cannot be seen), the Scheduled events the instances
    recorded (one per bind that worked)."""
    if isinstance(kube_api, LocalKubeApi):
        return Counter(r.path.split("/")[-2] for r in binding_requests(kube_api, 201))
    workspaces = [instance.workspace for instance in instances]
    scheduled = KubeEvent.objects.filter(workspace__in=workspaces, reason="Scheduled")
    return Counter(scheduled.values_list("regarding_name", flat=True))


def scheduled_by(instance: Instance) -> int:
    return KubeEvent.objects.filter(workspace=instance.workspace, reason="Scheduled").count()


def events(kube_api, reason: str) -> list[dict]:
    return [
        e
        for e in kube_api.objects("Event", kube_api.namespace, api_version="events.k8s.io/v1")
        if e.get("reason") == reason
    ]


def lease(kube_api) -> dict | None:
    leases = kube_api.objects("Lease", kube_api.namespace)
    return next((obj for obj in leases if obj["metadata"]["name"] == "playground-scheduler"), None)


def simulate(tmp_path, kube_api) -> dict[str, str]:
    """Where ``python -m framework simulate`` puts the test's pods, for the same objects."""
    nodes = [n for n in kube_api.objects("Node") if n["metadata"]["name"].startswith("pg-test-")]
    pods = sorted(served_pods(kube_api).values(), key=lambda p: p["metadata"]["name"])
    objects = tmp_path / "objects.yaml"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": kube_api.namespace}}
    objects.write_text(yaml.safe_dump_all([namespace, *nodes, *pods]))
    config = tmp_path / "config.yaml"
    config.write_text(configuration(kube_api.namespace))
    output = subprocess.run(
        [
            sys.executable,
            "-m",
            "framework",
            "simulate",
            "--config",
            str(config),
            "--objects",
            str(objects),
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    ).stdout
    return {
        entry["pod"].split("/")[1]: entry["node"]
        for entry in json.loads(output)["pods"]
        if entry["result"] == "Scheduled"
    }


# ----------------------------------------------------------------------------------------------
# Scheduling for real


def test_200_pods_on_50_nodes_land_where_simulate_puts_them(kube_api, instances, tmp_path):
    for i in range(50):
        kube_api.create(node(f"n{i:02}", cpu=str(2 + i % 5), memory=f"{4 + i % 7}Gi"))
    for i in range(200):
        kube_api.create(pod(f"p{i:03}", cpu=f"{100 + (i * 37) % 900}m"))
    expected = simulate(tmp_path, kube_api)
    assert len(expected) == 200

    # A real clock: the pods enter the queue one after the other, in the order the mirror
    # listed them, as ``simulate`` creates them in file order (a fake clock standing still
    # would give them all the same queue timestamp).
    live = instances("a", clock=RealClock())
    live.start()
    drive(live, until=lambda: all_bound(kube_api))

    assert placements(kube_api) == expected
    assert set(binds(kube_api, live).values()) == {1}  # each pod bound once
    scheduled = events(kube_api, "Scheduled")
    assert len(scheduled) == 200
    event = next(e for e in scheduled if e["regarding"]["name"] == "p000")
    assert event["note"] == f"Successfully assigned {kube_api.namespace}/p000 to {expected['p000']}"
    assert event["action"] == "Binding" and event["type"] == "Normal"
    assert event["reportingController"] == SCHEDULER
    assert event["reportingInstance"].startswith(f"{SCHEDULER}-")
    assert event["regarding"]["uid"] == served_pods(kube_api)["p000"]["metadata"]["uid"]
    # The workspace keeps the events for its pages, and the mirror brought the binds back.
    assert KubeEvent.objects.filter(workspace=live.workspace, reason="Scheduled").count() == 200
    drive(live, until=lambda: _mirrored_bound(live) == 200)


def test_a_binding_task_binds_its_pods_then_sends_and_stores_their_events(kube_api, instances):
    """kube-scheduler's broadcaster sends events off the binding path: a binding task sends the
    Scheduled events of its batch once the batch's binds are done, and stores them together."""
    live = started_on(kube_api, instances, nodes=3, pods=30)
    deadline = time.monotonic() + DEADLINE
    while len(live.requests) < 30:
        assert time.monotonic() < deadline
        live.service.tick()  # the binding requests are kept, not run
    batch, live.requests = live.requests, []
    run_bindings(batch)

    assert set(binds(kube_api, live).values()) == {1} and len(binds(kube_api, live)) == 30
    notes = {e["regarding"]["name"]: e["note"] for e in events(kube_api, "Scheduled")}
    assert notes == {
        name: f"Successfully assigned {kube_api.namespace}/{name} to {node_name}"
        for name, node_name in placements(kube_api).items()
    }
    stored = KubeEvent.objects.filter(workspace=live.workspace, reason="Scheduled")
    assert sorted(stored.values_list("regarding_name", flat=True)) == sorted(notes)
    if isinstance(kube_api, LocalKubeApi):  # the request log exists only there
        posts = [r.path for r in kube_api.requests if r.method == "POST"]
        last_bind = max(i for i, path in enumerate(posts) if path.endswith("/binding"))
        first_event = min(i for i, path in enumerate(posts) if path.endswith("/events"))
        assert last_bind < first_event


def test_a_binding_task_binds_its_batch_in_lanes_side_by_side(kube_api, instances, monkeypatch):
    """kube-scheduler binds each pod in a goroutine of its own: a batch's binds wait on the API
    server together, not one after the other. Each bind here goes on only once LANES binds are
    under way at once (a barrier), so binds made one at a time would all fail."""
    live = started_on(kube_api, instances, nodes=2, pods=LANES)
    deadline = time.monotonic() + DEADLINE
    while len(live.requests) < LANES:
        assert time.monotonic() < deadline
        live.service.tick()  # the binding requests are kept, not run
    together = threading.Barrier(LANES, timeout=30)
    bind = LiveWrites.bind

    def bind_once_all_are_binding(writes, *args):
        together.wait()
        return bind(writes, *args)

    monkeypatch.setattr(LiveWrites, "bind", bind_once_all_are_binding)
    batch, live.requests = live.requests, []

    outcomes = run_bindings(batch)

    assert [outcome.payload["status"] for outcome in outcomes] == [None] * LANES
    assert set(binds(kube_api, live).values()) == {1} and len(binds(kube_api, live)) == LANES
    assert len(events(kube_api, "Scheduled")) == LANES


def test_binding_tasks_keep_their_client_until_the_credentials_change(kube_api, instances):
    """Each batch reuses the binders (and their clients' open connections) built for the
    workspace, configuration and connection, one per lane, each with a client of its own; new
    credentials get new ones."""
    live = instances("a")
    workspace_id = live.workspace.pk
    binders = _live_binders(live.connection, workspace_id, 1)
    assert len(binders) == LANES
    assert len({id(binder.cluster.writes.client) for binder in binders}) == LANES
    assert _live_binders(live.connection, workspace_id, 1) == binders
    assert not set(map(id, _live_binders(live.connection, workspace_id, None))) & set(
        map(id, binders)
    )
    live.connection.set_kubeconfig(kube_api.kubeconfig_text(user="user-1"))
    live.connection.save()
    renewed = _live_binders(live.connection, workspace_id, 1)
    assert renewed[0] is not binders[0]
    assert renewed[0].cluster.writes.client is not binders[0].cluster.writes.client


def _mirrored_bound(instance: Instance) -> int:
    return sum(1 for p in DatabaseCluster(instance.workspace).list("Pod") if p.spec.node_name)


def test_a_pod_that_fits_nowhere_gets_failed_scheduling_and_its_condition(kube_api, instances):
    kube_api.create(node("small", cpu="1"))
    kube_api.create(pod("huge", cpu="8"))
    live = instances("a")
    live.start()

    drive(live, until=lambda: events(kube_api, "FailedScheduling"))
    attempt = live.workspace.attempts.get(pod_key=f"{kube_api.namespace}/huge")
    (event,) = events(kube_api, "FailedScheduling")
    assert event["note"] == attempt.message
    assert attempt.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert event["type"] == "Warning" and event["action"] == "Scheduling"
    drive(live, until=lambda: served_pods(kube_api)["huge"]["status"].get("conditions"))
    (condition,) = served_pods(kube_api)["huge"]["status"]["conditions"]
    assert condition["type"] == "PodScheduled" and condition["status"] == "False"
    assert condition["reason"] == "Unschedulable" and condition["message"] == attempt.message
    patch = next(r for r in kube_api.requests if r.path.endswith("/pods/huge/status"))
    assert patch.method == "PATCH"
    if isinstance(kube_api, LocalKubeApi):  # kube-apiserver's audit log keeps no content type
        assert patch.content_type == "application/strategic-merge-patch+json"
    assert binds(kube_api, live) == Counter()


DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim")
DRIVER = "gpu.pg-test.example.com"


def dra_objects(node_name: str, claims: tuple[str, ...]) -> list[dict]:
    """A DeviceClass, one GPU in a node-local ResourceSlice, and a claim for it per name."""
    labels = {"labels": dict(LABEL)}
    device_class = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "pg-test-gpu", **labels},
        "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]},
    }
    resource_slice = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus", **labels},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0"}],
        },
    }
    request = {"name": "gpu", "exactly": {"deviceClassName": "pg-test-gpu"}}
    claim_objects = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": name, **labels},
            "spec": {"devices": {"requests": [request]}},
        }
        for name in claims
    ]
    return [device_class, resource_slice, *claim_objects]


def pod_with_claim(name: str, claim: str) -> dict:
    manifest = pod(name, resourceClaims=[{"name": "gpu", "resourceClaimName": claim}])
    manifest["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return manifest


def test_a_pod_with_a_claim_gets_its_device_allocated_and_reserved_through_the_api(
    kube_api, instances
):
    """As kube-scheduler's DynamicResources PreBind: the finalizer in an update of the claim,
    then status.allocation and reservedFor in an update of its status, then the bind; a
    second pod whose claim needs the one device taken stays pending with DynamicResources'
    message (the first claim is assumed allocated before the mirror brings it back)."""
    kube_api.create(node("gpu-node"))
    for manifest in dra_objects("pg-test-gpu-node", ("gpu-a", "gpu-b")):
        kube_api.create(manifest)
    kube_api.create(pod_with_claim("first", "gpu-a"))
    kube_api.create(pod_with_claim("second", "gpu-b"))
    live = instances("a", dra=DRA_KINDS)
    live.start()

    drive(
        live, until=lambda: placements(kube_api)["first"] and events(kube_api, "FailedScheduling")
    )

    first = served_pods(kube_api)["first"]
    assert first["spec"]["nodeName"] == "pg-test-gpu-node"
    claim = kube_api.get("ResourceClaim", "gpu-a", kube_api.namespace)
    assert claim["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    allocation = claim["status"]["allocation"]
    assert allocation["devices"]["results"] == [
        {"request": "gpu", "driver": DRIVER, "pool": "pg-test-gpu-node", "device": "gpu-0"}
    ]
    assert allocation["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"] == [
        {"key": "metadata.name", "operator": "In", "values": ["pg-test-gpu-node"]}
    ]
    assert claim["status"]["reservedFor"] == [
        {"resource": "pods", "name": "first", "uid": first["metadata"]["uid"]}
    ]
    assert not (kube_api.get("ResourceClaim", "gpu-b", kube_api.namespace).get("status") or {})
    assert placements(kube_api)["second"] == ""
    (failed,) = events(kube_api, "FailedScheduling")
    # PostFilter is off with the preemption switch: the message ends with Filter's.
    assert failed["note"] == "0/1 nodes are available: 1 cannot allocate all claims."
    if isinstance(kube_api, LocalKubeApi):
        claim_path = f"/apis/resource.k8s.io/v1/namespaces/{kube_api.namespace}/resourceclaims"
        writes = [
            (r.method, r.path.removeprefix(claim_path))
            for r in kube_api.requests
            if r.method != "GET" and (r.path.startswith(claim_path) or "/first/" in r.path)
        ]
        pods = f"/api/v1/namespaces/{kube_api.namespace}/pods"
        # nominatedNodeName first: a pod with PreBind work is nominated before PreBind.
        assert writes == [
            ("PATCH", f"{pods}/first/status"),
            ("PUT", "/gpu-a"),
            ("PUT", "/gpu-a/status"),
            ("POST", f"{pods}/first/binding"),
        ]


def test_a_workspace_with_the_switch_off_schedules_nothing_and_says_why(
    kube_api, instances, client, user
):
    kube_api.create(node("n1"))
    kube_api.create(pod("web"))
    live = instances("a", second_scheduler=False)
    live.start()
    for _ in range(5):
        live.tick()
    assert SchedulerStatus.objects.get(workspace=live.workspace).standby == "second scheduler off"
    assert binds(kube_api, live) == Counter() and events(kube_api, "Scheduled") == []
    assert live.workspace.attempts.count() == 0
    assert lease(kube_api) is None  # nobody even asked for the Lease
    client.force_login(user)
    page = client.get(f"/w/{live.workspace.slug}/queue/").content.decode()
    assert "scheduler standby" in page and "second scheduler off" in page

    ClusterConnection.objects.filter(pk=live.connection.pk).update(second_scheduler=True)
    drive(live, until=lambda: all_bound(kube_api))
    assert SchedulerStatus.objects.get(workspace=live.workspace).standby == ""


def test_a_connection_whose_kubeconfig_cannot_be_read_leaves_the_workspace_on_standby(
    kube_api, instances
):
    kube_api.create(node("n1"))
    kube_api.create(pod("web"))
    live = instances("a")
    ClusterConnection.objects.filter(pk=live.connection.pk).update(kubeconfig_encrypted="x")
    live.start()
    for _ in range(3):
        live.tick()
    standby = SchedulerStatus.objects.get(workspace=live.workspace).standby
    assert standby.startswith(
        'standby: the connection cannot be used: kubeconfig of connection "cluster-a": cannot '
        "be decrypted"
    )
    assert binds(kube_api, live) == Counter() and live.workspace.attempts.count() == 0


# ----------------------------------------------------------------------------------------------
# Leader election


def test_two_instances_never_both_bind_and_the_other_takes_over_after_lease_duration(
    kube_api, instances
):
    for i in range(4):
        kube_api.create(node(f"n{i}"))
    for i in range(20):
        kube_api.create(pod(f"first-{i:02}"))
    a, b = instances("a", api_user="user-1"), instances("b", api_user="user-2")
    a.start()
    b.start()
    drive(a, b, until=lambda: all_bound(kube_api))

    assert scheduled_by(a) == 20 and scheduled_by(b) == 0  # a took the Lease; b never bound
    if isinstance(kube_api, LocalKubeApi):
        assert {r.user for r in binding_requests(kube_api)} == {"user-1"}
    held = lease(kube_api)["spec"]
    assert held["holderIdentity"] == a.service.second.identity
    standby = SchedulerStatus.objects.get(workspace=b.workspace).standby
    assert standby == f"standby: the cluster lease is held by {a.service.second.identity}"

    # a dies (nothing released); b waits leaseDuration on its own clock, then takes over.
    a.halt()
    a.service = None
    for i in range(5):
        kube_api.create(pod(f"later-{i}"))
    b.clock.step(14.0)
    for _ in range(5):
        b.tick()
    assert not b.service.schedules_for_real()
    b.clock.step(2.0)
    drive(b, until=lambda: all_bound(kube_api))
    assert scheduled_by(a) == 20 and scheduled_by(b) == 5
    assert set(binds(kube_api, a, b).values()) == {1}
    taken = lease(kube_api)["spec"]
    assert taken["holderIdentity"] == b.service.second.identity
    assert taken["leaseTransitions"] == held["leaseTransitions"] + 1


def test_the_lease_is_written_as_client_go_writes_it(kube_api, instances):
    live = instances("a")
    service = live.start()
    live.tick()
    spec = lease(kube_api)["spec"]
    started = micro_time(live.clock.now())
    identity = service.second.identity
    assert identity.rsplit("_", 1)[0] and len(identity.rsplit("_", 1)[1]) == 36
    assert spec == {
        "holderIdentity": identity,
        "leaseDurationSeconds": 15,
        "acquireTime": started,
        "renewTime": started,
        "leaseTransitions": 0,
    }
    live.clock.step(2.0)  # retryPeriod: renewed, acquireTime kept
    live.tick()
    spec = lease(kube_api)["spec"]
    assert spec["renewTime"] == micro_time(live.clock.now()) and spec["acquireTime"] == started
    # Stopping releases it (ReleaseOnCancel): nobody holds it, for one second.
    service.stop()
    live.service = None
    released = lease(kube_api)["spec"]
    assert released["holderIdentity"] == "" and released["leaseDurationSeconds"] == 1
    assert released["leaseTransitions"] == 0


def test_an_instance_that_cannot_renew_for_renew_deadline_stops_scheduling(kube_api, instances):
    live = instances("a")
    service = live.start()
    live.tick()
    assert service.schedules_for_real()
    kube_api.deny("update", "leases", group="coordination.k8s.io")
    live.clock.step(2.0)
    live.tick()
    assert service.schedules_for_real()  # within renewDeadline
    live.clock.step(10.0)
    live.tick()
    assert not service.schedules_for_real()
    standby = SchedulerStatus.objects.get(workspace=live.workspace).standby
    assert standby.startswith("standby: the cluster lease cannot be read")


# ----------------------------------------------------------------------------------------------
# Turning it off


def test_turning_the_switch_off_mid_run_leaves_every_pod_bound_once_or_pending(kube_api, instances):
    live = started_on(kube_api, instances, nodes=5, pods=60)
    live.service.binding_batch = 10
    live.service.cycles_per_tick = 20
    live.service.tick()  # 20 pods reach Bind: their requests are out, not run yet
    live.run_bindings()
    live.service.tick()
    ClusterConnection.objects.filter(pk=live.connection.pk).update(second_scheduler=False)
    late = list(live.requests)
    live.requests.clear()
    run_bindings(late)  # binding tasks that ran after the switch: fenced
    outcomes = SchedulerCommand.objects.filter(kind="binding-finished").order_by("-id")
    assert late and all(
        c.payload["status"]["reasons"] == [SECOND_SCHEDULER_OFF] for c in outcomes[: len(late)]
    )
    bound_before = sum(binds(kube_api, live).values())
    for _ in range(10):
        live.tick()
    assert sum(binds(kube_api, live).values()) == bound_before  # no more binds
    assert SchedulerStatus.objects.get(workspace=live.workspace).standby == "second scheduler off"
    assert set(binds(kube_api, live).values()) == {1}
    bound = [name for name, node_name in placements(kube_api).items() if node_name]
    assert len(bound) == bound_before == 20
    # Back on: the rest are bound, each once, none lost.
    ClusterConnection.objects.filter(pk=live.connection.pk).update(second_scheduler=True)
    drive(live, until=lambda: all_bound(kube_api))
    assert set(binds(kube_api, live).values()) == {1}
    assert len(binds(kube_api, live)) == 60


def test_pods_waiting_at_permit_bind_through_the_api_when_approved_and_go_back_when_off(
    kube_api, instances
):
    kube_api.create(node("n1"))
    kube_api.create(pod("approved"))
    kube_api.create(pod("waiting"))
    live = instances("a", permit=True)
    live.start()
    drive(live, until=lambda: len(queue_of(live)["waiting"]) == 2)
    uid = served_pods(kube_api)["approved"]["metadata"]["uid"]
    SchedulerCommand.objects.create(workspace=live.workspace, kind="allow", payload={"uid": uid})
    drive(live, until=lambda: placements(kube_api)["approved"])
    assert list(binds(kube_api, live)) == ["approved"]

    ClusterConnection.objects.filter(pk=live.connection.pk).update(second_scheduler=False)
    live.tick()
    queue = queue_of(live)
    assert queue["waiting"] == []
    pending = [e["pod"] for place in ("active", "backoff", "unschedulable") for e in queue[place]]
    assert pending == [f"{kube_api.namespace}/waiting"]  # back in the queue, not lost
    assert not placements(kube_api)["waiting"] and list(binds(kube_api, live)) == ["approved"]


# ----------------------------------------------------------------------------------------------
# Preemption


def preemption_cluster(kube_api) -> None:
    kube_api.create(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "pg-test-high", "labels": dict(LABEL)},
            "value": 1000,
        }
    )
    kube_api.create(node("n1", cpu="1"))
    victim = pod("victim", cpu="800m")
    victim["spec"]["nodeName"] = "pg-test-n1"
    kube_api.create(victim)
    kube_api.create(pod("important", cpu="800m", priority_class="pg-test-high"))


def test_with_preemption_on_the_victim_is_marked_deleted_and_told(kube_api, instances):
    preemption_cluster(kube_api)
    live = instances("a", preemption=True)
    live.start()
    victim_uid = served_pods(kube_api)["victim"]["metadata"]["uid"]
    important_uid = served_pods(kube_api)["important"]["metadata"]["uid"]
    drive(live, until=lambda: events(kube_api, "Preempted"))

    (event,) = events(kube_api, "Preempted")
    assert event["note"] == f"Preempted by pod {important_uid} on node pg-test-n1"
    assert event["regarding"]["uid"] == victim_uid and event["action"] == "Preempting"
    assert event["related"]["name"] == "important"
    paths = [(r.method, r.path.rsplit("/", 2)[-2:]) for r in kube_api.requests]
    patched = paths.index(("PATCH", ["victim", "status"]))
    deleted = paths.index(("DELETE", ["pods", "victim"]))
    assert patched < deleted  # DisruptionTarget first, as upstream
    nominated = next(r for r in kube_api.requests if r.path.endswith("/pods/important/status")).body
    assert nominated["status"]["nominatedNodeName"] == "pg-test-n1"


def test_with_preemption_off_no_victim_is_deleted(kube_api, instances):
    preemption_cluster(kube_api)
    live = instances("a", preemption=False)
    live.start()
    drive(live, until=lambda: events(kube_api, "FailedScheduling"))
    assert not [r for r in kube_api.requests if r.method == "DELETE"]
    assert events(kube_api, "Preempted") == []
    assert served_pods(kube_api)["victim"]["spec"]["nodeName"] == "pg-test-n1"


# ----------------------------------------------------------------------------------------------
# Secrets


def test_the_token_never_appears_in_a_log_line_a_page_or_the_export(
    kube_api, instances, client, user, caplog
):
    caplog.set_level(logging.DEBUG)
    kube_api.create(node("n1", cpu="1"))
    kube_api.create(pod("web"))
    kube_api.create(pod("huge", cpu="8"))
    live = instances("a")
    live.start()
    drive(live, until=lambda: placements(kube_api)["web"] and events(kube_api, "FailedScheduling"))
    kube_api.deny("get", "leases", group="coordination.k8s.io")  # failures get logged too
    live.clock.step(20.0)
    live.tick()
    token = kube_api.token_for("admin")
    assert token not in caplog.text
    client.force_login(user)
    slug = live.workspace.slug
    for url in (f"/w/{slug}/", f"/w/{slug}/queue/", f"/w/{slug}/export.yaml"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert token not in response.content.decode(), url
