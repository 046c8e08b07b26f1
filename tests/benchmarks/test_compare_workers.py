"""The compare benchmark's production-mode part works: at a tiny size one worker runs one
variant and two workers run two, every pending pod is scheduled, the two run on two worker
processes, and nothing is left behind; without PostgreSQL or Redis it names what is missing.

Counts only; timings are never asserted (they depend on the machine).
"""

from __future__ import annotations

import os
import re

import psycopg

from benchmarks import compare_workers
from benchmarks.__main__ import main
from benchmarks.playground_e2e import throwaway_database_name
from tests.benchmarks.test_playground_e2e import needs_production


@needs_production
def test_one_worker_runs_one_variant_and_two_workers_two() -> None:
    before = _compare_databases()
    lines: list[str] = []

    text = compare_workers.run(nodes=6, bound=12, pending=5, say=lines.append)

    assert text == "\n".join(lines)
    assert lines[0].startswith("compare on Celery workers (production mode): 6 nodes, 12 bound")
    assert lines[1].startswith("1 worker, 1 variant: phase 1 ")
    assert lines[3].startswith("2 workers, 2 variants: phase 1 ")
    runs = {1: _variants(lines[2:3]), 2: _variants(lines[4:6])}
    assert [name for name, _ in runs[1]] == ["spreading"]
    assert [name for name, _ in runs[2]] == ["spreading", "bin-packing"]
    assert all(line.split()[1] == "done" for line in lines[2:3] + lines[4:6])
    assert all("scheduled 5 of 5" in line for line in lines[2:3] + lines[4:6])
    assert len({pid for _, pid in runs[2]}) == 2, "the two variants ran on two workers"
    assert lines[6].startswith("one worker, one variant: ")
    assert _compare_databases() == before, "the throwaway database was dropped"
    assert not _workers_alive(pid for _, pid in runs[1] + runs[2])


def test_the_command_names_what_keeps_it_from_production_mode(monkeypatch, capsys) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["compare", "--workers", "--nodes", "1", "--bound", "0", "--pending", "1"]) == 2
    assert "DATABASE_URL is not set" in capsys.readouterr().err

    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x")
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["compare", "--workers"]) == 2
    assert "REDIS_URL is not set" in capsys.readouterr().err


def test_each_worker_is_the_procfiles_scheduler_with_a_name_of_its_own() -> None:
    commands = compare_workers._worker_commands(2)
    assert list(commands) == ["compare-1", "compare-2"]
    for name, command in commands.items():
        assert command.startswith("celery --app playground worker --queues scheduler")
        assert command.endswith(f"--hostname {name}@%h")


def _variants(lines: list[str]) -> list[tuple[str, str]]:
    """(name, worker pid) of each variant's line."""
    return [(line.split()[0], re.search(r"worker pid (\d+)", line).group(1)) for line in lines]


def _compare_databases() -> set[str]:
    """This run's throwaway databases (named after DATABASE_URL's): runs side by side on the
    same server (other checkouts, CI) have their own, which come and go as they please."""
    url = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    prefix = throwaway_database_name(url, "compare_")
    with psycopg.connect(f"{url.rsplit('/', 1)[0]}/postgres", autocommit=True) as pg:
        query = "SELECT datname FROM pg_database WHERE starts_with(datname, %s)"
        rows = pg.execute(query, [prefix])
        return {name for (name,) in rows.fetchall()}


def _workers_alive(pids) -> list[str]:
    return [pid for pid in pids if os.path.exists(f"/proc/{pid}")]
