"""Every panel of the Grafana dashboard in docs/grafana shows data for kube-scheduler and for
the playground alike, asked of a real Prometheus as Grafana asks it.

Prometheus (Debian's package, 2.42 on bookworm) scrapes the real kube-scheduler v1.36.2 on the
test control plane (KUBEBUILDER_ASSETS) and a live playground's /metrics with its
METRICS_TOKEN, both with the scrape configuration docs/metrics.md shows (targets, and
kube-scheduler's credentials, made local). Both schedulers get the same pods in waves: small
pods that fit, one that fits nowhere and one that the playground's profile holds at Permit
until it times out, twice (a series' first value is where Prometheus starts its rate, so the
second wave is what the panels' rates show); then, twice, one of higher priority that
preempts small ones. A websocket follows the workspace's live stream, and a second workspace
mirrors the control plane, throughout. Then each
panel query, its variables substituted as Grafana would, must answer for each job, with
numbers that fit what happened.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import websocket
import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from playground.clusters.encryption import KEY_ENV, KEY_FILE_ENV, generate_key
from playground.clusters.mirroring import start_mirroring
from playground.clusters.models import ClusterConnection
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, Workspace
from tests.browser.server import PlaygroundServer
from tests.kube.control_plane import ASSETS_ENV
from tests.kube.fixtures import ControlPlaneKubeApi
from tests.kube.prometheus import PROMETHEUS, Prometheus, Sample
from tests.kube.scheduler_metrics import (
    create_when_admitted,
    free_port,
    pod,
    running_kube_scheduler,
)
from tests.playground.metrics import dashboard
from tests.playground.metrics.dashboard import PLAYGROUND_ROW, Target

for missing, why in [
    (not os.getenv(ASSETS_ENV), f"{ASSETS_ENV} is not set"),
    (not PROMETHEUS, "prometheus is not installed (scripts/test installs Debian's package)"),
]:
    if missing:
        if os.getenv("CI") == "true":
            raise RuntimeError(f"CI=true needs the Grafana dashboard test to run, but {why}")
        pytest.skip(why, allow_module_level=True)

pytestmark = pytest.mark.django_db(transaction=True)

KUBE_JOB = "kube-scheduler"
PLAYGROUND_JOB = "scheduler-playground"
JOBS = (KUBE_JOB, PLAYGROUND_JOB)
TOKEN = "grafana-scrape-token"
SMALL_PODS = 30
"""Per wave: with 60 cycles, upstream's 1-in-10 sampling of plugin durations shows."""
RATE_INTERVAL = "15m"
"""What ``$__rate_interval`` stands for: longer than the test, so the rates span every wave."""
DEADLINE_SECONDS = 120.0
HELD = {"permit": "hold"}
PLAYGROUND_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    permit:
      enabled: [{name: LabelSelectorPermit}]
  pluginConfig:
  - name: LabelSelectorPermit
    args: {selector: {matchLabels: {permit: hold}}, timeoutSeconds: 1}
"""
"""The default profile, plus a Permit plugin that holds the pod labelled permit=hold for 1 s."""
COUNTS = {
    "scheduled": 'sum by (job) (scheduler_schedule_attempts_total{result="scheduled"})',
    "stuck": 'sum by (job) (scheduler_pending_pods{queue="unschedulable"})',
    "preemptions": "sum by (job) (scheduler_preemption_victims_count)",
}
"""What ``wait_for_every_job`` waits for, by job: attempts that scheduled a pod, pods left in
the unschedulable queue, preemptions that chose victims."""
NO_DATA = {
    ("Permit wait p99 by result", KUBE_JOB): "none of its default plugins makes a pod wait",
}
"""Panels with nothing to show for a job in this test, and why; the playground row shows
nothing for kube-scheduler's job anyway."""


class BothSchedulers:
    """The same objects, written to the control plane (kube-scheduler) and the workspace."""

    def __init__(self, api: ControlPlaneKubeApi, workspace: Workspace) -> None:
        self.api = api
        self.workspace = workspace
        self.cluster = DatabaseCluster(workspace)

    def add(self, manifest: dict) -> None:
        create_when_admitted(self.api, copy.deepcopy(manifest))
        playground = copy.deepcopy(manifest)
        if manifest["kind"] == "Pod":
            playground["metadata"]["namespace"] = "default"
        self.cluster.add(playground)


@pytest.fixture
def api(kube_control_plane) -> Iterator[ControlPlaneKubeApi]:
    api = ControlPlaneKubeApi(kube_control_plane)
    yield api
    api.close()


@pytest.fixture
def workspace(transactional_db) -> Workspace:
    owner = get_user_model().objects.create_user("grafana")
    workspace = Workspace.objects.create(name="Grafana", slug="grafana", owner=owner)
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text=PLAYGROUND_PROFILE)
    return workspace


@pytest.fixture
def mirror(api, workspace, monkeypatch) -> Workspace:
    """A second workspace, mirroring the control plane, so that the mirror panels have data;
    the playground's watchdog starts the mirror."""
    monkeypatch.setenv(KEY_ENV, generate_key())  # the server gets it too (``playground``)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    connection = ClusterConnection(name="lab", owner=workspace.owner, server=api.url)
    connection.set_kubeconfig(api.kubeconfig_text())
    connection.save()
    return start_mirroring(connection, "Lab mirror")


@pytest.fixture
def kube_scheduler(api, tmp_path: Path) -> Iterator[int]:
    with running_kube_scheduler(api.raw, tmp_path) as port:
        yield port


@pytest.fixture
def playground(workspace, mirror, tmp_path: Path) -> Iterator[PlaygroundServer]:
    env = {
        "METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "multiproc"),
        KEY_ENV: os.environ[KEY_ENV],
    }
    server = PlaygroundServer(connection.settings_dict, tmp_path, env).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def follower(workspace, playground) -> Iterator[websocket.WebSocket]:
    """A browser's websocket on the workspace's live stream, logged in as its owner."""
    client = Client()
    client.force_login(workspace.owner)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    socket = websocket.create_connection(
        f"ws://{playground.address()}/ws/w/{workspace.slug}/",
        cookie=f"{settings.SESSION_COOKIE_NAME}={session}",
        origin=playground.url,
        timeout=10,
    )
    try:
        socket.recv()  # the stream's first fragments: the consumer has counted this client
        yield socket
    finally:
        socket.close()


@pytest.fixture
def prometheus(kube_scheduler, playground, tmp_path: Path) -> Iterator[Prometheus]:
    directory = tmp_path / "prometheus"
    directory.mkdir()
    config = scrape_config(directory, kube_scheduler, playground.address())
    server = Prometheus(config, directory, free_port()).start()
    try:
        wait_for(lambda: targets_up(server), "Prometheus could not scrape both", server)
        wait_for(lambda: mirrored(server), "the mirror's first sync", server)
        yield server
    finally:
        server.stop()


def scrape_config(directory: Path, kube_scheduler: int, playground: str) -> dict:
    """docs/metrics.md's configuration, pointed at this test's servers, scraping each second.

    The playground is served over plain HTTP here; kube-scheduler lets anyone read its
    /metrics (``--authorization-always-allow-paths``), so no credentials go to it."""
    config = yaml.safe_load(dashboard.scrape_config_in_docs())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == set(JOBS), set(jobs)
    token = directory / "playground-token"
    token.write_text(TOKEN)
    jobs[PLAYGROUND_JOB].update(scheme="http", static_configs=[{"targets": [playground]}])
    jobs[PLAYGROUND_JOB]["authorization"]["credentials_file"] = str(token)
    jobs[KUBE_JOB].pop("authorization")
    jobs[KUBE_JOB]["static_configs"] = [{"targets": [f"127.0.0.1:{kube_scheduler}"]}]
    config["global"] = {"scrape_interval": "1s", "scrape_timeout": "1s"}
    return config


def test_every_panel_shows_kube_scheduler_and_the_playground(api, workspace, prometheus, follower):
    both = BothSchedulers(api, workspace)
    both.add(node(f"{api.namespace}-n1"))
    high = f"{api.namespace}-high"
    both.add({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
              "metadata": {"name": high}, "value": 1000})  # fmt: skip
    for wave in (1, 2):
        for index in range(SMALL_PODS):
            both.add(pod(f"small-{wave}-{index}", "50m"))
        both.add(pod(f"too-big-{wave}", "16"))  # fits nowhere; preemption finds no victims
        held = pod(f"held-{wave}", "50m")
        held["metadata"]["labels"] = HELD
        both.add(held)  # the playground's Permit holds it, kube-scheduler binds it
        wait_for_every_job(prometheus, f"wave {wave}", scheduled=wave * SMALL_PODS, stuck=wave)
        wait_for(lambda w=wave: permit_waits(prometheus) >= w, f"wave {wave}'s wait", prometheus)
    # 3 of 4 CPUs are taken (3.1 on kube-scheduler, which binds the held pods): the first
    # preempts a third of the small pods, the second the rest.
    for preemptions in (1, 2):
        both.add(pod(f"vip-{preemptions}", "2", high))
        wait_for_every_job(prometheus, f"preemption {preemptions}", preemptions=preemptions)
    # Without a kubelet, kube-scheduler's victims stay terminating and its vips wait for them.
    wait_for_every_job(prometheus, "the last attempts", scheduled=2 * SMALL_PODS, stuck=2)

    for job in JOBS:
        for target in dashboard.targets(dashboard.load()):
            samples = prometheus.query(as_grafana_sends(target, job))
            if not has_data(target, job):
                assert not samples, (job, str(target), samples)
                continue
            assert samples, f"{job}: no data for {target}"
            assert all(sample.labels.get("job") == job for sample in samples), (job, target)
            check_plausible(target, job, samples)
    check_variables(prometheus, workspace)


def check_variables(prometheus: Prometheus, workspace: Workspace) -> None:
    """What the job, workspace and profile lists offer, and a workspace's choice."""
    variables = dashboard.variables(dashboard.load())

    def offered(name: str, **values: str) -> list[str]:
        match = variables[name]["definition"].removeprefix("label_values(").rsplit(",", 1)[0]
        return prometheus.label_values(name, dashboard.as_grafana_sends(match, values))

    assert set(offered("job")) == set(JOBS)
    assert str(workspace.pk) in offered("workspace", job=".*")  # and the mirror's
    assert offered("workspace", job=KUBE_JOB) == []  # "All" (.*) still matches its series
    assert offered("profile", job=".*", workspace=".*") == ["default-scheduler"]
    attempts = dashboard.targets(dashboard.load())[0]
    values = {"job": ".*", "workspace": str(workspace.pk), "profile": ".*"}
    only_ours = dashboard.as_grafana_sends(attempts.expr, values | {"__rate_interval": "5m"})
    assert {sample.labels["job"] for sample in prometheus.query(only_ours)} == {PLAYGROUND_JOB}


def has_data(target: Target, job: str) -> bool:
    if target.row == PLAYGROUND_ROW and job == KUBE_JOB:
        return False
    return (target.panel, job) not in NO_DATA


def as_grafana_sends(target: Target, job: str) -> str:
    values = {
        "job": dashboard.selection([job]),
        "workspace": ".*",
        "profile": ".*",
        "__rate_interval": RATE_INTERVAL,
    }
    return dashboard.as_grafana_sends(target.expr, values)


def check_plausible(target: Target, job: str, samples: list[Sample]) -> None:
    """What each panel must show after the three waves (rates count the later waves)."""
    by = {frozenset(s.labels.items() - {("job", job)}): s.value for s in samples}
    where = f"{job}: {target}"

    def value(**labels: str) -> float:
        return by.get(frozenset(labels.items()), float("nan"))

    panel = target.panel
    if panel == "Scheduling attempts/s by result":
        assert value(result="scheduled") > 0, where
        assert value(result="unschedulable") > 0, where
    elif panel in ("Scheduling attempt latency", "Binding latency"):
        assert all(s.finite and 0 < s.value < 20 for s in samples), (where, samples)
    elif panel == "Pod scheduling SLI latency p99 by attempts":
        assert 0 < value(attempts="1") < 60, (where, samples)
    elif panel == "Pending pods by queue":
        assert value(queue="unschedulable") >= 2, (where, samples)
    elif panel == "Incoming pods/s by queue and event":
        assert value(queue="active", event="UnschedulablePodAdd") > 0, (where, samples)
        assert value(queue="unschedulable", event="ScheduleAttemptFailure") > 0, (where, samples)
    elif panel.startswith("Unschedulable pods by plugin"):
        assert value(plugin="NodeResourcesFit") >= 2, (where, samples)
    elif panel == "Extension point latency p99":
        for point in ("PreFilter", "Filter", "Reserve", "Permit", "Bind"):  # one node: no Score
            assert 0 < value(extension_point=point) < 20, (where, point, samples)
    elif panel.startswith("Plugin execution latency"):
        assert all(s.labels.get("plugin") and s.labels.get("extension_point") for s in samples)
    elif panel == "Preemption attempts/s and victims/s":
        assert all(s.value > 0 for s in samples), (where, samples)
    elif panel == "Victims per preemption":
        assert all(s.value >= 1 for s in samples), (where, samples)
    elif panel == "Mirror lag":
        assert all(0 <= s.value < 60 for s in samples), (where, samples)
    elif panel == "Mirror changes/s by kind":
        assert value(kind="Pod") > 0, (where, samples)
    elif panel == "Websocket clients by stream":
        assert value(stream="workspace") == 1, (where, samples)
    elif panel == "Permit wait p99 by result":
        assert 0.5 < value(result="Unschedulable") < 20, (where, samples)


def wait_for_every_job(prometheus: Prometheus, what: str, **at_least: int) -> None:
    """Until Prometheus has scraped, from every job, at least these counts (``COUNTS``)."""

    def counts() -> dict[str, dict[str, float]]:
        return {name: by_job(prometheus, COUNTS[name]) for name in at_least}

    def scraped() -> bool:
        return all(
            seen.get(job, 0) >= at_least[name] for name, seen in counts().items() for job in JOBS
        )

    wait_for(scraped, what, prometheus, lambda: f"wanted {at_least}, scraped {counts()}")


def permit_waits(prometheus: Prometheus) -> float:
    """Pods that waited at the playground's Permit (kube-scheduler's make none wait)."""
    waits = by_job(prometheus, "sum by (job) (scheduler_permit_wait_duration_seconds_count)")
    return waits.get(PLAYGROUND_JOB, 0)


def mirrored(prometheus: Prometheus) -> bool:
    return bool(prometheus.query("playground_mirror_changes_applied_total"))


def targets_up(prometheus: Prometheus) -> bool:
    return all(prometheus.targets_up().get(job, "").startswith("up") for job in JOBS)


def by_job(prometheus: Prometheus, expr: str) -> dict[str, float]:
    return {s.labels["job"]: s.value for s in prometheus.query(expr)}


def wait_for(
    condition: Callable[[], bool],
    what: str,
    prometheus: Prometheus,
    seen: Callable[[], str] = lambda: "",
) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            targets = prometheus.targets_up()
            raise AssertionError(f"{what}: not seen in time; {seen()}; targets {targets}")
        time.sleep(0.5)


def node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
