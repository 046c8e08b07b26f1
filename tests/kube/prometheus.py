"""A real Prometheus (Debian's ``prometheus`` package) for tests: started on a scrape
configuration, asked through its HTTP API as Grafana asks it.

``scripts/test`` installs the package when missing; ``PROMETHEUS`` is its binary or None.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.kube.control_plane import stop_process

PROMETHEUS = shutil.which("prometheus")
READY_SECONDS = 60.0


@dataclass(frozen=True)
class Sample:
    """One series of an instant query's answer."""

    labels: dict[str, str]
    value: float

    @property
    def finite(self) -> bool:
        return math.isfinite(self.value)


class Prometheus:
    """A Prometheus process scraping what ``config`` says, its data in ``directory``."""

    def __init__(self, config: dict[str, Any], directory: Path, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = directory / "prometheus.log"
        config_path = directory / "prometheus.yml"
        config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        self._args = [
            PROMETHEUS or "prometheus",
            f"--config.file={config_path}",
            f"--storage.tsdb.path={directory / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ]
        self._process: subprocess.Popen | None = None

    def start(self) -> Prometheus:
        with self.log_path.open("w") as log:
            self._process = subprocess.Popen(self._args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + READY_SECONDS
        while not self._ready():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"Prometheus did not get ready:\n{self.log_tail()}")
            time.sleep(0.2)
        return self

    def stop(self) -> None:
        if self._process is not None:
            stop_process(self._process)
            self._process = None

    def query(self, expr: str) -> list[Sample]:
        """``/api/v1/query`` at this moment; an error answer raises with Prometheus's words."""
        data = self._get("/api/v1/query", {"query": expr})
        assert data["resultType"] == "vector", (expr, data["resultType"])
        return [Sample(row["metric"], float(row["value"][1])) for row in data["result"]]

    def label_values(self, label: str, match: str) -> list[str]:
        """What Grafana's ``label_values(match, label)`` offers."""
        return self._get(f"/api/v1/label/{label}/values", {"match[]": match})

    def targets_up(self) -> dict[str, str]:
        """Each scrape job's health (``up``, ``down``, ``unknown``) and last error."""
        active = self._get("/api/v1/targets", {"state": "active"})["activeTargets"]
        return {t["labels"]["job"]: f"{t['health']} {t['lastError']}".strip() for t in active}

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def _get(self, path: str, params: dict[str, str]) -> Any:
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                answer = json.load(response)
        except urllib.error.HTTPError as err:
            answer = json.load(err)
        if answer["status"] != "success":
            raise AssertionError(f"{path} {params}: {answer.get('error')}")
        return answer["data"]

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False
