"""``simulate --break`` records every stop in the JSON; ``debug`` answers stops at a prompt."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from framework.cli import main
from tests.framework.debugger.test_per_node import SCENARIOS
from tests.framework.test_simulate_command import SCHEMA, schema_errors

REPO = Path(__file__).resolve().parents[3]
SMALL = REPO / "tests/fixtures/oracle/mixed-small"
SMALL_FILES = ["--config", str(SMALL / "config.yaml"), "--objects", str(SMALL / "objects.yaml")]


def simulate_json(capsys, scenario: Path, *extra: str) -> dict:
    status = main(
        [
            "simulate",
            "--config",
            str(scenario / "config.yaml"),
            "--objects",
            str(scenario / "objects.yaml"),
            "--output",
            "json",
            *extra,
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    return json.loads(out)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_break_records_stops_and_schedules_exactly_as_without(capsys, scenario):
    plain = simulate_json(capsys, scenario)
    first_node = next(iter(plain["pods"][0]["filter"]), "none")
    debugged = simulate_json(
        capsys,
        scenario,
        "--break",
        f"filter@{first_node}",
        "--break",
        "score",
        "--break",
        "failure",
    )
    assert debugged["pods"] == plain["pods"]
    assert debugged["stops"], "a scenario with pods stops somewhere"
    assert schema_errors(debugged, SCHEMA) == []
    assert "stops" not in plain


def test_the_stops_are_in_order_with_pod_attempt_point_plugin_and_node(capsys):
    stops = simulate_json(capsys, SMALL, "--break", "score", "--break-pod", "default/pending-01")[
        "stops"
    ]
    assert [(s["pod"], s["attempt"], s["point"], s["plugin"], s["node"]) for s in stops] == [
        ("default/pending-01", 1, "score", "TaintToleration", None)
    ]
    assert stops[0]["results"]["scores"]["TaintToleration"]


def test_a_bad_break_is_an_error_that_names_it(capsys):
    status = main(["simulate", "--config", "x", "--objects", "y", "--break", "nowhere"])
    assert status == 1
    assert "point: unknown extension point 'nowhere'" in capsys.readouterr().err


def test_the_debug_prompt_steps_prints_and_runs_to_the_end(monkeypatch, capsys):
    typed = io.StringIO("print queue\nnext\nstep\nhelp\nbogus\nrun\nquit\n")
    monkeypatch.setattr("sys.stdin", typed)
    status = main(
        [
            "debug",
            "--config",
            str(SMALL / "config.yaml"),
            "--objects",
            str(SMALL / "objects.yaml"),
            "--break-pod",
            "default/pending-00",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    lines = [line for line in out.splitlines() if "attempt 1:" in line]
    assert lines == [
        "default/pending-00 attempt 1: preFilter · NodeAffinity: Success "
        "[breakpoint preFilter pod default/pending-00]",
        "(debug) default/pending-00 attempt 1: preFilter (end of the extension point): Success "
        "[next]",
        "(debug) default/pending-00 attempt 1: filter · NodeUnschedulable: Success [step]",
    ]
    assert '"inFlight": 1' in out
    assert "continue (c)  stop at the next breakpoint" in out
    assert "unknown command 'bogus': type help" in out
    assert "default/pending-00  Scheduled" in out


def test_the_end_of_the_input_stops_no_more_and_runs_to_the_end(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status = main(["debug", *SMALL_FILES])
    out = capsys.readouterr().out
    assert status == 0
    assert out.count("(debug) ") == 1
    main(
        [
            "simulate",
            "--config",
            str(SMALL / "config.yaml"),
            "--objects",
            str(SMALL / "objects.yaml"),
        ]
    )
    assert out.endswith(capsys.readouterr().out)  # every attempt, as simulate prints them
