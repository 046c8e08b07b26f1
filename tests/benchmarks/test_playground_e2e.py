"""The end-to-end benchmark's harness works: at a tiny size every pod ends bound, a page watching
a pod gets its live trace, and it says what is missing when it is not in production mode.

Counts only; timings are never asserted (they depend on the machine). The run needs PostgreSQL
and Redis (under CI=true they are always there, see tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest

from benchmarks import playground_e2e
from benchmarks.__main__ import main
from benchmarks.browser import Browser, LiveWatcher
from benchmarks.processes import procfile_commands, tree_usage

POSTGRES = "postgres://postgres@127.0.0.1:5432/playground"
REDIS = "redis://127.0.0.1:6379/0"

needs_production = pytest.mark.skipif(
    not os.getenv("DATABASE_URL", "").startswith("postgres") or not os.getenv("REDIS_URL"),
    reason="the production-mode benchmarks need DATABASE_URL (PostgreSQL) and REDIS_URL",
)


@needs_production
def test_every_pod_ends_bound_in_the_database_and_on_the_live_board() -> None:
    result = playground_e2e.run(nodes=5, pods=10, timeout=120)

    assert (result.nodes, result.pods, result.bound) == (5, 10, 10)
    assert len(result.latencies) == 10
    assert result.pods_per_second > 0
    assert 0 < result.database_seconds <= result.seconds
    assert 0 < result.live_seconds <= result.seconds
    assert {"web", "scheduler", "binding"} <= set(result.usage)
    assert result.watch is None
    assert not _database_exists(result.database)


@needs_production
def test_a_pod_page_opened_as_its_pod_is_created_receives_its_live_trace() -> None:
    # The watched pod (bench-999) is created gated and its gate lifted once the service has read
    # the page's watch: its cycle is always streamed, however fast the scheduler keeps up (CI
    # once saw it bound before the watch was read, when the gate was not there).
    result = playground_e2e.run(nodes=100, pods=1600, timeout=300, watch="pod")

    assert (result.pods, result.bound) == (1600, 1600)
    watch = result.watch
    assert (watch.page, watch.pod, watch.registered) == ("pod", "default/bench-999", 1)
    assert watch.followed, "the service's answer to the watch (trace.followed) never came"
    assert watch.live >= 1, "no trace.events reached the pod's page"
    assert watch.messages > watch.live  # its first state came before
    assert watch.live_pods == 1
    assert "pod default/bench-999" in result.report()
    assert not _database_exists(result.database)


@pytest.mark.parametrize(
    ("pods", "index"),
    [(1, 0), (10, 9), (400, 399), (1000, 599), (1600, 999), (1001, 599)],
)
def test_the_pod_watched_is_the_last_of_the_request_that_creates_the_middle_one(pods, index):
    assert playground_e2e.watched_pod(pods) == index


def test_an_unknown_watcher_is_refused_before_anything_starts(monkeypatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with pytest.raises(ValueError, match="watch must be one of nobody, pod, workspace"):
        playground_e2e.run(nodes=1, pods=1, watch="everyone")


def test_the_command_takes_who_watches(monkeypatch, capsys) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)

    assert main(["playground", "--watch", "workspace"]) == 2
    with pytest.raises(SystemExit):
        main(["playground", "--watch", "everyone"])
    assert "invalid choice: 'everyone'" in capsys.readouterr().err


@pytest.mark.parametrize("pod_page", [True, False], ids=["pod page", "debugger page"])
def test_the_watcher_counts_the_live_panels_the_playground_renders(pod_page) -> None:
    from playground.front.live import live_trace

    trace = {
        "type": "trace.events",
        "pod": "default/bench-7",
        "uid": "u-7",
        "attempt": 1,
        "events": [{"kind": "extensionPoint", "point": "preFilter", "code": "Success"}],
    }
    workspace = SimpleNamespace(slug="bench")
    followed = {"type": "trace.followed", "following": True}
    followed_panel = live_trace(workspace, followed, pod_page=pod_page)
    panel = live_trace(workspace, trace, pod_page=pod_page)
    watcher = LiveWatcher.pod_page(Browser("http://127.0.0.1:1"), "bench", "u-7")

    watcher._received('<span id="service-state">running</span>')
    assert not watcher.followed
    watcher._received(followed_panel)
    assert watcher.followed and watcher.live == 0, "the service follows; no event came yet"
    for html in (panel, panel):
        watcher._received(html)

    assert (watcher.live, watcher.live_pods) == (2, {"default/bench-7"})


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"REDIS_URL": REDIS}, "DATABASE_URL is not set"),
        ({"DATABASE_URL": "sqlite:///x.sqlite3", "REDIS_URL": REDIS}, "DATABASE_URL is not a"),
        ({"DATABASE_URL": POSTGRES}, "REDIS_URL is not set"),
        ({"DATABASE_URL": POSTGRES, "REDIS_URL": "memory://"}, "REDIS_URL is not a Redis URL"),
    ],
    ids=["no database", "SQLite", "no Redis", "not Redis"],
)
def test_it_names_the_variable_that_keeps_it_from_production_mode(environ, named) -> None:
    with pytest.raises(playground_e2e.NotProductionMode, match=named):
        playground_e2e.production_backends(environ)


def test_the_command_says_what_is_missing(monkeypatch, capsys) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)

    assert main(["playground", "--nodes", "1", "--pods", "1"]) == 2
    assert "DATABASE_URL is not set" in capsys.readouterr().err


def test_the_procfile_names_the_three_production_processes() -> None:
    assert set(procfile_commands()) >= set(playground_e2e.PROCESSES)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("web: daphne app\n\n# a comment\nworker: celery -A x: y\n", {"web", "worker"}),
        ("web:daphne\n", {"web"}),
    ],
    ids=["comments, blank lines and colons in commands", "no space after the colon"],
)
def test_it_reads_procfile_lines(tmp_path: Path, text: str, want: set[str]) -> None:
    procfile = tmp_path / "Procfile"
    procfile.write_text(text)
    assert set(procfile_commands(procfile)) == want


def test_a_procfile_line_without_a_command_is_refused(tmp_path: Path) -> None:
    procfile = tmp_path / "Procfile"
    procfile.write_text("web daphne\n")
    with pytest.raises(ValueError, match="line 1: expected 'name: command'"):
        procfile_commands(procfile)


def test_it_counts_its_own_process_as_one_tree() -> None:
    usage = tree_usage(os.getpid())
    assert usage.processes >= 1
    assert usage.cpu_seconds > 0


def test_it_makes_mixed_nodes_over_three_zones() -> None:
    import yaml

    nodes = [d for d in yaml.safe_load_all(playground_e2e.nodes_yaml(12)) if d["kind"] == "Node"]
    labels = [node["metadata"]["labels"] for node in nodes]
    assert len(nodes) == 12
    assert {label["topology.kubernetes.io/zone"] for label in labels} == {
        "zone-a",
        "zone-b",
        "zone-c",
    }
    assert {label["node.kubernetes.io/instance-type"] for label in labels} == {
        "small",
        "medium",
        "large",
    }


def _database_exists(name: str) -> bool:
    url = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    base = url.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        row = pg.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    return row is not None
