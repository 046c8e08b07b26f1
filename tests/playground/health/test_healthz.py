"""The answers of kube-apiserver's healthz handler, for lists of checks that pass or fail.

Expected bodies are the real kube-scheduler v1.36.2's (``curl -k https://…:10259/readyz?verbose``
and the same with ``&exclude=shutdown&exclude=nope``), with our checks' names."""

from __future__ import annotations

import pytest

from playground.health.healthz import HealthCheck, answer, answer_one


def passes() -> None:
    return None


def fails() -> None:
    raise ConnectionError("connection refused on 127.0.0.1:5432")


OK, BROKEN = HealthCheck("database", passes), HealthCheck("channel-layer", fails)
PING = HealthCheck("ping", passes)


@pytest.mark.parametrize(
    ("name", "checks", "query", "status", "body"),
    [
        ("every check passes: ok", [PING, OK], {}, 200, "ok"),
        (
            "verbose lists every check",
            [PING, OK],
            {"verbose": [""]},
            200,
            "[+]ping ok\n[+]database ok\nreadyz check passed\n",
        ),
        (
            "a failure is listed without being asked, its reason withheld",
            [OK, BROKEN],
            {},
            503,
            "[+]database ok\n[-]channel-layer failed: reason withheld\nreadyz check failed\n",
        ),
        (
            "an excluded failing check passes",
            [OK, BROKEN],
            {"exclude": ["channel-layer"]},
            200,
            "ok",
        ),
        (
            "excluded checks and unknown names, verbose",
            [OK, BROKEN],
            {"verbose": ["1"], "exclude": ["channel-layer", "shutdown", "nope"]},
            200,
            "[+]database ok\n[+]channel-layer excluded: ok\n"
            'warn: some health checks cannot be excluded: no matches for "nope","shutdown"\n'
            "readyz check passed\n",
        ),
    ],
)
def test_answers_as_kube_apiserver(name, checks, query, status, body):
    got = answer("readyz", checks, query)
    assert (got.status, got.body) == (status, body), name


def test_the_reason_withheld_is_kept_for_the_log(caplog):
    got = answer("readyz", [BROKEN], {})
    assert got.failures == {
        "channel-layer": "ConnectionError: connection refused on 127.0.0.1:5432"
    }
    assert "[-]channel-layer failed: ConnectionError: connection refused" in caplog.text
    assert "127.0.0.1" not in got.body


def test_one_check_on_its_own():
    assert (answer_one(OK).status, answer_one(OK).body) == (200, "ok")
    failed = answer_one(BROKEN)
    assert (failed.status, failed.body) == (503, "internal server error: reason withheld\n")
