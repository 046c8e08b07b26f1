"""``python -m benchmarks live``: the playground beside the real kube-scheduler, on a real cluster.

A real control plane (etcd + kube-apiserver from ``KUBEBUILDER_ASSETS``, benchmarks/
control_plane.py) is filled with ``nodes`` nodes and ``pods`` pods already bound to them
(scheduler_perf's SchedulingBasic shapes: 4 CPUs, 32 GiB, 110 pods per node; pods asking for
100m and 500Mi). Then:

1. **kube-scheduler** (the real one, leader election off) binds a burst of ``burst`` pods:
   the burst is created at once (8 requests at a time) and every pod's binding is timed from
   a watch of the burst's namespace. It runs once per client limit asked for: its defaults
   (``clientConnection.qps`` 50, ``burst`` 100), which cap it near 50 binds a second, and
   scheduler_perf's (5,000 / 5,000), under which upstream's published rates were taken.
2. **the playground**, in each mode asked for, schedules its own burst as a second scheduler
   (profile ``playground-scheduler``; the real scheduler is stopped by then, so both have the
   machine to themselves):

   - *embedded*: ``manage.py runserver --noreload`` (what ``scripts/run`` runs) on a fresh
     SQLite file, the Celery worker, in-memory broker and channel layer inside it;
   - *production*: the Procfile's ``scheduler`` and ``binding`` workers on a throwaway
     PostgreSQL database and Redis keys of their own (DATABASE_URL and REDIS_URL must be set).

   A connection to the cluster mirrors it into a workspace whose configuration names the
   profile, with the second scheduler switched on. The figures: the mirror's **initial sync**
   (from the mirror's start to every node and pod in the workspace), the **mirror's lag** for
   the burst (from the last create's answer to the whole burst in the workspace, read from
   the database every 20 ms), the **binding rate** timed as for kube-scheduler and its ratio
   to kube-scheduler's, and the **shutdown**: seconds from SIGTERM to the process's exit
   (embedded: the web process; production: the scheduler worker's warm shutdown), and
   whether the database leases (the scheduler service's, the mirror's) and the cluster's
   Lease were released.

Each scheduler binds two bursts. The first is **queued**: created while no scheduler serves
it (kube-scheduler not started yet, the playground's switch still off), mirrored, and then
the scheduler starts (or the switch is turned on) and its bindings are timed from then: the
scheduler's own rate. The second is **created meanwhile**, as issue 23 measured it: its
binding rate cannot pass the rate at which the benchmark creates pods (8 requests at a time;
60-80 pods/s on a loaded 2-core machine), and the mirror's lag for it is taken while the
scheduler binds. Between the bursts the first is deleted, and the playground's workspace is
waited for until it holds the running pods alone, so one phase's writes do not run into the
next.

The binding rate is taken over the 10-90 % window of the burst's binding times (pods bound in
it divided by its seconds): the first pods wait for the burst to be created, the last for
stragglers, neither says how fast a scheduler binds.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from kubernetes.client import ApiClient
from kubernetes.watch.watch import iter_resp_lines

from benchmarks.control_plane import (
    DEFAULT_LIMITS,
    SCHEDULER_PERF_LIMITS,
    ClientLimits,
    LiveCluster,
    assets_folder,
    control_plane,
    kube_scheduler,
)
from benchmarks.playground_e2e import (
    _free_port,
    _libpq,
    _terminated_as_interrupt,
    production_backends,
    throwaway_backends,
)
from benchmarks.processes import ROOT, Process, procfile_commands, started_processes

DEFAULT_NODES = 5000
DEFAULT_PODS = 10000
DEFAULT_BURST = 1000
EMBEDDED, PRODUCTION = "embedded", "production"
MODES = (EMBEDDED, PRODUCTION)
REFERENCES = {limits.name: limits for limits in (DEFAULT_LIMITS, SCHEDULER_PERF_LIMITS)}
NAMESPACE = "bench"
"""Where the pods already running are."""
SCHEDULER_NAME = "playground-scheduler"
"""The playground's profile: the real kube-scheduler serves ``default-scheduler`` only."""
CREATE_THREADS = 8
"""Create requests under way at once (filling the cluster, and a burst)."""
POLL_SECONDS = 0.02
SHUTDOWN_LIMIT_SECONDS = 90.0
"""A process still running this long after SIGTERM is killed (and its figure says so)."""
CONFIGURATION = f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {SCHEDULER_NAME}
"""


# ----------------------------------------------------------------------------------------------
# Results


@dataclass(slots=True)
class Burst:
    """One burst of pods created at once and bound by a scheduler."""

    pods: int
    create_seconds: float
    """From the first create request to the last one's answer."""
    bound_at: list[float] = field(default_factory=list)
    """Seconds from ``timed_from`` to each pod's binding, as the watch saw them, sorted."""
    timed_from: str = "the first create"

    @property
    def rate(self) -> float:
        """Pods bound per second over the 10-90 % window of the binding times."""
        times = sorted(self.bound_at)
        if len(times) < 10:
            return len(times) / times[-1] if times and times[-1] > 0 else 0.0
        first, last = int(len(times) * 0.1), int(len(times) * 0.9) - 1
        span = times[last] - times[first]
        return (last - first) / span if span > 0 else float("inf")

    @property
    def all_bound_seconds(self) -> float | None:
        return max(self.bound_at) if len(self.bound_at) == self.pods else None

    def report(self) -> str:
        done = self.all_bound_seconds
        bound = (
            f"all bound {done:.1f} s after {self.timed_from}"
            if done is not None
            else f"only {len(self.bound_at)} of {self.pods} bound"
        )
        return (
            f"{self.rate:7.1f} pods/s (10-90 %), {bound};"
            f" {self.pods} created in {self.create_seconds:.1f} s"
        )


@dataclass(slots=True)
class Shutdown:
    """How a process stopped on SIGTERM."""

    process: str
    seconds: float | None
    """From SIGTERM to exit; None when it had to be killed."""
    holders: dict[str, str]
    """Per lease (scheduler service, mirror, cluster Lease): who holds it after the stop, ""
    when it was given up. A holder ``starting:<task>`` is a start reserved for a task still in
    the broker's queue, which the next worker to take it runs."""

    def report(self) -> str:
        took = (
            f"{self.seconds:.1f} s"
            if self.seconds is not None
            else f"killed after {SHUTDOWN_LIMIT_SECONDS:.0f} s"
        )
        leases = ", ".join(
            f"{name} {'yes' if not holder else f'NO (held by {holder})'}"
            for name, holder in self.holders.items()
        )
        return f"{self.process} exited {took} after SIGTERM; released: {leases}"


@dataclass(slots=True)
class PlaygroundRun:
    mode: str
    initial_sync_seconds: float
    queued_lag_seconds: float
    """The queued burst: from the last create's answer to the whole burst in the workspace
    (nothing being bound meanwhile)."""
    queued: Burst
    mirror_lag_seconds: float
    """The burst created meanwhile: likewise, while the scheduler binds."""
    burst: Burst
    shutdown: Shutdown
    load: tuple[float, float]


@dataclass(slots=True)
class Reference:
    """The real kube-scheduler's burst under one client limit."""

    limits: ClientLimits
    queued: Burst
    burst: Burst
    load: tuple[float, float]


@dataclass(slots=True)
class Report:
    nodes: int
    pods: int
    burst: int
    fill_seconds: float
    references: list[Reference]
    runs: list[PlaygroundRun]

    def text(self) -> str:
        lines = [
            f"live cluster: {self.nodes} nodes, {self.pods} running pods, bursts of"
            f" {self.burst} pods (real kube-apiserver; filled in {self.fill_seconds:.1f} s)",
        ]
        for reference in self.references:
            lines += [
                f"  kube-scheduler, {reference.limits.describe()}",
                f"  {'':23}queued:           {reference.queued.report()}",
                f"  {'':23}created meanwhile: {reference.burst.report()}",
                f"  {'':23}load average {_load(reference.load)}",
            ]
        for run in self.runs:
            lines += [
                f"  playground, {run.mode}",
                f"  {'':23}queued:           {run.queued.report()}",
                *self._ratios(run.queued, "queued"),
                f"  {'':23}created meanwhile: {run.burst.report()}",
                *self._ratios(run.burst, "burst"),
                f"  {'':23}mirror: initial sync {run.initial_sync_seconds:.1f} s; the burst in"
                f" the workspace {run.queued_lag_seconds:.2f} s after the last create (queued),"
                f" {run.mirror_lag_seconds:.2f} s (created meanwhile)",
                f"  {'':23}shutdown: {run.shutdown.report()}",
                f"  {'':23}load average {_load(run.load)}",
            ]
        return "\n".join(lines)

    def _ratios(self, burst: Burst, which: str) -> list[str]:
        """The playground's rate as a multiple of each kube-scheduler's, burst for burst."""
        ratios = [
            f"{burst.rate / theirs.rate if theirs.rate else 0.0:.2f} x kube-scheduler's with"
            f" {reference.limits.name} limits"
            for reference in self.references
            if (theirs := getattr(reference, which))
        ]
        return [f"  {'':23}{'; '.join(ratios)}"] if ratios else []


def _load(load: tuple[float, float]) -> str:
    return f"{load[0]:.2f} at the start, {load[1]:.2f} at the end"


# ----------------------------------------------------------------------------------------------
# The run


def run(
    nodes: int = DEFAULT_NODES,
    pods: int = DEFAULT_PODS,
    burst: int = DEFAULT_BURST,
    modes: Sequence[str] = MODES,
    references: Sequence[str] = tuple(REFERENCES),
    port: int = 0,
    timeout: float = 600.0,
    say: Callable[[str], None] = lambda _: None,
) -> Report:
    """Runs the benchmark once (see the module); ``say`` hears what is being done."""
    if nodes < 1 or pods < 0 or burst < 1:
        raise ValueError(
            f"nodes and burst must be at least 1, pods 0 (got {nodes}, {pods}, {burst})"
        )
    unknown = set(modes) - set(MODES)
    if unknown:
        raise ValueError(f"modes: {', '.join(sorted(unknown))}: not one of {', '.join(MODES)}")
    unknown = set(references) - set(REFERENCES)
    if unknown:
        raise ValueError(
            f"references: {', '.join(sorted(unknown))}: not one of {', '.join(REFERENCES)}"
        )
    if PRODUCTION in modes:
        production_backends(os.environ)  # fails early, naming the variable
    assets = assets_folder()
    say(f"starting etcd and kube-apiserver from {assets}")
    with _terminated_as_interrupt(), control_plane(assets, port) as plane:
        cluster = Cluster(plane.client(CREATE_THREADS * 2))
        say(f"creating {nodes} nodes and {pods} pods")
        start = time.monotonic()
        cluster.fill(nodes, pods)
        fill_seconds = time.monotonic() - start
        measured = []
        for name in references:
            say(f"kube-scheduler binds a burst, {REFERENCES[name].describe()}")
            limits = REFERENCES[name]
            measured.append(_reference(limits, assets, plane, cluster, pods, burst, timeout))
            cluster.clear(_reference_namespace(REFERENCES[name]), pods)
        runs = []
        for mode in modes:
            say(f"the playground, {mode} mode")
            runs.append(_playground(mode, plane, cluster, nodes, pods, burst, timeout, say))
            cluster.clear(f"burst-{mode}", pods)
        return Report(nodes, pods, burst, fill_seconds, measured, runs)


def _reference(
    limits: ClientLimits,
    assets: Path,
    plane: LiveCluster,
    cluster: Cluster,
    pods: int,
    burst: int,
    timeout: float,
) -> Reference:
    load = os.getloadavg()[0]
    namespace = _reference_namespace(limits)
    with ExitStack() as running:
        queued = cluster.burst(
            f"{namespace}-queued",
            burst,
            "default-scheduler",
            timeout,
            start=lambda: running.enter_context(kube_scheduler(assets, plane, limits=limits)),
        )
        cluster.clear(f"{namespace}-queued", pods)
        bound = cluster.burst(namespace, burst, "default-scheduler", timeout)
    return Reference(limits, queued, bound, (load, os.getloadavg()[0]))


def _reference_namespace(limits: ClientLimits) -> str:
    """Where kube-scheduler's burst goes (also names its probe pod): a DNS label."""
    return "burst-real-" + limits.name.replace("_", "-")


def _playground(
    mode: str,
    plane: LiveCluster,
    cluster: Cluster,
    nodes: int,
    pods: int,
    burst: int,
    timeout: float,
    say: Callable[[str], None],
) -> PlaygroundRun:
    with _backend(mode) as (env, database):
        ids = _prepare(env, plane)
        with started_processes(_commands(mode, env), env) as processes:
            watched = Playground(database, ids, processes, timeout)
            load = os.getloadavg()[0]
            say("mirroring")
            initial_sync = watched.initial_sync(nodes, pods)
            say(f"initial sync {initial_sync:.1f} s; a queued burst, then the switch on")
            namespace = f"burst-{mode}"
            lag: list[float] = []
            queued = cluster.burst(
                f"{namespace}-queued",
                burst,
                SCHEDULER_NAME,
                timeout,
                after_creates=lambda last: lag.append(
                    watched.burst_lag(f"{namespace}-queued", burst, last)
                ),
                start=watched.switch_on,
            )
            cluster.clear(f"{namespace}-queued", pods)
            watched.await_pods(pods)
            say("the second scheduler binds a burst created meanwhile")
            result = cluster.burst(
                namespace,
                burst,
                SCHEDULER_NAME,
                timeout,
                after_creates=lambda last: lag.append(watched.burst_lag(namespace, burst, last)),
            )
            end_load = os.getloadavg()[0]
            say("stopping it")
            stopped = processes[_stopped_first(mode)]
            seconds = stopped.stop(SHUTDOWN_LIMIT_SECONDS)
            holders = watched.holders() | {"cluster Lease": cluster.lease_holder()}
            shutdown = Shutdown(_stopped_first(mode), seconds, holders)
    return PlaygroundRun(
        mode, initial_sync, lag[0], queued, lag[1], result, shutdown, (load, end_load)
    )


def _alive(processes: Mapping[str, subprocess.Popen]) -> Callable[[], None]:
    """A check that fails, naming the process, once one of them has exited."""

    def check() -> None:
        for name, process in processes.items():
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}")

    return check


def _stopped_first(mode: str) -> str:
    return "web" if mode == EMBEDDED else "scheduler"


# ----------------------------------------------------------------------------------------------
# The cluster


class Cluster:
    """The control plane's objects, through the official client (JSON in and out)."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def fill(self, nodes: int, pods: int) -> None:
        """``nodes`` nodes and ``pods`` pods bound to them in turn, in namespace ``bench``."""
        self.create_all([_namespace(NAMESPACE)])
        names = [f"node-{index}" for index in range(nodes)]
        self.create_all([_node(name) for name in names])
        self.create_all(
            [
                _pod(f"running-{index}", NAMESPACE, node_name=names[index % nodes])
                for index in range(pods)
            ]
        )

    def create_all(self, manifests: list[dict[str, Any]]) -> float:
        """Creates them, CREATE_THREADS at a time; returns when the last answered
        (time.monotonic())."""
        with ThreadPoolExecutor(CREATE_THREADS) as pool:
            for answered in pool.map(self.create, manifests):
                last = answered
        return last

    def create(self, manifest: dict[str, Any]) -> float:
        self._call("POST", _collection(manifest), body=manifest)
        return time.monotonic()

    def burst(
        self,
        namespace: str,
        count: int,
        scheduler_name: str,
        timeout: float,
        after_creates: Callable[[float], None] = lambda _: None,
        start: Callable[[], Any] | None = None,
    ) -> Burst:
        """Creates ``count`` pods at once in a new namespace and times their bindings;
        ``after_creates`` is called with the last create's answer time. With ``start`` the
        burst is queued: ``start`` (which starts its scheduler) is called once it is created
        and ``after_creates`` has returned, and the bindings are timed from then."""
        self.create_all([_namespace(namespace)])
        watch = BindWatch(self, namespace)
        with watch.running():
            began = first = time.monotonic()
            last = self.create_all(
                [_pod(f"pod-{i}", namespace, scheduler_name) for i in range(count)]
            )
            after_creates(last)
            if start is not None:
                began = time.monotonic()
                start()
            watch.wait(count, began + timeout)
        bound = sorted(at - began for at in watch.bound.values())
        timed_from = "the first create" if start is None else "the scheduler's start"
        return Burst(count, last - first, bound, timed_from)

    def await_probe(
        self,
        scheduler_name: str,
        name: str,
        timeout: float,
        alive: Callable[[], None] = lambda: None,
    ) -> None:
        """Creates a pod for the scheduler in namespace ``bench`` and waits until it is bound:
        the scheduler has synced and schedules."""
        pod = _pod(f"probe-{name}", NAMESPACE, scheduler_name)
        self.create(pod)
        path = f"/api/v1/namespaces/{NAMESPACE}/pods/probe-{name}"

        def bound() -> bool:
            alive()
            return bool(json.loads(self._call("GET", path).data)["spec"].get("nodeName"))

        _wait(bound, f"{scheduler_name} binds a probe pod", time.monotonic() + timeout)

    def clear(self, namespace: str, running: int) -> None:
        """Deletes a burst's pods and the probe pods: the next run meets the same cluster."""
        self._call(
            "DELETE", f"/api/v1/namespaces/{namespace}/pods", query=[("gracePeriodSeconds", 0)]
        )
        probes = [("gracePeriodSeconds", 0), ("labelSelector", "probe")]
        self._call("DELETE", f"/api/v1/namespaces/{NAMESPACE}/pods", query=probes)

        def cleared() -> bool:
            left = json.loads(self._call("GET", "/api/v1/pods", query=[("limit", 1)]).data)
            remaining = left["metadata"].get("remainingItemCount", 0) + len(left["items"])
            return remaining == running

        _wait(cleared, f"only the {running} running pods are left", time.monotonic() + 120)

    def lease_holder(self, namespace: str = "kube-system", name: str = SCHEDULER_NAME) -> str:
        """Who holds the second scheduler's Lease ("" for nobody, or no Lease)."""
        path = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"
        try:
            lease = json.loads(self._call("GET", path).data)
        except Exception:  # no Lease: nobody holds it
            return ""
        return (lease.get("spec") or {}).get("holderIdentity") or ""

    def _call(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: list[tuple[str, Any]] | None = None,
        read_timeout: float = 60.0,
    ) -> Any:
        return self.client.call_api(
            path,
            method,
            query_params=query or [],
            body=body,
            header_params={"Accept": "application/json", "Content-Type": "application/json"},
            auth_settings=["BearerToken"],
            _preload_content=False,
            _request_timeout=(5, read_timeout),
        )


class BindWatch:
    """Watches a namespace's pods and notes when each was first seen bound."""

    def __init__(self, cluster: Cluster, namespace: str) -> None:
        self.cluster = cluster
        self.namespace = namespace
        self.bound: dict[str, float] = {}
        self._changed = threading.Condition()
        self._response: Any = None

    @contextmanager
    def running(self) -> Iterator[BindWatch]:
        path = f"/api/v1/namespaces/{self.namespace}/pods"
        listed = json.loads(self.cluster._call("GET", path, query=[("limit", 1)]).data)
        query = [("watch", "true"), ("resourceVersion", listed["metadata"]["resourceVersion"])]
        self._response = self.cluster._call("GET", path, query=query, read_timeout=3600)
        thread = threading.Thread(target=self._follow, name="bind watch", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            # Wakes the thread's blocked read: close() alone would wait for it.
            self._response.shutdown()
            thread.join()
            self._response.close()

    def wait(self, count: int, deadline: float) -> None:
        with self._changed:
            while len(self.bound) < count and time.monotonic() < deadline:
                self._changed.wait(0.5)

    def _follow(self) -> None:
        try:
            for line in iter_resp_lines(self._response):
                if not line:
                    continue
                obj = json.loads(line).get("object") or {}
                name = (obj.get("metadata") or {}).get("name", "")
                if (obj.get("spec") or {}).get("nodeName") and name not in self.bound:
                    with self._changed:
                        self.bound[name] = time.monotonic()
                        self._changed.notify_all()
        except Exception:  # the watch was closed: the burst is over
            return


def _collection(manifest: dict[str, Any]) -> str:
    plural = manifest["kind"].lower() + "s"
    namespace = manifest["metadata"].get("namespace")
    return f"/api/v1/namespaces/{namespace}/{plural}" if namespace else f"/api/v1/{plural}"


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _node(name: str) -> dict[str, Any]:
    """scheduler_perf's node-default.yaml."""
    capacity = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": capacity, "allocatable": capacity, "phase": "Running"},
    }


def _pod(
    name: str, namespace: str, scheduler_name: str = "default-scheduler", node_name: str = ""
) -> dict[str, Any]:
    """scheduler_perf's pod-default.yaml: one container asking for 100m and 500Mi."""
    spec: dict[str, Any] = {
        "schedulerName": scheduler_name,
        "containers": [
            {
                "name": "pause",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}},
            }
        ],
    }
    if node_name:
        spec["nodeName"] = node_name
    labels = {"probe": "yes"} if name.startswith("probe-") else {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": spec,
    }


# ----------------------------------------------------------------------------------------------
# The playground's processes and database


@contextmanager
def _backend(mode: str) -> Iterator[tuple[dict[str, str], Database]]:
    """The environment of a mode's processes, on a database of their own, and that database."""
    base = {
        **{k: v for k, v in os.environ.items() if k not in _BACKEND_VARIABLES},
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "SECRET_KEY": secrets.token_urlsafe(32),
        "PLAYGROUND_ENCRYPTION_KEY": _fernet_key(),
        "DEBUG": "False",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONUNBUFFERED": "1",
        "PORT": str(_free_port()),
    }
    if mode == EMBEDDED:
        with tempfile.TemporaryDirectory(prefix="live-embedded-") as folder:
            path = str(Path(folder) / "playground.sqlite3")
            env = {**base, "SQLITE_PATH": path}
            database = Database.sqlite(path)
            try:
                yield env, database
            finally:
                database.close()
        return
    database_url, redis_url = production_backends(os.environ)
    with throwaway_backends(database_url, redis_url, "live") as (url, prefix):
        env = {**base, "DATABASE_URL": url, "REDIS_URL": redis_url, "REDIS_KEY_PREFIX": prefix}
        database = Database.postgres(url)
        try:
            yield env, database
        finally:
            database.close()


_BACKEND_VARIABLES = ("DATABASE_URL", "REDIS_URL", "REDIS_KEY_PREFIX", "SQLITE_PATH")


def _fernet_key() -> str:
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode()


def _commands(mode: str, env: Mapping[str, str]) -> dict[str, str]:
    """What runs the playground: ``scripts/run``'s server, or the Procfile's workers."""
    if mode == EMBEDDED:
        python = sys.executable
        return {"web": f"{python} manage.py runserver --noreload 127.0.0.1:{env['PORT']}"}
    procfile = procfile_commands()
    return {name: procfile[name] for name in ("scheduler", "binding")}


PREPARE = """
import json, sys
import django
django.setup()
from benchmarks.live import prepare
print(json.dumps(prepare(sys.argv[1])))
"""


def _prepare(env: Mapping[str, str], plane: LiveCluster) -> dict[str, int]:
    """Migrates the database and links a workspace to the cluster (see ``prepare``)."""
    for command in (
        [sys.executable, "manage.py", "migrate", "--noinput"],
        [sys.executable, "-c", PREPARE, str(plane.kubeconfig)],
    ):
        done = subprocess.run(command, cwd=ROOT, env=dict(env), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])} failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def prepare(kubeconfig: str) -> dict[str, int]:
    """Run in the playground's environment: a user, a connection to the cluster (``cluster
    add``), its mirror's workspace with the ``playground-scheduler`` profile, and the second
    scheduler left off (the benchmark turns it on once its first burst is mirrored). Returns
    the workspace's and the connection's ids."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from playground.clusters.mirroring import start_mirroring
    from playground.clusters.models import ClusterConnection
    from playground.workspaces.services import add_configuration_revision

    get_user_model().objects.create_user("bench", password=secrets.token_urlsafe(16))
    call_command("cluster", "add", "live", "--owner", "bench", "--kubeconfig", kubeconfig)
    connection = ClusterConnection.objects.get(name="live")
    workspace = start_mirroring(connection)
    revision, problems = add_configuration_revision(workspace, CONFIGURATION)
    if revision is None:
        raise RuntimeError(f"the configuration was refused: {problems}")
    return {"workspace": workspace.pk, "connection": connection.pk}


class Database:
    """Reads of the playground's database while its processes write it."""

    def __init__(self, connect: Callable[[], Any], placeholder: str) -> None:
        self._connect = connect
        self._placeholder = placeholder
        self._connection: Any = None

    @classmethod
    def sqlite(cls, path: str) -> Database:
        return cls(lambda: sqlite3.connect(path, timeout=20, isolation_level=None), "?")

    @classmethod
    def postgres(cls, url: str) -> Database:
        return cls(lambda: psycopg.connect(_libpq(url), autocommit=True), "%s")

    def execute(self, sql: str, *args: Any) -> None:
        self.one(sql, *args)

    def one(self, sql: str, *args: Any) -> Any:
        """The first column of the first row (None without rows); ``%s`` marks arguments."""
        if self._connection is None:
            self._connection = self._connect()
        cursor = self._connection.execute(sql.replace("%s", self._placeholder), args)
        row = cursor.fetchone() if cursor.description else None
        return row[0] if row else None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


@dataclass
class Playground:
    """The running playground, watched through its database."""

    database: Database
    ids: dict[str, int]
    processes: dict[str, Process]
    timeout: float

    def check_alive(self) -> None:
        for process in self.processes.values():
            process.check_alive()

    def initial_sync(self, nodes: int, pods: int) -> float:
        """Seconds from the mirror's start (its status row appearing) to every node and pod
        of the cluster in the workspace."""
        deadline = time.monotonic() + self.timeout
        started = "SELECT count(*) FROM clusters_mirrorstatus WHERE connection_id = %s" + (
            " AND started_at IS NOT NULL"
        )
        self._wait(
            lambda: self.database.one(started, self.ids["connection"]) > 0,
            "the mirror starts",
            deadline,
        )
        start = time.monotonic()
        self._wait(
            lambda: self._count("Node") >= nodes and self._count("Pod") >= pods,
            f"the workspace holds {nodes} nodes and {pods} pods",
            deadline,
        )
        return time.monotonic() - start

    def burst_lag(self, namespace: str, count: int, last_create: float) -> float:
        """Seconds from ``last_create`` until the workspace holds the burst's pods."""
        self._wait(
            lambda: self._count("Pod", namespace) >= count,
            f"the workspace holds the {count} pods of {namespace}",
            time.monotonic() + self.timeout,
        )
        return time.monotonic() - last_create

    def switch_on(self) -> None:
        """Turns the connection's second scheduler on, as its page's switch does."""
        self.database.execute(
            "UPDATE clusters_clusterconnection SET second_scheduler = %s WHERE id = %s",
            True,
            self.ids["connection"],
        )

    def await_pods(self, pods: int) -> None:
        """Waits until the workspace holds ``pods`` pods: a deleted burst has been mirrored."""
        self._wait(
            lambda: self._count("Pod") == pods,
            f"the workspace holds {pods} pods",
            time.monotonic() + self.timeout,
        )

    def holders(self) -> dict[str, str]:
        """Who holds the scheduler service's and the mirror's database leases ("": nobody)."""
        service = self.database.one(
            "SELECT holder FROM workspaces_schedulerlease WHERE workspace_id = %s",
            self.ids["workspace"],
        )
        mirror = self.database.one(
            "SELECT holder FROM clusters_mirrorlease WHERE connection_id = %s",
            self.ids["connection"],
        )
        return {"scheduler lease": service or "", "mirror lease": mirror or ""}

    def _count(self, kind: str, namespace: str | None = None) -> int:
        sql = "SELECT count(*) FROM workspaces_clusterobject WHERE workspace_id = %s AND kind = %s"
        args: list[Any] = [self.ids["workspace"], kind]
        if namespace is not None:
            sql += " AND namespace = %s"
            args.append(namespace)
        return self.database.one(sql, *args)

    def _wait(self, condition: Callable[[], bool], what: str, deadline: float) -> None:
        _wait(condition, what, deadline, self.check_alive)


def _wait(
    condition: Callable[[], bool],
    what: str,
    deadline: float,
    alive: Callable[[], None] = lambda: None,
) -> None:
    while not condition():
        alive()
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting until {what}")
        time.sleep(POLL_SECONDS)
