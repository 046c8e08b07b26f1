"""The Grafana dashboard in docs/grafana reads only metrics and labels kube-scheduler v1.36.2 has
(as recorded in tests/fixtures) and the playground exports, and every variable it uses is
defined; with Debian's promtool, its queries and the scrape configuration in docs/metrics.md
are valid. tests/kube/test_grafana_dashboard.py runs the queries on a real Prometheus."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from playground.metrics import families
from tests.kube.scheduler_metrics import load_fixture
from tests.playground.metrics import dashboard
from tests.playground.metrics.dashboard import PLAYGROUND_ROW

DASHBOARD = dashboard.load()
TARGETS = dashboard.targets(DASHBOARD)
VARIABLES = dashboard.variables(DASHBOARD)
RECORDED = load_fixture()
NOT_RECORDED = {
    "scheduler_permit_wait_duration_seconds": "observed only for pods that waited at Permit, "
    "and none of kube-scheduler's default plugins makes a pod wait",
}
"""kube-scheduler metrics the recorded run did not show, and why (upstream has them)."""
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not installed (Debian's prometheus package)"
)
_SELECTOR = re.compile(r"\{([^}]*)\}")
_MATCHER_LABEL = re.compile(r"(\w+)\s*(?:=~|!~|!=|=)")
_BY = re.compile(r"\bby\s*\(([^)]*)\)")


def exported() -> dict[str, set[str]]:
    """The playground's families by name as the dashboard names them, with their labels."""
    out = {}
    for family in [*families.SCHEDULER.values(), *_playground_families()]:
        name = f"{family._name}_total" if family._type == "counter" else family._name
        out[name] = set(family._labelnames)
    return out


def _playground_families() -> list:
    return [
        families.MIRROR_LAG_SECONDS,
        families.MIRROR_CHANGES_APPLIED,
        families.BINDING_DURATION_SECONDS,
        families.WEBSOCKET_CLIENTS,
    ]


def labels_used(expr: str) -> set[str]:
    """Label names in the query's matchers and ``by`` clauses."""
    names = set()
    for matchers in _SELECTOR.findall(expr):
        names.update(_MATCHER_LABEL.findall(matchers))
    for grouping in _BY.findall(expr):
        names.update(label.strip() for label in grouping.split(",") if label.strip())
    return names


def test_the_dashboard_is_for_current_grafana_with_a_prometheus_data_source_variable():
    assert DASHBOARD["schemaVersion"] >= 39
    source = VARIABLES["datasource"]
    assert (source["type"], source["query"]) == ("datasource", "prometheus")
    panels = [panel for panel in DASHBOARD["panels"] if panel["type"] != "row"]
    assert all(panel["datasource"]["uid"] == "${datasource}" for panel in panels)


@pytest.mark.parametrize("name", ["job", "workspace", "profile"])
def test_a_filter_variable_offers_all_which_matches_series_without_the_label(name):
    variable = VARIABLES[name]
    assert variable["type"] == "query"
    assert variable["includeAll"] is True
    assert variable["allValue"] == ".*"  # "" matches it: kube-scheduler has no workspace label
    assert variable["definition"].startswith("label_values(")
    assert variable["definition"].endswith(f", {name})")


def test_every_variable_a_query_uses_is_defined():
    defined = set(VARIABLES) | dashboard.GRAFANA_VARIABLES
    texts = [target.expr for target in TARGETS]
    texts += [variable["definition"] for variable in VARIABLES.values() if "definition" in variable]
    for text in texts:
        assert dashboard.referenced_variables(text) <= defined, text


def test_every_rate_uses_grafanas_rate_interval():
    for target in TARGETS:
        assert re.findall(r"\[([^\]]+)\]", target.expr) == (
            ["$__rate_interval"] * target.expr.count("rate(")
        ), target


def test_the_panels_issue_27_asks_for_are_there():
    panels = " | ".join(target.panel for target in TARGETS).lower()
    for words in [
        "attempts/s by result",
        "attempt latency",
        "sli latency p99 by attempts",
        "pending pods by queue",
        "incoming pods/s by queue and event",
        "unschedulable pods by plugin",
        "extension point latency p99",
        "plugin execution latency p99",
        "preemption attempts/s and victims",
        "permit wait",
        "mirror lag",
        "mirror changes/s by kind",
        "binding latency",
        "websocket clients",
    ]:
        assert words in panels, words


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_a_query_reads_metrics_and_labels_the_playground_exports(target):
    ours = exported()
    names = dashboard.metric_names(target.expr)
    assert names, target
    assert names <= set(ours), names - set(ours)
    labels = set().union(*(ours[name] for name in names)) | {"job", "le"}
    assert labels_used(target.expr) <= labels, labels_used(target.expr) - labels


@pytest.mark.parametrize("target", [t for t in TARGETS if t.row != PLAYGROUND_ROW], ids=str)
def test_outside_the_playground_row_a_query_reads_what_kube_scheduler_has(target):
    for name in dashboard.metric_names(target.expr):
        assert name.startswith("scheduler_"), name
        if name in NOT_RECORDED:
            continue
        assert name in RECORDED, name
        labels = set(RECORDED[name]["labels"]) | {"job", "le", families.WORKSPACE}
        assert labels_used(target.expr) <= labels, labels_used(target.expr) - labels


def test_the_playground_row_reads_only_the_playgrounds_own_metrics():
    row = [target for target in TARGETS if target.row == PLAYGROUND_ROW]
    assert row
    for target in row:
        assert all(name.startswith("playground_") for name in dashboard.metric_names(target.expr))


def test_grafana_substitutes_all_and_multi_value_selections_as_prometheus_regexes():
    expr = 'x{job=~"$job", workspace=~"${workspace}"}[$__rate_interval]'
    sent = dashboard.as_grafana_sends(
        expr,
        {"job": dashboard.selection(["a.b", "c"]), "workspace": ".*", "__rate_interval": "1m"},
    )
    assert sent == 'x{job=~"(a\\\\.b|c)", workspace=~".*"}[1m]'


@needs_promtool
def test_promtool_accepts_every_query_as_grafana_sends_it(tmp_path: Path):
    values = {name: ".*" for name in VARIABLES} | {"__rate_interval": "1m"}
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {
                        "record": f"dashboard:query{index}",
                        "expr": dashboard.as_grafana_sends(target.expr, values),
                    }
                    for index, target in enumerate(TARGETS)
                ],
            }
        ]
    }
    path = tmp_path / "rules.yml"
    path.write_text(yaml.safe_dump(rules))
    result = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(TARGETS)} rules found" in result.stdout


@needs_promtool
def test_promtool_accepts_the_scrape_configuration_in_the_docs(tmp_path: Path):
    """Its files must exist for promtool: the test puts them beside the configuration."""
    config = dashboard.scrape_config_in_docs()
    for path in sorted(set(re.findall(r"(?:credentials_file|ca_file): (/\S+)", config))):
        local = tmp_path / Path(path).name
        local.write_text("secret\n")
        config = config.replace(path, str(local))
    path = tmp_path / "prometheus.yml"
    path.write_text(config)
    result = subprocess.run(
        [PROMTOOL, "check", "config", str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
