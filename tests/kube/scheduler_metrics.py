"""kube-scheduler's own /metrics, read from the real binary, beside the playground's families.

``metric_families(text)`` reads an exposition into ``{name: {"type", "help", "labels"}}`` (the
name as exposed, ``..._total`` for counters; ``labels`` the sorted label names of its samples,
without ``le``); ``playground_families()`` gives the same for the families the playground
exports, without its added ``workspace`` label. ``FIXTURE`` holds kube-scheduler v1.36.2's, as
``test_scheduler_metrics.py`` recorded them (``PLAYGROUND_RECORD_KUBE_METRICS=1``).
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from kubernetes.dynamic.exceptions import ForbiddenError
from prometheus_client.parser import text_string_to_metric_families

from playground.metrics.families import SCHEDULER, WORKSPACE
from tests.kube.control_plane import ASSETS_ENV, stop_process

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "kube-scheduler-v1.36.2-metrics.json"
PREFIX = "scheduler_"


def metric_families(text: str) -> dict[str, dict[str, Any]]:
    """The ``scheduler_`` families of an exposition: type, help, label names."""
    out: dict[str, dict[str, Any]] = {}
    for family in text_string_to_metric_families(text):
        name = f"{family.name}_total" if family.type == "counter" else family.name
        if not name.startswith(PREFIX):
            continue
        labels = {label for sample in family.samples for label in sample.labels} - {"le"}
        out[name] = {"type": family.type, "help": family.documentation, "labels": sorted(labels)}
    return out


def playground_families() -> dict[str, dict[str, Any]]:
    """The scheduler families the playground exports, as ``metric_families`` reads them."""
    return {
        name: {
            "type": family._type,
            "help": family._documentation,
            "labels": sorted(set(family._labelnames) - {WORKSPACE}),
        }
        for name, family in SCHEDULER.items()
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_kube_scheduler(kubeconfig: dict[str, Any], folder: Path) -> Iterator[int]:
    """The real kube-scheduler (KUBEBUILDER_ASSETS) on the control plane ``kubeconfig`` names,
    once its /metrics answers; yields that port and stops it on the way out. Its kubeconfig
    and log are written in ``folder``."""
    config = folder / "kubeconfig"
    config.write_text(yaml.safe_dump(kubeconfig))
    port = free_port()
    binary = Path(os.environ[ASSETS_ENV]) / "kube-scheduler"
    process = start_kube_scheduler(binary, config, port, folder / "kube-scheduler.log")
    try:
        wait_for_scrape(port, process)
        yield port
    finally:
        stop_process(process)


def start_kube_scheduler(binary: Path, kubeconfig: Path, port: int, log: Path) -> subprocess.Popen:
    """kube-scheduler against the test control plane, its /metrics open to anonymous reads."""
    args = [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        f"--secure-port={port}",
        "--bind-address=127.0.0.1",
        "--authorization-always-allow-paths=/metrics,/healthz,/readyz,/livez",
        "--leader-elect=false",
    ]
    with log.open("w") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)


def scrape(port: int, timeout: float = 5.0) -> str:
    """GET https://127.0.0.1:port/metrics (kube-scheduler's self-signed serving certificate)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with urllib.request.urlopen(
        f"https://127.0.0.1:{port}/metrics", context=context, timeout=timeout
    ) as response:
        return response.read().decode()


def wait_for_scrape(port: int, process: subprocess.Popen, seconds: float = 60.0) -> str:
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise AssertionError(f"kube-scheduler exited with {process.returncode}")
        try:
            return scrape(port)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def load_fixture() -> dict[str, dict[str, Any]]:
    return json.loads(FIXTURE.read_text())


def write_fixture(families: dict[str, dict[str, Any]]) -> None:
    FIXTURE.write_text(json.dumps(families, indent=2, sort_keys=True) + "\n")


def pod(name: str, cpu: str, priority_class: str = "") -> dict:
    spec: dict = {
        "containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}]
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def create_when_admitted(api, manifest: dict, seconds: float = 30.0) -> None:
    """The priority admission plugin sees a new PriorityClass a moment after it is made."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            api.create(manifest)
            return
        except ForbiddenError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
