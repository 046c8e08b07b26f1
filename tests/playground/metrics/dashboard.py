"""The Grafana dashboard in docs/grafana, read as Grafana reads it.

``targets()`` lists every query of every panel with the row it sits in; ``as_grafana_sends``
substitutes the template variables the way Grafana does before it asks Prometheus (an "All"
selection becomes the variable's ``allValue``, a multi-value one a regex alternation);
``metric_names`` tells which metric families a query reads. Both dashboard tests use them: the
fast one against the fixture and the exported families, the kube one against a real Prometheus.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
DASHBOARD = ROOT / "docs" / "grafana" / "scheduler-dashboard.json"
METRICS_DOC = ROOT / "docs" / "metrics.md"
PLAYGROUND_ROW = "Playground"
"""The row of the playground's own metrics, empty on kube-scheduler's job."""
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
GRAFANA_VARIABLES = {"__rate_interval", "__interval", "__range"}
"""Variables Grafana itself defines; the dashboard's own are in ``templating``."""

_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")
_METRIC = re.compile(r"\b((?:scheduler|playground)_[a-z_]+)\b")


@dataclass(frozen=True)
class Target:
    """One query of one panel."""

    row: str
    panel: str
    expr: str

    def __str__(self) -> str:
        return f"{self.row} / {self.panel}: {self.expr}"


def load() -> dict[str, Any]:
    return json.loads(DASHBOARD.read_text())


def targets(dashboard: dict[str, Any]) -> list[Target]:
    """Every panel query, in the dashboard's order; a panel belongs to the row above it."""
    found = []
    row = ""
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            row = panel["title"]
            continue
        found.extend(Target(row, panel["title"], target["expr"]) for target in panel["targets"])
    return found


def variables(dashboard: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {variable["name"]: variable for variable in dashboard["templating"]["list"]}


def referenced_variables(text: str) -> set[str]:
    """Names of the ``$name`` and ``${name}`` references in a query or a variable's query."""
    return {braced or bare for braced, bare in _VARIABLE.findall(text)}


def as_grafana_sends(expr: str, values: dict[str, str]) -> str:
    """``expr`` with each variable replaced by its value in ``values`` (a KeyError names a
    variable without one)."""
    return _VARIABLE.sub(lambda match: values[match.group(1) or match.group(2)], expr)


def selection(values: list[str]) -> str:
    """A multi-value selection as Grafana writes it into a Prometheus regex matcher."""
    escaped = [re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\\\1", value) for value in values]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"


def metric_names(expr: str) -> set[str]:
    """The metric families a query reads: a histogram's series name it by its family."""
    names = set()
    for name in _METRIC.findall(expr):
        for suffix in HISTOGRAM_SUFFIXES:
            if name.endswith(suffix):
                name = name.removesuffix(suffix)
                break
        names.add(name)
    return names


def scrape_config_in_docs() -> str:
    """The Prometheus configuration shown in docs/metrics.md (its YAML block)."""
    blocks = re.findall(r"```yaml\n(.*?)```", METRICS_DOC.read_text(), re.S)
    configs = [block for block in blocks if "scrape_configs:" in block]
    assert len(configs) == 1, "docs/metrics.md should show one Prometheus configuration"
    return configs[0]
