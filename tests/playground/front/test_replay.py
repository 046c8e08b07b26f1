"""Replay: a stored attempt stepped through from its trace, event by event, forward and back.

The attempt is a real one: a real SchedulerService schedules a pod against the database and
stores its trace, as it does for every attempt.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from framework.debugger.view import results_so_far
from framework.trace import TraceEvent
from playground.front.trace_tables import matrix_of, scores_of
from playground.workspaces.models import SchedulingAttempt
from tests.playground.scheduling.conftest import (  # noqa: F401 (fixtures)
    binding_tasks,
    clock,
    make_service,
    sent,
)
from tests.playground.scheduling.manifests import node_manifest, pod_manifest

URL = "/w/lab/pods/uid-web/attempts/1/replay/"


@pytest.fixture
def attempt(make_service, cluster, binding_tasks):  # noqa: F811 (the fixtures imported above)
    """The web pod's one attempt: "small" is too small for it; "medium" and "large" are scored."""
    for name, cpu in (("small", "1"), ("medium", "4"), ("large", "8")):
        cluster.add(node_manifest(name, cpu=cpu))
    cluster.add(pod_manifest("web", cpu="2"))
    service = make_service()
    assert service.start()
    for _ in range(20):
        service.tick()
        if binding_tasks.requests:
            binding_tasks.run_all()
        elif not service.busy:
            break
    attempt = SchedulingAttempt.objects.get(pod_uid="uid-web")
    assert (attempt.result, attempt.node) == ("Scheduled", "large")
    return attempt


@pytest.fixture
def events(attempt) -> list[dict]:
    return attempt.trace.events()


class Tables(HTMLParser):
    """Every table of a page by its aria-label: its rows, each the text of its cells."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._rows = self.tables.setdefault(dict(attrs).get("aria-label", ""), [])
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._rows:
            self._rows[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._rows = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def shown_matrix(html: str) -> dict[str, list[str]]:
    """node → the Filter plugins' cells, as the page shows them (✓, reasons, blank)."""
    header, *rows = Tables(html).tables.get("Filter", [[]])
    return {row[0]: row[1 : len(header)] for row in rows} if header else {}


def shown_raw_scores(html: str) -> dict[str, list[str]]:
    """node → each Score plugin's raw score as shown (the first of its three cells)."""
    table = Tables(html).tables.get("Score")
    if not table:
        return {}
    _, numbers, *rows = table  # the second heading row: raw, norm., weighted per plugin
    return {row[0]: row[1 : 1 + len(numbers)][::3] for row in rows}


def expected_matrix(results: dict) -> dict[str, list[str]]:
    matrix = matrix_of(results)
    return {
        node: ["" if v is None else "✓" if v.passed else "; ".join(v.reasons) for v in verdicts]
        + ["skipped"] * len(matrix.skipped)
        for node, verdicts in matrix.rows
    }


def test_stored_events_read_back_as_trace_events_are_the_same_events(events):
    assert [TraceEvent.from_dict(event).to_dict() for event in events] == events


def test_at_zero_nothing_has_run_yet(logged_in, attempt):
    for url in (URL, f"{URL}?at=0"):
        response = logged_in.get(url)
        content = response.content.decode()
        assert response.status_code == 200
        assert "Before the first event" in content
        assert "No Filter call yet" in content and "No Score call yet" in content
        assert 'aria-current="step"' not in content
        assert response.context["stop"]["results"] == results_so_far([])


def test_at_each_event_the_panels_are_the_results_of_the_events_so_far(logged_in, events):
    trace_events = [TraceEvent.from_dict(event) for event in events]
    for at in range(len(events) + 1):
        response = logged_in.get(f"{URL}?at={at}")
        html = response.content.decode()
        results = results_so_far(trace_events[:at])
        assert response.context["stop"]["results"] == results, at
        assert shown_matrix(html) == expected_matrix(results), at
        raw = {
            node: [str(cell.raw) if cell else "—" for cell in cells]
            for node, cells, _ in scores_of(results).rows
        }
        assert shown_raw_scores(html) == raw, at
        if at:
            current = re.search(r'aria-current="step"><a href="[^"]*\?at=(\d+)"', html)
            assert current and int(current[1]) == at


def test_going_forward_to_score_the_raw_scores_appear_and_back_they_disappear(logged_in, events):
    first_score = next(
        i + 1
        for i, e in enumerate(events)
        if e["point"] == "score" and e["kind"] != "extensionPoint"
    )
    plugin, data = events[first_score - 1]["plugin"], events[first_score - 1]["data"]
    before = logged_in.get(f"{URL}?at={first_score - 1}").content.decode()
    at_score = logged_in.get(f"{URL}?at={first_score}").content.decode()
    assert shown_raw_scores(before) == {}
    assert shown_raw_scores(at_score) == {
        node: [str(score)] for node, score in zip(data["nodes"], data["scores"], strict=True)
    }
    assert f"<h2>score · {plugin} · 2 nodes</h2>" in at_score
    # Filter is over by then: "small" was rejected for its CPU.
    assert any("Insufficient cpu" in cell for cell in shown_matrix(at_score)["small"])


def test_the_last_position_shows_the_whole_attempt(logged_in, events):
    html = logged_in.get(f"{URL}?at={len(events)}").content.decode()
    assert f"<strong>{len(events)}</strong> of {len(events)} events replayed" in html
    assert 'id="replay-forward"' not in html and 'id="replay-back"' in html
    totals = [row[-1] for row in Tables(html).tables["Score"][2:]]
    assert totals and all(total.isdigit() for total in totals)  # Score has ended: totals


@pytest.mark.parametrize(
    ("at", "shown"), [("-3", 0), ("100000", None), ("", 0)], ids=["below", "above", "empty"]
)
def test_a_position_out_of_range_is_clamped(logged_in, events, at, shown):
    shown = len(events) if shown is None else shown
    html = logged_in.get(f"{URL}?at={at}").content.decode()
    assert f"<strong>{shown}</strong> of {len(events)} events replayed" in html


@pytest.mark.parametrize("at", ["abc", "2.5", "1e3"])
def test_a_position_that_is_not_a_whole_number_is_refused_with_a_message(logged_in, events, at):
    response = logged_in.get(f"{URL}?at={at}")
    assert response.status_code == 400
    assert response.content.decode() == (
        f"at: the number of events replayed, a whole number from 0 to {len(events)}, not '{at}'"
    )


def test_the_controls_step_back_and_forward_and_htmx_gets_the_fragment(htmx, events):
    response = htmx.get(f"{URL}?at=3")
    html = response.content.decode()
    assert html.startswith('<div id="replay" class="replay" hx-target="this"')
    for control, at in (("first", 0), ("back", 2), ("forward", 4), ("last", len(events))):
        assert f'id="replay-{control}" href="{URL}?at={at}" hx-get="{URL}?at={at}"' in html
    assert f'<input type="range" name="at" min="0" max="{len(events)}" value="3"' in html


def test_a_deleted_pods_attempts_still_replay(logged_in, attempt, cluster, events):
    cluster.delete(cluster.get("Pod", "web", "default"))
    response = logged_in.get(f"{URL}?at={len(events)}")
    assert response.status_code == 200
    assert "default/web" in response.content.decode()


def test_an_attempt_without_a_stored_trace_says_so(logged_in, attempt):
    attempt.trace.delete()
    content = logged_in.get(URL).content.decode()
    assert "No trace was stored for this attempt" in content


def test_others_are_refused(client, stranger, attempt):
    assert client.get(URL).status_code == 302  # to the login page
    client.force_login(stranger)
    assert client.get(URL).status_code == 404
    assert client.get("/w/lab/pods/uid-web/attempts/2/replay/").status_code == 404


def test_the_attempt_page_and_the_pods_attempts_lead_there(logged_in, attempt):
    link = f'href="{URL}"'
    assert link in logged_in.get("/w/lab/pods/uid-web/attempts/1/").content.decode()
    pod_page = logged_in.get("/w/lab/pods/uid-web/").content.decode()
    attempts = pod_page[pod_page.index('<table id="pod-attempts">') :]
    assert f'<a {link} title="step through attempt 1, event by event">Step through</a>' in attempts
