"""What-if: one pod's scheduling cycle over a snapshot, the same as a real attempt, writing
nothing (framework.what_if)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from framework.api.loader import load_objects
from framework.config.defaults import set_defaults
from framework.config.load import load_config
from framework.simulator import SIMULATION_EPOCH, AttemptReport, Simulation
from framework.util.clock import FakeClock
from framework.what_if import GATED, SCHEDULED, WhatIfError, what_if

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted(
    p.name for p in EXAMPLES.iterdir() if p.is_dir() and (p / "objects.yaml").exists()
)


def scenario(name: str) -> tuple[object, list, str]:
    directory = EXAMPLES / name
    cfg = set_defaults(load_config(str(directory / "config.yaml")))
    objects_text = (directory / "objects.yaml").read_text()
    return cfg, load_objects(objects_text), objects_text


def first_attempt(name: str) -> AttemptReport:
    directory = EXAMPLES / name
    objects_text = (directory / "objects.yaml").read_text()
    return Simulation(str(directory / "config.yaml"), objects_text).run()[0]


def pod_named(objects: list, key: str):
    return next(o for o in objects if o.kind == "Pod" and o.key == key)


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_what_if_finds_what_the_first_real_attempt_found(name):
    """The first attempt of each example, made by a simulation on the same objects, and a
    what-if of the same pod: same node, filter verdicts, scores, counts, message, victims."""
    real = first_attempt(name)
    cfg, objects, _ = scenario(name)
    got = what_if(
        cfg,
        objects,
        pod_named(objects, real.attempt.pod),
        real.attempt.profile,
        clock=FakeClock(SIMULATION_EPOCH),
    )
    mine = AttemptReport(got.attempt, got.events, got.victims).to_dict()
    want = real.to_dict()
    if want["result"] == SCHEDULED or mine["result"] != SCHEDULED:
        assert mine["result"] == want["result"]
        assert mine["message"] == want["message"]
    for field in (
        "node",
        "evaluatedNodes",
        "feasibleNodes",
        "filter",
        "scores",
        "finalScores",
        "nominatedNode",
        "victims",
    ):
        assert mine[field] == want[field], field


def test_a_pod_that_fits_nowhere_preempts_on_paper_victims_named_nothing_deleted():
    cfg, objects, _ = scenario("preemption")
    before = [o.to_dict() for o in objects]
    got = what_if(cfg, objects, pod_named(objects, "default/critical"), "default-scheduler")

    assert got.attempt.result == "Unschedulable"
    assert got.attempt.nominated_node == "n2"
    assert got.victims == ["default/web-0"]
    assert [o.to_dict() for o in objects] == before, "the snapshot's objects are never changed"
    writes = [(w.verb, w.resource, w.key) for w in got.writes]
    assert writes == [
        ("patch", "pods/status", "default/web-0"),
        ("delete", "pods", "default/web-0"),
        ("create", "events", "default/web-0"),
        ("create", "events", "default/critical"),
        ("patch", "pods/status", "default/critical"),
    ]
    assert got.writes[-1].detail["nominatedNodeName"] == "n2"
    post_filter = [e for e in got.events if e.point == "postFilter" and e.kind == "extensionPoint"]
    assert post_filter[0].data == {"nominatedNodeName": "n2"}


def test_the_cycle_stops_at_host_selection_and_names_what_would_run_next():
    cfg, objects, _ = scenario("resources")
    pending = next(o for o in objects if o.kind == "Pod" and not o.spec.node_name)
    got = what_if(cfg, objects, pending, "default-scheduler")

    assert got.attempt.result == SCHEDULED and got.attempt.node
    points = {e.point for e in got.events}
    assert {"preFilter", "filter", "score"} <= points
    assert not points & {"reserve", "permit", "preBind", "bind", "postBind"}
    assert got.writes == [], "a pod that fits would only be bound, in the binding cycle"
    assert got.not_run["bind"] == ["DefaultBinder"]
    assert got.not_run["reserve"] == ["VolumeBinding", "DynamicResources"]


def test_a_gated_pod_never_reaches_a_cycle_and_says_which_gate_holds_it():
    cfg, objects, _ = scenario("scheduling-gates")
    gated = next(o for o in objects if o.kind == "Pod" and o.spec.scheduling_gates)
    got = what_if(cfg, objects, gated, "default-scheduler")

    assert got.attempt.result == GATED
    assert got.attempt.message.startswith("SchedulingGates: waiting for scheduling gates")
    assert {e.point for e in got.events} == {"preEnqueue"}


def test_the_pod_stands_in_for_the_object_of_its_name_and_may_be_new():
    cfg, objects, _ = scenario("resources")
    pending = next(o for o in objects if o.kind == "Pod" and not o.spec.node_name)
    new = pod_like(pending, metadata={"name": "never-seen", "namespace": "nowhere"})
    assert what_if(cfg, objects, new, "default-scheduler").attempt.pod == "nowhere/never-seen"

    huge = {"requests": {"cpu": "1000"}}
    changed = pod_like(pending, containers=[{"name": "c", "image": "x", "resources": huge}])
    got = what_if(cfg, objects, changed, "default-scheduler")
    assert got.attempt.result == "Unschedulable", "the version given ran, not the stored one"
    assert "Insufficient cpu" in got.attempt.message


def pod_like(pod, metadata=None, containers=None):
    manifest = pod.to_dict()
    manifest["metadata"] = {**manifest["metadata"], **(metadata or {})}
    if metadata:
        manifest["metadata"].pop("uid", None)
    if containers is not None:
        manifest["spec"]["containers"] = containers
    return load_objects(yaml.safe_dump(manifest))[0]


def test_a_bound_pod_or_an_unknown_profile_is_refused():
    cfg, objects, _ = scenario("resources")
    bound = next(o for o in objects if o.kind == "Pod" and o.spec.node_name)
    with pytest.raises(WhatIfError, match=r"^spec.nodeName: pod .* is already bound"):
        what_if(cfg, objects, bound, "default-scheduler")
    pending = next(o for o in objects if o.kind == "Pod" and not o.spec.node_name)
    with pytest.raises(WhatIfError, match="no profile 'nope'"):
        what_if(cfg, objects, pending, "nope")
