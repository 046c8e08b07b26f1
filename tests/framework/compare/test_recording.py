"""A recording (the playground's JSON lines) replayed under two profiles: each change applied
at its time on the fake clock, after the scheduler has placed what was due; the recorded
cluster's own bindings never override the simulated scheduler's; bad lines are named."""

from __future__ import annotations

import pytest

from framework.compare.errors import CompareError, RecordingError
from framework.compare.inputs import inputs_from_recording
from framework.compare.recording import read_recording
from framework.compare.report import compare_results
from framework.compare.variant import run_variant
from tests.framework.compare.scenarios import BIN_PACKING, SPREADING, node, pod, recording


def bound(manifest: dict, node_name: str) -> dict:
    manifest = dict(manifest, spec=dict(manifest["spec"], nodeName=node_name))
    return manifest


# Two 2-CPU nodes; web-0 waits in the snapshot. Then: web-1 (t=5), a 3-CPU pod that fits
# nowhere (t=10) until a 4-CPU node arrives (t=20); the real cluster binds web-1 to n2
# (t=25, ignored); web-0 goes (t=30); web-2 comes (t=40).
STREAM = recording(
    (0, "ADDED", node("n1")),
    (0, "ADDED", node("n2")),
    (0, "ADDED", pod("web-0", cpu="500m")),
    (5, "ADDED", pod("web-1", cpu="500m")),
    (10, "ADDED", pod("big", cpu="3", app="big")),
    (20, "ADDED", node("n3", cpu="4")),
    (25, "MODIFIED", bound(pod("web-1", cpu="500m"), "n2")),
    (30, "DELETED", pod("web-0", cpu="500m")),
    (40, "ADDED", pod("web-2", cpu="500m")),
)


def replayed(spec, **options):
    return run_variant(spec, inputs_from_recording(STREAM), **options)


def test_the_snapshot_is_the_objects_and_the_rest_the_changes_in_order():
    inputs = inputs_from_recording(STREAM)
    assert '"web-0"' in inputs.objects_text and '"web-1"' not in inputs.objects_text
    assert [(c.t, c.type, c.object["metadata"]["name"], c.line) for c in inputs.changes] == [
        (5.0, "ADDED", "web-1", 5),
        (10.0, "ADDED", "big", 6),
        (20.0, "ADDED", "n3", 7),
        (25.0, "MODIFIED", "web-1", 8),
        (30.0, "DELETED", "web-0", 9),
        (40.0, "ADDED", "web-2", 10),
    ]


@pytest.mark.parametrize("spec", [SPREADING, BIN_PACKING], ids=lambda s: s.name)
def test_a_pod_waits_for_the_node_that_arrives_after_it(spec):
    result = replayed(spec, trace_pods=frozenset({"default/big"}))
    attempts = result.attempts["default/big"]
    assert [a["result"] for a in attempts] == ["Unschedulable", "Scheduled"]
    assert attempts[-1]["node"] == "n3"
    assert result.measures["attemptsPerPod"]["max"] == 2


def test_the_two_profiles_place_the_stream_differently():
    spreading, packing = replayed(SPREADING), replayed(BIN_PACKING)
    # web-0 went to one node; spreading puts web-1 on the other, bin-packing beside web-0
    assert spreading.placements["default/web-1"] != spreading.placements["default/web-0"]
    assert packing.placements["default/web-1"] == packing.placements["default/web-0"]
    report = compare_results([spreading, packing])
    assert "default/web-1" in [entry["pod"] for entry in report["differences"]["pods"]]


def test_the_recorded_clusters_binding_does_not_move_a_simulated_pod():
    packing = replayed(BIN_PACKING)
    # bin-packing put web-1 beside web-0 on n1; the recording's MODIFIED said n2
    assert packing.placements["default/web-1"] == "n1"
    nodes = packing.measures["utilization"]["nodes"]
    # at the end web-0 is gone: web-1 alone on n1, and web-2 packed beside big on n3
    assert packing.placements["default/web-2"] == "n3"
    assert (nodes["n1"]["cpu"], nodes["n2"]["cpu"], nodes["n3"]["cpu"]) == (0.25, 0.0, 0.875)


def test_a_deleted_pod_is_no_preemption_victim():
    assert replayed(SPREADING).measures["pods"]["preempted"] == 0


HEADER = '{"recording": 1}\n'
OBJECT = '"object": {"metadata": {}}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "^line 1: the recording is empty"),
        ('{"kind": "List"}\n', "^line 1: not a recording header"),
        (HEADER + '{"t": 1, "type": "ADDED", "object": {"meta\n', "^line 2: not a whole JSON line"),
        (HEADER + f'{{"t": 1, "type": "BOOKMARK", {OBJECT}}}\n', "^line 2: unknown type 'BOOK"),
        (HEADER + f'\n{{"t": -1, "type": "ADDED", {OBJECT}}}\n', "^line 3: t must be a number"),
        (HEADER + '{"t": 1, "type": "ADDED", "object": []}\n', "^line 2: object must be a"),
    ],
)  # fmt: skip
def test_a_bad_line_is_named(text, message):
    with pytest.raises(RecordingError, match=message):
        read_recording(text)


def test_a_change_the_cluster_refuses_is_named_by_its_line():
    refused = pod("web-9")
    refused["spec"]["containerz"] = []
    text = recording((0, "ADDED", node("n1")), (3, "ADDED", refused))
    with pytest.raises(
        CompareError, match=r'^line 3: refused: .*unknown field "spec.containerz"'
    ) as raised:
        run_variant(SPREADING, inputs_from_recording(text))
    assert raised.value.part == "recording"
