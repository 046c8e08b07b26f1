"""The example extender's rules and its HTTP surface (examples/extender/server.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from examples.extender.server import ExampleExtender
from tests.framework.extender.servers import unused_port

SERVER = Path(__file__).resolve().parents[3] / "examples" / "extender" / "server.py"


def node(name: str, **labels: str) -> dict:
    return {"metadata": {"name": name, "labels": {f"extender/{k}": v for k, v in labels.items()}}}


NODES = [
    node("n1"),
    node("n2", deny="true"),
    node("n3", deny="unresolvable"),
    node("n4", score="7"),
    node("n5", score="42"),
    node("n6", score="high"),
]


def test_filter_fails_denied_nodes_and_passes_the_others_whole():
    answer = ExampleExtender().filter({"Pod": {}, "Nodes": {"items": NODES}, "NodeNames": None})
    assert [n["metadata"]["name"] for n in answer["Nodes"]["items"]] == ["n1", "n4", "n5", "n6"]
    assert answer["FailedNodes"] == {"n2": "node(s) denied by the example extender"}
    assert answer["FailedAndUnresolvableNodes"] == {
        "n3": "node(s) denied for good by the example extender"
    }
    assert "NodeNames" not in answer


def test_filter_answers_with_names_from_its_cache_when_sent_names():
    extender = ExampleExtender()
    extender.learn_nodes(NODES)
    answer = extender.filter({"Pod": {}, "Nodes": None, "NodeNames": ["n2", "n9", "n1"]})
    assert answer["NodeNames"] == ["n9", "n1"]
    assert answer["FailedNodes"] == {"n2": "node(s) denied by the example extender"}


def test_a_pod_labelled_extender_error_gets_an_error_answer():
    pod = {"metadata": {"labels": {"extender/error": "out of licences"}}}
    answer = ExampleExtender().filter({"Pod": pod, "Nodes": {"items": NODES}})
    assert answer == {"Error": "out of licences"}


def test_prioritize_scores_the_label_clamped_to_the_extender_range():
    answer = ExampleExtender().prioritize({"Nodes": {"items": NODES}})
    assert {p["Host"]: p["Score"] for p in answer} == {
        "n1": 0,
        "n2": 0,
        "n3": 0,
        "n4": 7,
        "n5": 10,
        "n6": 0,
    }


@pytest.mark.parametrize(
    "args",
    [
        {"NodeNameToVictims": {"n1": {"Pods": [{"metadata": {"uid": "u1"}}]}, "n2": {}}},
        {"NodeNameToMetaVictims": {"n1": {"Pods": [{"UID": "u1"}]}, "n2": {"Pods": []}}},
    ],
    ids=["victims sent whole", "victims sent by uid"],
)
def test_preempt_keeps_victims_by_uid_and_drops_nodes_refusing_preemption(args):
    extender = ExampleExtender()
    extender.learn_nodes([node("n2", **{"no-preemption": "true"})])
    assert extender.preempt(args) == {
        "NodeNameToMetaVictims": {"n1": {"Pods": [{"UID": "u1"}], "NumPDBViolations": 0}}
    }


def test_bind_records_bindings_and_refuses_nodes_labelled_to_refuse():
    extender = ExampleExtender()
    extender.learn_nodes([node("n2", bind="refuse")])
    args = {"PodName": "web", "PodNamespace": "default", "PodUID": "u1", "Node": "n1"}
    assert extender.bind(args) == {"Error": ""}
    assert extender.bind({**args, "Node": "n2"}) == {
        "Error": "node n2 refuses bindings from the example extender"
    }
    assert extender.bindings == [{"namespace": "default", "name": "web", "uid": "u1", "node": "n1"}]


# -- over HTTP ---------------------------------------------------------------------------------


def post(url: str, body: bytes) -> tuple[int, object]:
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_any_prefix_before_the_verb_is_accepted(example_server):
    status, answer = post(example_server.url + "scheduler/v1/prioritize", b'{"NodeNames":["a"]}')
    assert (status, answer) == (200, [{"Host": "a", "Score": 0}])


def test_post_nodes_fills_the_node_cache_from_a_node_list(example_server):
    body = json.dumps({"kind": "NodeList", "items": [node("n1", deny="true")]}).encode()
    assert post(example_server.url + "nodes", body) == (200, {})
    assert example_server.extender.labels("n1") == {"extender/deny": "true"}


def test_get_bindings_lists_the_bindings(example_server):
    args = {"PodName": "web", "PodNamespace": "default", "PodUID": "u1", "Node": "n1"}
    post(example_server.url + "bind", json.dumps(args).encode())
    with urllib.request.urlopen(example_server.url + "bindings", timeout=5) as response:
        assert json.loads(response.read()) == [
            {"namespace": "default", "name": "web", "uid": "u1", "node": "n1"}
        ]


@pytest.mark.parametrize(
    ("path", "body", "want_status", "want_error"),
    [
        ("sort", b"{}", 404, "unknown verb 'sort'"),
        ("filter", b"{not json", 400, "bad JSON: Expecting property name"),
        ("filter", b'{"Nodes": {"items": [{"spec": {}}]}}', 500, "KeyError: 'metadata'"),
    ],
    ids=["an unknown verb", "a body that is not JSON", "a node without metadata"],
)
def test_bad_requests_get_an_error_status(example_server, path, body, want_status, want_error):
    status, answer = post(example_server.url + path, body)
    assert status == want_status
    assert answer["error"].startswith(want_error)


def test_it_runs_as_a_script_and_answers_on_the_given_port():
    port = unused_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == (
            f"example extender listening on http://127.0.0.1:{port}/"
        )
        assert post(f"http://127.0.0.1:{port}/prioritize", b'{"NodeNames":["a"]}') == (
            200,
            [{"Host": "a", "Score": 0}],
        )
    finally:
        process.terminate()
        process.wait(timeout=5)
