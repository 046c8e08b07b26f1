"""The playground end to end in production mode: pods created over HTTP until they are bound.

Everything real, nothing in-process: a throwaway PostgreSQL database, Redis (keys under a
prefix of their own), and the ``Procfile``'s processes, the web server (daphne), the scheduler
worker and the binding worker. A user logs in, creates a workspace, imports the nodes (a few
zones, mixed sizes, as the demo's), opens the queue board's websocket, and then creates the
pods with the bulk form, one chunk per request as the page does. The clock runs from the first
creation request until every pod is bound in the database *and* the queue board on the
websocket shows them all bound: the web process, PostgreSQL, Celery on Redis, the scheduler
service, the binding tasks and the channel layer are all in the path.

``watch`` adds a page that watches the live trace (docs/debugger.md, "Live stream"): ``pod``
opens one pod's page socket as soon as the request that creates the pod has answered (a pod's
page refuses a pod that does not exist yet; a scheduling gate holds that one pod until the
service has read the page's watch, so the page always has a cycle to watch), ``workspace``
the debugger page's socket, which watches every pod, before the first pod is created. Each
registers a ``LiveWatch``, so the scheduler streams extension points to it; the run counts the
Live panels it receives.

The database and the Redis keys are removed afterwards and the processes stopped, also on
failure or Ctrl-C.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
import yaml
from celery import Celery

from benchmarks.browser import Browser, BrowserError, LiveStream, LiveWatcher
from benchmarks.harness import percentile
from benchmarks.processes import (
    ROOT,
    Process,
    Usage,
    machine_usage,
    matching_usage,
    procfile_processes,
    stolen_usage,
)
from benchmarks.processes import tree_usage as process_tree_usage
from playground.workspaces import demo

DEFAULT_NODES = 500
DEFAULT_PODS = 1000
NODES_PER_IMPORT = 1000
"""Nodes per paste into the import form: 1,000 nodes of YAML stay well under the 2.5 MB a
request may carry (Django's DATA_UPLOAD_MAX_MEMORY_SIZE), so larger clusters are imported in
several pastes, as a person would."""
CHUNK = 200
"""Pods per bulk request: the bulk page's own chunk (``importing.CHUNK_SIZE``)."""
PROCESSES = ["web", "scheduler", "binding"]
USERNAME = "bench"
START_SECONDS = 120.0
"""How long the processes may take to be ready, and the service to start."""
POLL_SECONDS = 0.05
MACHINE = "the machine"
OTHERS = "everything else on the machine"
STOLEN = "stolen by the hypervisor (other guests)"
SIZES = ("small", "medium", "medium", "large")
"""Node sizes in turn (the demo's): half medium, a quarter each small and large."""
NOBODY, POD, WORKSPACE = "nobody", "pod", "workspace"
WATCHES = (NOBODY, POD, WORKSPACE)
"""Who watches the live trace during a run: nobody, one pod's page, the debugger page."""
WATCH_GATE = "playground.dev/page-opening"
"""The scheduling gate that holds the watched pod until its page watches (``_create_watched``)."""
FOLLOWED_SECONDS = 60.0
"""How long a page may wait for the service to say it follows the page's watch. The service
reads the watches once a second (``playground/scheduling/live_trace.py``) and sends the answer
again at the next reading when its web process refused it (a full channel layer queue); on a
loaded machine the answer has taken over 30 s. The watched pod's wait is part of its latency,
not of the figures' time base."""


class NotProductionMode(Exception):
    """DATABASE_URL or REDIS_URL is missing or not the production kind."""


@dataclass(slots=True)
class Watch:
    """What a page watching the live trace received during a run."""

    page: str
    """``pod`` (a pod's page) or ``workspace`` (the debugger page)."""
    pod: str
    """The pod watched (``namespace/name``), "" for every pod."""
    opened: float
    """When the page had connected, in seconds from the first creation request (negative:
    before it)."""
    registered: int
    """Live watches of the workspace in the database once the page's socket had connected."""
    messages: int
    """Messages received (each a set of HTML fragments), the first state included."""
    live: int
    """Of those, the Live panels: only a ``trace.events`` message renders one."""
    live_pods: int
    """Pods those panels showed."""
    followed: bool = False
    """Whether the service's answer to the watch (``trace.followed``) reached the page."""

    def report(self) -> str:
        what = f"pod {self.pod}" if self.pod else "every pod (the debugger page)"
        return (
            f"{what}, open from {self.opened:.2f} s: {self.messages} messages, {self.live} Live"
            f" panels (trace.events) showing {self.live_pods} pod(s);"
            f" {self.registered} watch registered"
            f"{'' if self.followed else ', the service answer to it not received'}"
        )


@dataclass(slots=True)
class Result:
    """One run's figures. Times are seconds from the first pod creation request."""

    nodes: int
    pods: int
    bound: int
    database: str
    """The throwaway database's name (dropped by the time the result is returned)."""
    seconds: float
    """Until every pod was bound in the database and the live board showed them all."""
    database_seconds: float
    live_seconds: float
    latencies: list[float] = field(default_factory=list)
    """Each pod's creation to binding, as the database's timestamps tell."""
    usage: dict[str, Usage] = field(default_factory=dict)
    """CPU seconds spent during the run and memory at its end, per process group."""
    watch: Watch | None = None
    """The page that watched the live trace, if any."""
    load: tuple[float, float] = (0.0, 0.0)
    """The machine's 1-minute load average at the start and at the end of the run."""

    @property
    def pods_per_second(self) -> float:
        return self.bound / self.seconds if self.seconds > 0 else 0.0

    def report(self) -> str:
        p50, p99 = percentile(self.latencies, 50), percentile(self.latencies, 99)
        lines = [
            f"playground end to end, production mode: {self.nodes} nodes, {self.pods} pods",
            f"  pods/s                  {self.pods_per_second:.1f}",
            f"  seconds                 {self.seconds:.2f} (first creation to every pod bound in"
            " the database and on the live board)",
            f"  database / live board   {self.database_seconds:.2f} / {self.live_seconds:.2f} s",
            f"  creation -> bound       p50 {p50:.2f} s, p99 {p99:.2f} s",
            f"  bound                   {self.bound} of {self.pods}",
            f"  watching the live trace {self.watch.report() if self.watch else NOBODY}",
            f"  load average (1 min)    {self.load[0]:.2f} at the start, {self.load[1]:.2f} at"
            " the end",
            f"  {'CPU seconds and memory during the run':44} CPU s  RSS MiB",
        ]
        for name, usage in self.usage.items():
            if name in (OTHERS, STOLEN):
                lines.append(f"    {name:42} {usage.cpu_seconds:5.1f}")
                continue
            label = f"{name} ({usage.processes} process{'es' if usage.processes != 1 else ''})"
            lines.append(f"    {label:42} {usage.cpu_seconds:5.1f}  {usage.rss_mib:7.0f}")
        return "\n".join(lines)


def run(
    nodes: int = DEFAULT_NODES,
    pods: int = DEFAULT_PODS,
    timeout: float = 600.0,
    say: Callable[[str], None] = lambda _: None,
    watch: str = NOBODY,
) -> Result:
    """Runs the benchmark once; ``say`` hears what is being done (setting up takes a while);
    ``watch`` is who watches the live trace meanwhile (``WATCHES``)."""
    if nodes < 1 or pods < 1:
        raise ValueError(f"nodes and pods must be at least 1 (got {nodes} and {pods})")
    if watch not in WATCHES:
        raise ValueError(f"watch must be one of {', '.join(WATCHES)} (got {watch!r})")
    database_url, redis_url = production_backends(os.environ)
    with (
        throwaway_backends(database_url, redis_url, "e2e") as (url, prefix),
        _terminated_as_interrupt(),
    ):
        env = _environment(url, redis_url, prefix, _free_port())
        say(f"migrating {_database_name(url)}")
        password = _migrate_and_add_user(env)
        say("starting " + ", ".join(PROCESSES))
        with procfile_processes(PROCESSES, env) as processes:
            browser = Browser(f"http://127.0.0.1:{env['PORT']}")
            _wait(browser.answers, "the web process answers", processes)
            browser.login(USERNAME, password)
            slug = _create_workspace(browser, nodes)
            say(f"importing {nodes} nodes into workspace {slug}")
            for start in range(0, nodes, NODES_PER_IMPORT):
                text = nodes_yaml(min(NODES_PER_IMPORT, nodes - start), first=start)
                browser.post(f"/w/{slug}/import/", {"text": text})
            _wait(_workers_answer(redis_url, prefix), "the Celery workers answer", processes)
            with psycopg.connect(_libpq(url), autocommit=True) as db:
                bench = _Bench(browser, db, slug, processes)
                _wait(bench.service_ready, "the scheduler runs", processes)
                with LiveStream(browser, slug) as live:
                    say(f"creating {pods} pods, {_watching(watch, pods)} watching")
                    return bench.measure(live, pods, timeout, watch)
    raise AssertionError("unreachable")  # pragma: no cover - the with block returns


@dataclass
class _Bench:
    """A workspace ready to measure: the logged-in browser, the database, the processes."""

    browser: Browser
    db: psycopg.Connection
    slug: str
    processes: dict[str, Process]

    def __post_init__(self) -> None:
        self.workspace = self._one("SELECT id FROM workspaces_workspace WHERE slug = %s", self.slug)

    def measure(self, live: LiveStream, pods: int, timeout: float, watch: str = NOBODY) -> Result:
        """Creates the pods as the bulk page does and waits until all are bound, everywhere;
        ``watch`` opens a page watching the live trace (``WATCHES``) meanwhile."""
        with ExitStack() as pages:
            watcher: tuple[LiveWatcher, Watch] | None = None
            if watch == WORKSPACE:
                page = LiveWatcher.debugger_page(self.browser, self.slug)
                watcher = self._open(pages, page, WORKSPACE, "")
                _await_followed(page)  # the run is watched from its first pod
            watched = watched_pod(pods)
            meters = self._meters()
            before = {name: meter() for name, meter in meters.items()}
            load = os.getloadavg()[0]
            start = time.monotonic()
            if watcher is not None:
                watcher[1].opened -= start
            for done in range(0, pods, CHUNK):
                if watch == POD and done <= watched < done + CHUNK:
                    watcher = self._create_watched(pages, done, watched, min(done + CHUNK, pods))
                    watcher[1].opened -= start
                else:
                    self._create(done, min(done + CHUNK, pods))
            bound = self._await_bound(pods, start + timeout)
            database_done = time.monotonic()
            live_done = live.time_of(pods, start + timeout)
            if live_done is None:
                raise TimeoutError(f"the live board showed {live.bound} bound pods, not {pods}")
            after = {name: meter() for name, meter in meters.items()}
            return Result(
                nodes=self._count("kind = 'Node'"),
                pods=pods,
                bound=bound,
                database=self.db.info.dbname,
                seconds=max(database_done, live_done) - start,
                database_seconds=database_done - start,
                live_seconds=live_done - start,
                latencies=self._latencies(),
                usage=_spent(before, after),
                watch=_received(watcher),
                load=(load, os.getloadavg()[0]),
            )

    def _create(self, first: int, end: int, template: dict[str, Any] | None = None) -> None:
        """Pods ``first`` to ``end - 1`` in one request of the bulk form (which numbers them on
        from the highest existing ``{name}-{i}``, and creates ``count - done`` at most)."""
        text = yaml.safe_dump(template or pod_template())
        fields = {"template": text, "count": end, "done": first}
        self.browser.post(f"/w/{self.slug}/bulk/", fields, htmx=True)

    def _create_watched(
        self, pages: ExitStack, first: int, watched: int, end: int
    ) -> tuple[LiveWatcher, Watch]:
        """Creates pods ``first`` to ``end - 1`` with the watched one gated (a scheduling gate
        keeps it out of the active queue), opens its page, and lifts the gate once the service
        said it follows the page's watch. Without the gate the scheduler could reach the pod
        before that whenever it keeps up with the creation, and the page would get no live
        event: the run would measure nothing. The one pod's wait is part of its latency."""
        self._create(first, watched)
        gated = pod_template()
        gated["spec"]["schedulingGates"] = [{"name": WATCH_GATE}]
        self._create(watched, watched + 1, gated)
        watcher = self._open_pod_page(pages, watched)
        self._create(watched + 1, end)
        _await_followed(watcher[0])
        self._ungate(watched)
        return watcher

    def _ungate(self, index: int) -> None:
        """Lifts the watched pod's gate with the object editor, as a person would."""
        pk, manifest = self._pod_row(index, "id, manifest")
        del manifest["spec"]["schedulingGates"]
        # A refused edit answers 422, which the browser raises as a BrowserError.
        self.browser.post(f"/w/{self.slug}/objects/{pk}/", {"text": yaml.safe_dump(manifest)})

    def _open_pod_page(self, pages: ExitStack, index: int) -> tuple[LiveWatcher, Watch]:
        """Opens the page of the pod the bulk form named ``{name}-{index}``: it exists now."""
        uid, manifest = self._pod_row(index, "uid, manifest")
        metadata = manifest["metadata"]
        page = LiveWatcher.pod_page(self.browser, self.slug, uid)
        return self._open(pages, page, POD, f"{metadata['namespace']}/{metadata['name']}")

    def _pod_row(self, index: int, columns: str) -> tuple[Any, ...]:
        metadata = pod_template()["metadata"]
        row = self.db.execute(
            f"SELECT {columns} FROM workspaces_clusterobject WHERE workspace_id = %s "
            "AND kind = 'Pod' AND namespace = %s AND name = %s",
            [self.workspace, metadata["namespace"], f"{metadata['name']}-{index}"],
        ).fetchone()
        if row is None:
            raise BrowserError(f"the bulk form created no pod {metadata['name']}-{index}")
        return tuple(row)

    def _open(
        self, pages: ExitStack, page: LiveWatcher, kind: str, pod: str
    ) -> tuple[LiveWatcher, Watch]:
        """Connects the page (closed when ``pages`` ends) and checks that its socket registered
        its watch: it does so before it sends its first state, which ``enter_context`` waits
        for."""
        pages.enter_context(page)
        opened = time.monotonic()
        registered = self._one(
            "SELECT count(*) FROM workspaces_livewatch "
            "WHERE workspace_id = %s AND pod = %s AND expires > now()",
            self.workspace,
            pod,
        )
        if not registered:
            raise BrowserError(f"the websocket {page.path} registered no live watch")
        return page, Watch(kind, pod, opened, registered, 0, 0, 0)

    def service_ready(self) -> bool:
        """The service holds the lease and has published its first status (it has built its
        scheduler from the nodes)."""
        row = self.db.execute(
            "SELECT l.holder, l.expires_at > now(), s.id IS NOT NULL "
            "FROM workspaces_schedulerlease l "
            "LEFT JOIN workspaces_schedulerstatus s ON s.workspace_id = l.workspace_id "
            "WHERE l.workspace_id = %s",
            [self.workspace],
        ).fetchone()
        if row is None:
            return False
        holder, live, published = row
        return bool(holder) and not holder.startswith("starting:") and live and published

    def _await_bound(self, pods: int, deadline: float) -> int:
        bound = 0

        def all_bound() -> bool:
            nonlocal bound
            bound = self._count("kind = 'Pod' AND node_name <> ''")
            return bound >= pods

        _wait(all_bound, f"{pods} pods are bound", self.processes, deadline, lambda: f"{bound} are")
        return bound

    def _latencies(self) -> list[float]:
        """Creation to binding per bound pod: ``updated`` is set by the bind, its last write."""
        rows = self.db.execute(
            "SELECT extract(epoch FROM updated - created) FROM workspaces_clusterobject "
            "WHERE workspace_id = %s AND kind = 'Pod' AND node_name <> ''",
            [self.workspace],
        ).fetchall()
        return sorted(float(seconds) for (seconds,) in rows)

    def _count(self, where: str) -> int:
        sql = f"SELECT count(*) FROM workspaces_clusterobject WHERE workspace_id = %s AND {where}"
        return self._one(sql, self.workspace)

    def _one(self, sql: str, *args: Any) -> Any:
        row = self.db.execute(sql, list(args)).fetchone()
        if row is None:
            raise BrowserError(f"nothing in the database for {sql} {args}")
        return row[0]

    def _meters(self) -> dict[str, Callable[[], Usage]]:
        meters = {name: _tree(process) for name, process in self.processes.items()}
        database = self.db.info.dbname
        meters["postgres (this database)"] = lambda: matching_usage(["postgres:", f" {database} "])
        meters["redis-server"] = lambda: matching_usage(["redis-server"])
        meters[MACHINE] = machine_usage
        meters[STOLEN] = stolen_usage
        return meters


def watched_pod(pods: int) -> int:
    """The index of the pod a ``pod`` watch follows: the last one the request that creates the
    middle pod creates. The scheduler reaches it last of that request's pods, which leaves the
    most time for its page to open and for the service to read the new watch (once a second)
    before its cycle starts."""
    middle = pods // 2
    return min(pods, (middle // CHUNK + 1) * CHUNK) - 1


def _watching(watch: str, pods: int) -> str:
    if watch == POD:
        return f"the page of pod {pod_template()['metadata']['name']}-{watched_pod(pods)}"
    return "the debugger page" if watch == WORKSPACE else NOBODY


def _await_followed(page: LiveWatcher) -> None:
    if not page.wait_followed(FOLLOWED_SECONDS):
        raise BrowserError(f"the scheduler did not follow {page.path} in {FOLLOWED_SECONDS} s")


def _received(watcher: tuple[LiveWatcher, Watch] | None) -> Watch | None:
    """What the watching page received by now."""
    if watcher is None:
        return None
    page, watch = watcher
    watch.messages, watch.live, watch.live_pods = page.messages, page.live, len(page.live_pods)
    watch.followed = page.followed
    return watch


def _spent(before: dict[str, Usage], after: dict[str, Usage]) -> dict[str, Usage]:
    """What each group spent; the machine's busy time less theirs is everything else's."""
    usage = {name: after[name] - before[name] for name in before}
    machine = usage.pop(MACHINE)
    stolen = usage.pop(STOLEN)
    ours = sum(u.cpu_seconds for u in usage.values())
    usage[OTHERS] = Usage(0, machine.cpu_seconds - ours, 0.0)
    usage[STOLEN] = stolen
    return usage


# ----------------------------------------------------------------------------------------------
# What the workspace holds


def nodes_yaml(count: int, first: int = 0) -> str:
    """``count`` nodes over the demo's zones, in its sizes, numbered from ``first``; every
    fourth has the nginx image."""
    manifests = [demo.namespace("default")]
    for index in range(first, first + count):
        zone = demo.ZONES[index % len(demo.ZONES)]
        size = SIZES[index // len(demo.ZONES) % len(SIZES)]
        name = f"{zone[-1]}-{size}-{index}"
        manifests.append(demo.node(name, zone, size, images=index % 4 == 0))
    return yaml.safe_dump_all(manifests, sort_keys=False)


def pod_template() -> dict[str, Any]:
    """What the bulk form copies: a small web pod, named ``bench-<i>``."""
    manifest = demo.pod("bench", "default", cpu="250m", memory="256Mi", labels={"app": "bench"})
    del manifest["spec"]["priorityClassName"]
    return manifest


def _create_workspace(browser: Browser, nodes: int) -> str:
    url, _ = browser.post("/w/", {"name": f"Benchmark {nodes} nodes", "description": ""})
    parts = urlsplit(url).path.strip("/").split("/")
    if len(parts) != 2 or parts[0] != "w":
        raise BrowserError(f"creating the workspace ended at {url}, not at its page")
    return parts[1]


# ----------------------------------------------------------------------------------------------
# The database and Redis


def production_backends(environ: Mapping[str, str]) -> tuple[str, str]:
    """(DATABASE_URL, REDIS_URL); NotProductionMode names the variable missing or wrong."""
    urls = []
    for variable, schemes, what in (
        ("DATABASE_URL", ("postgres", "postgresql"), "PostgreSQL"),
        ("REDIS_URL", ("redis", "rediss"), "Redis"),
    ):
        url = environ.get(variable, "")
        if not url:
            problem = f"{variable} is not set"
        elif urlsplit(url).scheme not in schemes:
            problem = f"{variable} is not a {what} URL: {url}"
        else:
            urls.append(url)
            continue
        raise NotProductionMode(
            f"{problem}: this benchmark runs in production mode, on PostgreSQL and "
            "Redis (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/playground "
            "REDIS_URL=redis://127.0.0.1:6379/0)"
        )
    return urls[0], urls[1]


@contextmanager
def throwaway_backends(database_url: str, redis_url: str, name: str) -> Iterator[tuple[str, str]]:
    """A throwaway database (``throwaway_database``) and a Redis key prefix forgotten on the
    way out, both named after ``name`` and a random token; yields (database URL, prefix)."""
    token = secrets.token_hex(4)
    prefix = f"{name}-{token}:"
    with (
        throwaway_database(database_url, f"{name}_{token}") as url,
        forgotten_keys(redis_url, prefix),
    ):
        yield url, prefix


@contextmanager
def throwaway_database(database_url: str, suffix: str) -> Iterator[str]:
    """A new database named after DATABASE_URL's plus ``_<suffix>``, dropped on the way out;
    yields its URL."""
    name = throwaway_database_name(database_url, suffix)
    url = _with_database(database_url, name)
    with psycopg.connect(_libpq(_with_database(database_url, "postgres")), autocommit=True) as pg:
        pg.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url
    finally:
        with psycopg.connect(
            _libpq(_with_database(database_url, "postgres")), autocommit=True
        ) as pg:
            pg.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def forgotten_keys(redis_url: str, prefix: str) -> Iterator[None]:
    """Deletes every Redis key under ``prefix`` on the way out."""
    try:
        yield
    finally:
        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


def throwaway_database_name(database_url: str, suffix: str) -> str:
    """The name ``throwaway_database`` gives its database (a prefix, for a partial suffix)."""
    return f"{_database_name(database_url) or 'playground'}_{suffix}"


def _database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def _libpq(url: str) -> str:
    """psycopg wants ``postgresql://``; Django's settings accept ``postgres://`` too."""
    parts = urlsplit(url)
    return urlunsplit(("postgresql", parts.netloc, parts.path, parts.query, parts.fragment))


# ----------------------------------------------------------------------------------------------
# Processes


def _environment(database_url: str, redis_url: str, prefix: str, port: int) -> dict[str, str]:
    """Production settings (docs/playground.md) for this run's database, key prefix and port."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "REDIS_KEY_PREFIX": prefix,
        "DEBUG": "False",
        "SECRET_KEY": secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CSRF_TRUSTED_ORIGINS": f"http://127.0.0.1:{port}",
        "PORT": str(port),
        "PYTHONUNBUFFERED": "1",
    }


def _migrate_and_add_user(env: Mapping[str, str]) -> str:
    """Migrates the new database and adds the user who runs the benchmark; their password."""
    _manage(env, "migrate", "--noinput")
    password = secrets.token_urlsafe(16)
    user = ["--username", USERNAME, "--email", f"{USERNAME}@example.com"]
    _manage({**env, "DJANGO_SUPERUSER_PASSWORD": password}, "createsuperuser", "--noinput", *user)
    return password


def _manage(env: Mapping[str, str], *args: str) -> None:
    command = [sys.executable, "manage.py", *args]
    done = subprocess.run(command, cwd=ROOT, env=dict(env), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")


def _workers_answer(
    redis_url: str, prefix: str, workers: Collection[str] = ("scheduler", "binding")
) -> Callable[[], bool]:
    """Whether every one of ``workers`` (node names before the ``@``: by default a scheduler
    worker and a binding worker) answers a ping on this run's broker."""
    app = Celery("benchmark", broker=redis_url, set_as_current=False)
    app.conf.broker_transport_options = {"global_keyprefix": prefix}

    def answer() -> bool:
        names = {name for reply in app.control.ping(timeout=0.5) or [] for name in reply}
        return {name.split("@")[0] for name in names} >= set(workers)

    return answer


def _tree(process: Process) -> Callable[[], Usage]:
    return lambda: process_tree_usage(process.pid)


def _wait(
    condition: Callable[[], bool],
    what: str,
    processes: dict[str, Process],
    deadline: float | None = None,
    progress: Callable[[], str] = lambda: "",
) -> None:
    """Polls ``condition`` until it holds; fails at the deadline or when a process died."""
    deadline = deadline if deadline is not None else time.monotonic() + START_SECONDS
    while not condition():
        for process in processes.values():
            process.check_alive()
        if time.monotonic() > deadline:
            detail = f": {progress()}" if progress() else ""
            raise TimeoutError(f"timed out waiting until {what}{detail}")
        time.sleep(POLL_SECONDS)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C, so the processes and the database are cleaned up."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
