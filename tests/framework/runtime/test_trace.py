"""Tracing: one event per plugin call and per extension point, and nothing when no observer."""

from __future__ import annotations

from dataclasses import fields

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.testing.fake_plugins import FakeFilter, FakeScore
from framework.trace import (
    EXTENSION_POINT,
    PLUGIN,
    PLUGIN_BATCH,
    DurationRecorder,
    FanOut,
    Recorder,
    TraceEvent,
    score_cells,
    score_totals,
)
from tests.framework.builders import make_node_info, make_pod
from tests.framework.runtime.helpers import framework_of


def test_filter_calls_are_reported_per_plugin_and_node():
    recorder = Recorder()
    framework = framework_of(
        [FakeFilter("A"), FakeFilter("B", code=Code.UNSCHEDULABLE, message="full")],
        points={"filter": ["A", "B"]},
        observer=recorder,
    )
    framework.run_filter_plugins(CycleState(), make_pod("web"), make_node_info("n1"))
    events = [(e.kind, e.point, e.plugin, e.node, e.code, e.reasons) for e in recorder.events]
    assert events == [
        (PLUGIN, "filter", "A", "n1", "Success", []),
        (PLUGIN, "filter", "B", "n1", "Unschedulable", ["full"]),
    ]
    assert all(e.pod == "default/web" and e.profile == "default-scheduler" for e in recorder.events)
    assert all(e.duration >= 0 for e in recorder.events)


def test_the_score_point_event_carries_raw_normalized_and_weighted_scores():
    def to_hundred(scores):
        top = max(s.score for s in scores)
        for s in scores:
            s.score = s.score * 100 // top

    recorder = Recorder()
    framework = framework_of(
        [FakeScore("A", scores={"n1": 5, "n2": 10}, normalize=to_hundred)],
        points={"score": [("A", 2)]},
        observer=recorder,
    )
    nodes = [make_node_info("n1"), make_node_info("n2")]
    framework.run_score_plugins(CycleState(), make_pod(), nodes)
    [point] = recorder.of(EXTENSION_POINT, "score")
    assert point.data == {
        "nodes": ["n1", "n2"],
        "weights": {"A": 2},
        "raw": {"A": [5, 10]},
        "normalized": {"A": [50, 100]},
        "totals": [100, 200],
    }
    assert score_cells(point.data) == {
        "A": {
            "n1": {"raw": 5, "normalized": 50, "weighted": 100},
            "n2": {"raw": 10, "normalized": 100, "weighted": 200},
        }
    }
    assert score_totals(point.data) == {"n1": 100, "n2": 200}
    assert [e.score for e in recorder.of(PLUGIN, "score")] == [5, 10]


def test_score_cells_read_traces_stored_before_the_columns():
    stored = {
        "weights": {"A": 2},
        "scores": {"A": {"n1": {"raw": 5, "normalized": 50, "weighted": 100}}},
        "totals": {"n1": 100},
    }
    assert score_cells(stored) == stored["scores"]
    assert score_totals(stored) == {"n1": 100}


def test_event_json_uses_the_documented_keys():
    recorder = Recorder()
    framework = framework_of([FakeFilter("A")], points={"filter": ["A"]}, observer=recorder)
    framework.run_filter_plugins(CycleState(), make_pod("web"), make_node_info("n1"))
    as_json = recorder.events[0].to_dict()
    assert set(as_json) == {
        "kind",
        "point",
        "pod",
        "profile",
        "code",
        "plugin",
        "node",
        "durationSeconds",
    }


def test_every_field_survives_the_round_trip_through_json():
    event = TraceEvent(
        kind=PLUGIN_BATCH,
        point="score",
        pod="shop/web-3",
        profile="bin-packer",
        code="Unschedulable",
        plugin="NodeResourcesFit",
        node="n1",
        reasons=["Insufficient cpu", "Insufficient memory"],
        score=42,
        duration=0.25,
        data={"nodes": ["n1"], "scores": [42]},
        stopped=56.2,
    )
    defaults = TraceEvent(kind="", point="", pod="", profile="", code="")
    # Each field differs from its default: a field added later is covered or this test fails.
    unchanged = [
        f.name for f in fields(TraceEvent) if getattr(event, f.name) == getattr(defaults, f.name)
    ]
    assert unchanged == []
    assert TraceEvent.from_dict(event.to_dict()) == event


def test_fields_left_out_of_the_json_come_back_empty():
    summary = TraceEvent(
        kind=EXTENSION_POINT, point="permit", pod="default/web", profile="p", code="Success"
    )
    assert set(summary.to_dict()) == {
        "kind",
        "point",
        "pod",
        "profile",
        "code",
        "plugin",
        "durationSeconds",
    }
    back = TraceEvent.from_dict(summary.to_dict())
    assert back == summary
    assert (back.node, back.reasons, back.score, back.data) == (None, [], None, {})


def test_no_observer_means_no_event_objects_are_built(monkeypatch):
    import framework.runtime.framework as runtime_module

    def forbidden(*args, **kwargs):
        raise AssertionError("a TraceEvent was built with tracing off")

    monkeypatch.setattr(runtime_module, "TraceEvent", forbidden)
    framework = framework_of([FakeFilter("A")], points={"filter": ["A"]})
    assert framework.run_filter_plugins(CycleState(), make_pod(), make_node_info("n1")) is None


def test_duration_recorder_aggregates_per_point_plugin_and_code():
    durations, recorder = DurationRecorder(), Recorder()
    framework = framework_of(
        [FakeFilter("A")], points={"filter": ["A"]}, observer=FanOut(durations, recorder)
    )
    for name in ("n1", "n2", "n3"):
        framework.run_filter_plugins(CycleState(), make_pod(), make_node_info(name))
    assert durations.count == {("filter", "A", "Success"): 3}
    assert len(recorder.events) == 3
