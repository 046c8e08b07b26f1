"""Simulations with the example extender: a configuration's extenders take part in scheduling.

The example server (examples/extender/server.py) runs on 127.0.0.1 for each test; its rules
read node labels (``extender/deny``, ``extender/score``, ``extender/no-preemption``,
``extender/bind``).
"""

from __future__ import annotations

from typing import Any

import yaml

from examples.extender.server import ExampleExtender, ExtenderServer
from framework.simulator import Simulation
from tests.framework.extender.servers import serving, unused_port

DENIED = "node(s) denied by the example extender"
DENIED_FOR_GOOD = "node(s) denied for good by the example extender"


def configuration(*extenders: dict[str, Any]) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "extenders": list(extenders),
        }
    )


def extender(url: str, **fields: Any) -> dict[str, Any]:
    return {"urlPrefix": url, "filterVerb": "filter", **fields}


def node(name: str, cpu: str = "4", **labels: str) -> dict[str, Any]:
    allocatable = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {f"extender/{k}": v for k, v in labels.items()}},
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }


def pod(name: str, cpu: str = "100m", node_name: str = "", priority: int = 0, **resources):
    requests = {"cpu": cpu, **resources}
    # Extended resources cannot be overcommitted: the API server wants their limits too.
    limits = dict(resources)
    container = {"name": "c", "image": "busybox", "resources": {"requests": requests}}
    if limits:
        container["resources"]["limits"] = limits
    spec: dict[str, Any] = {
        "containers": [container],
        "priority": priority,
    }
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def simulation(config: str, *objects: dict[str, Any]) -> Simulation:
    return Simulation(config, yaml.safe_dump_all(objects))


def first_attempts(sim: Simulation) -> list[dict[str, Any]]:
    """One attempt per pending pod, so a pod failing with an error is not retried forever."""
    for pending in sim.pending:
        sim.clock.step(0.001)
        sim.cluster.add(pending)
        sim.scheduler.schedule_one()
    return [report.to_dict() for report in sim.reports]


# -- Filter ------------------------------------------------------------------------------------


def test_nodes_the_extender_filters_out_are_counted_in_the_failure_message(example_server):
    sim = simulation(
        configuration(extender(example_server.url)),
        node("n1", deny="true"),
        node("n2", deny="unresolvable"),
        node("n3", deny="true"),
        pod("web"),
    )
    (attempt,) = first_attempts(sim)
    assert (attempt["result"], attempt["evaluatedNodes"], attempt["feasibleNodes"]) == (
        "Unschedulable",
        3,
        0,
    )
    assert attempt["message"] == (
        f"0/3 nodes are available: 1 {DENIED_FOR_GOOD}, 2 {DENIED}. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
        "2 No preemption victims found for incoming pod."
    )


def test_a_pod_goes_to_the_only_node_the_extender_lets_pass(example_server):
    sim = simulation(
        configuration(extender(example_server.url)),
        node("n1", deny="true"),
        node("n2"),
        node("n3", deny="unresolvable"),
        pod("web"),
    )
    assert [(a["result"], a["node"]) for a in first_attempts(sim)] == [("Scheduled", "n2")]
    (verb, request) = example_server.extender.requests[0]
    assert verb == "filter"
    assert [n["metadata"]["name"] for n in request["Nodes"]["items"]] == ["n1", "n2", "n3"]


def test_an_extender_error_answer_fails_the_cycle_with_its_text(example_server):
    web = pod("web")
    web["metadata"]["labels"] = {"extender/error": "inventory-unreachable"}
    sim = simulation(configuration(extender(example_server.url)), node("n1"), node("n2"), web)
    (attempt,) = first_attempts(sim)
    assert (attempt["result"], attempt["message"]) == ("Error", "inventory-unreachable")
    condition = sim.cluster.get("Pod", "web", "default").status.condition("PodScheduled")
    assert (condition.reason, condition.message) == ("SchedulerError", "inventory-unreachable")


# -- Prioritize --------------------------------------------------------------------------------

SCORED_NODES = (node("n1", score="0"), node("n2", score="5"), node("n3", score="10"))


def test_extender_scores_are_added_to_the_final_scores(example_server):
    prioritizing = extender(example_server.url, prioritizeVerb="prioritize", weight=2)
    with_extender = first_attempts(
        simulation(configuration(prioritizing), *SCORED_NODES, pod("web"))
    )
    without = first_attempts(simulation(configuration(), *SCORED_NODES, pod("web")))
    added = {
        name: total - without[0]["finalScores"][name]
        for name, total in with_extender[0]["finalScores"].items()
    }
    # score * weight * (MaxNodeScore 100 / MaxExtenderPriority 10)
    assert added == {"n1": 0, "n2": 5 * 2 * 10, "n3": 10 * 2 * 10}
    assert with_extender[0]["node"] == "n3"


# -- Bind --------------------------------------------------------------------------------------


def test_a_binding_extender_binds_instead_of_default_binder(example_server):
    binding = extender(example_server.url, bindVerb="bind")
    sim = simulation(configuration(binding), node("n1"), pod("web"))
    web_uid = sim.pending[0].uid
    assert [(a["result"], a["node"]) for a in first_attempts(sim)] == [("Scheduled", "n1")]
    assert example_server.extender.bindings == [
        {"namespace": "default", "name": "web", "uid": web_uid, "node": "n1"}
    ]
    # Creating the Binding is the extender's job; the example only records it.
    assert sim.cluster.get("Pod", "web", "default").spec.node_name == ""


def test_a_binding_refused_by_the_extender_fails_the_binding_cycle(example_server):
    binding = extender(example_server.url, bindVerb="bind")
    sim = simulation(configuration(binding), node("n1", bind="refuse"), pod("web"))
    (attempt,) = first_attempts(sim)
    assert (attempt["result"], attempt["node"]) == ("Error", None)
    assert attempt["message"] == "node n1 refuses bindings from the example extender"


# -- failures ----------------------------------------------------------------------------------


def test_an_ignorable_extender_that_is_down_is_skipped():
    url = f"http://127.0.0.1:{unused_port()}/"
    sim = simulation(
        configuration(extender(url, prioritizeVerb="prioritize", weight=1, ignorable=True)),
        node("n1"),
        pod("web"),
        pod("api"),
    )
    attempts = first_attempts(sim)
    assert [(a["result"], a["node"]) for a in attempts] == [("Scheduled", "n1")] * 2


def test_an_extender_that_is_down_fails_the_cycle_with_upstream_s_error():
    port = unused_port()
    sim = simulation(
        configuration(extender(f"http://127.0.0.1:{port}/")), node("n1"), node("n2"), pod("web")
    )
    (attempt,) = first_attempts(sim)
    message = (
        f'Post "http://127.0.0.1:{port}/filter": dial tcp 127.0.0.1:{port}: connect: '
        "connection refused"
    )
    assert (attempt["result"], attempt["node"], attempt["message"]) == ("Error", None, message)
    event = sim.cluster.events[-1]
    assert (event["reason"], event["note"]) == ("FailedScheduling", message)


def test_an_extender_slower_than_its_http_timeout_fails_the_cycle():
    with serving(ExtenderServer("127.0.0.1", 0, ExampleExtender(delay=2.0))) as slow:
        sim = simulation(
            configuration(extender(slow.url, httpTimeout="200ms")),
            node("n1"),
            node("n2"),
            pod("web"),
        )
        (attempt,) = first_attempts(sim)
    assert attempt["result"] == "Error"
    assert attempt["message"] == (
        f'Post "{slow.url}filter": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)"
    )


def test_a_single_feasible_node_skips_the_prioritizing_extender(example_server):
    prioritizing = {"urlPrefix": example_server.url, "prioritizeVerb": "prioritize", "weight": 1}
    sim = simulation(configuration(prioritizing), node("n1"), pod("web"))
    assert [(a["result"], a["node"]) for a in first_attempts(sim)] == [("Scheduled", "n1")]
    assert example_server.extender.requests == []


# -- node cache -------------------------------------------------------------------------------


def test_a_node_cache_capable_extender_gets_node_names_only(example_server):
    nodes = (node("n1", deny="true"), node("n2"))
    example_server.extender.learn_nodes(nodes)  # what its own node cache would know
    caching = extender(example_server.url, nodeCacheCapable=True)
    sim = simulation(configuration(caching), *nodes, pod("web"))
    assert [(a["result"], a["node"]) for a in first_attempts(sim)] == [("Scheduled", "n2")]
    ((verb, request),) = example_server.extender.requests
    assert (verb, request["Nodes"], request["NodeNames"]) == ("filter", None, ["n1", "n2"])


# -- Preempt -----------------------------------------------------------------------------------

FULL_NODES = (
    node("n1", cpu="1", **{"no-preemption": "true"}),
    node("n2", cpu="1"),
)
FULL_CLUSTER = (
    *FULL_NODES,
    pod("low-n1", cpu="1", node_name="n1", priority=0),
    pod("low-n2", cpu="1", node_name="n2", priority=5),
    pod("urgent", cpu="1", priority=100),
)


def test_without_the_extender_preemption_would_evict_on_the_first_node():
    sim = simulation(configuration(), *FULL_CLUSTER)
    (attempt,) = first_attempts(sim)
    assert (attempt["nominatedNode"], attempt["victims"]) == ("n1", ["default/low-n1"])


def test_the_extender_narrows_preemption_candidates(example_server):
    # Every node fails the Filter plugins, so the extender's Filter never sees them: it knows
    # their labels from its own cache.
    example_server.extender.learn_nodes(FULL_NODES)
    preempting = extender(example_server.url, preemptVerb="preempt")
    sim = simulation(configuration(preempting), *FULL_CLUSTER)
    (attempt,) = first_attempts(sim)
    assert attempt["result"] == "Unschedulable"
    assert (attempt["nominatedNode"], attempt["victims"]) == ("n2", ["default/low-n2"])
    ((verb, request),) = example_server.extender.requests
    assert (verb, request["NodeNameToMetaVictims"]) == ("preempt", None)
    sent = request["NodeNameToVictims"]
    assert {n: [p["metadata"]["name"] for p in v["Pods"]] for n, v in sent.items()} == {
        "n1": ["low-n1"],
        "n2": ["low-n2"],
    }


def test_a_preempting_extender_that_is_down_ends_preemption_with_its_error():
    port = unused_port()
    down = {"urlPrefix": f"http://127.0.0.1:{port}/", "preemptVerb": "preempt"}
    (attempt,) = first_attempts(simulation(configuration(down), *FULL_CLUSTER))
    assert (attempt["result"], attempt["nominatedNode"], attempt["victims"]) == (
        "Unschedulable",
        None,
        [],
    )
    assert attempt["message"] == (
        f'0/2 nodes are available: 2 Insufficient cpu. preemption: Post "http://127.0.0.1:{port}'
        f'/preempt": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )


def test_an_ignorable_preempting_extender_that_is_down_is_skipped():
    down = {"urlPrefix": f"http://127.0.0.1:{unused_port()}/", "preemptVerb": "preempt"}
    sim = simulation(configuration({**down, "ignorable": True}), *FULL_CLUSTER)
    (attempt,) = first_attempts(sim)
    assert (attempt["nominatedNode"], attempt["victims"]) == ("n1", ["default/low-n1"])


def test_a_node_cache_capable_extender_gets_victims_by_uid(example_server):
    example_server.extender.learn_nodes(FULL_NODES)
    preempting = extender(example_server.url, preemptVerb="preempt", nodeCacheCapable=True)
    sim = simulation(configuration(preempting), *FULL_CLUSTER)
    uids = {p.name: p.uid for p in sim.cluster.list("Pod")}
    (attempt,) = first_attempts(sim)
    assert (attempt["nominatedNode"], attempt["victims"]) == ("n2", ["default/low-n2"])
    ((_, request),) = example_server.extender.requests
    assert request["NodeNameToVictims"] is None
    assert request["NodeNameToMetaVictims"] == {
        "n1": {"Pods": [{"UID": uids["low-n1"]}], "NumPDBViolations": 0},
        "n2": {"Pods": [{"UID": uids["low-n2"]}], "NumPDBViolations": 0},
    }


# -- managed resources ---------------------------------------------------------------------------


def test_resources_ignored_by_the_scheduler_are_left_to_the_extender(example_server):
    gpu = {"name": "example.com/gpu", "ignoredByScheduler": True}
    managing = extender(example_server.url, managedResources=[gpu])
    objects = (node("n1"), pod("trainer", **{"example.com/gpu": "1"}), pod("web"))
    without = first_attempts(simulation(configuration(), *objects))
    assert (without[0]["result"], without[0]["message"]) == (
        "Unschedulable",
        "0/1 nodes are available: 1 Insufficient example.com/gpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    )
    attempts = first_attempts(simulation(configuration(managing), *objects))
    assert [(a["pod"], a["result"]) for a in attempts] == [
        ("default/trainer", "Scheduled"),
        ("default/web", "Scheduled"),
    ]
    asked = [args["Pod"]["metadata"]["name"] for _, args in example_server.extender.requests]
    assert asked == ["trainer"]  # the extender is only interested in pods using its resources
