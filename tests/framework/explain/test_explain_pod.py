"""explain_pod on small clusters built for one plugin each: the histogram, the closest nodes
with what is missing in people's words, what would requeue the pod, gates and the queue."""

from __future__ import annotations

import pytest

from framework.explain import explain_pod
from framework.explain.command import ExplainError
from framework.simulator import Simulation
from tests.framework.explain.manifests import CONFIG, explain, node, objects_text, pod


def closest_of(output):
    return {c["node"]: (c["plugin"], c["missing"]) for c in output["closest"]}


def test_it_says_how_much_cpu_is_missing_as_the_issue_words_it():
    output = explain(
        node("node-a", cpu="4"),
        pod("running", cpu="1500m", node_name="node-a"),
        pod("big", cpu="4"),
        pod_name="big",
    )
    [closest] = output["closest"]
    assert closest["missing"] == "needs 1.5 CPU more: 2.5 free of 4"
    assert closest["resources"] == [
        {
            "name": "cpu",
            "requested": 4000,
            "used": 1500,
            "free": 2500,
            "allocatable": 4000,
            "unit": "m",
        }
    ]


def test_memory_is_shown_as_kubectl_shows_quantities():
    output = explain(
        node("node-a", memory="2Gi"),
        pod("running", memory="1Gi", node_name="node-a"),
        pod("big", memory="1536Mi"),
        pod_name="big",
    )
    assert closest_of(output)["node-a"][1] == "needs 512Mi memory more: 1Gi free of 2Gi"


def test_the_pod_count_and_extended_resources_are_worded_too():
    output = explain(
        node("full", pods="1"),
        node("no-gpu", extra={"example.com/gpu": "1"}),
        pod("running", node_name="full"),
        pod("gpu-user", extra_requests={"example.com/gpu": "1"}, node_name="no-gpu"),
        pod("trainer", extra_requests={"example.com/gpu": "1"}),
        pod_name="trainer",
    )
    missing = dict((n, m) for n, (_, m) in closest_of(output).items())
    assert missing["no-gpu"] == "needs 1 example.com/gpu more: 0 free of 1"
    assert output["nodes"] == 2


def test_a_node_failing_two_plugins_is_not_among_the_closest():
    output = explain(
        node(
            "tainted-and-small",
            cpu="1",
            taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
        ),
        node("small", cpu="1"),
        pod("big", cpu="2"),
        pod_name="big",
    )
    assert list(closest_of(output)) == ["small"]
    assert sum(r["nodes"] for r in output["reasons"]) == output["nodes"] == 2


def test_it_names_the_untolerated_taint():
    output = explain(
        node("gpu-node", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]),
        pod("web"),
        pod_name="web",
    )
    assert closest_of(output) == {
        "gpu-node": ("TaintToleration", "taint `gpu=true:NoSchedule` not tolerated")
    }


def test_it_names_the_node_selector_label_and_the_failing_affinity_term():
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}
    output = explain(
        node("hdd", labels={"disktype": "hdd", "zone": "c"}),
        pod(
            "db",
            nodeSelector={"disktype": "ssd"},
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
                }
            },
        ),
        pod_name="db",
    )
    plugin, missing = closest_of(output)["hdd"]
    assert plugin == "NodeAffinity"
    assert "label `disktype=ssd` wanted by nodeSelector (node has `disktype=hdd`)" in missing
    assert "term 1: `zone In (a, b)` (node has `zone=c`)" in missing


def test_it_names_the_taken_host_port_and_the_cordoned_node():
    output = explain(
        node("busy"),
        node("cordoned", unschedulable=True),
        pod("old", node_name="busy", ports=[8080]),
        pod("new", ports=[8080]),
        pod_name="new",
    )
    assert closest_of(output) == {
        "busy": ("NodePorts", "host port 8080/TCP is taken"),
        "cordoned": (
            "NodeUnschedulable",
            "the node is cordoned (spec.unschedulable) and the pod does not tolerate "
            "`node.kubernetes.io/unschedulable:NoSchedule`",
        ),
    }


def test_it_says_which_domain_would_break_the_spread():
    constraint = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}},
    }
    output = explain(
        node("a1", labels={"zone": "zone-a"}),
        node("b1", labels={"zone": "zone-b"}, taints=[{"key": "x", "effect": "NoSchedule"}]),
        pod("web-0", node_name="a1", labels={"app": "web"}),
        pod("web-1", node_name="a1", labels={"app": "web"}),
        pod("web-2", labels={"app": "web"}, topologySpreadConstraints=[constraint]),
        pod_name="web-2",
    )
    assert closest_of(output)["a1"] == (
        "PodTopologySpread",
        "zone=zone-a would make the skew 3 > maxSkew 1 (2 matching pod(s) there)",
    )
    spread = next(r for r in output["requeueOn"] if r["plugin"] == "PodTopologySpread")
    assert spread["events"][0] == "a Pod matching `app=web` deleted on a node of zone=zone-a"


def test_it_says_which_affinity_term_finds_no_pod_in_the_nodes_domain():
    term = {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "zone"}
    required = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    output = explain(
        node("a1", labels={"zone": "zone-a"}),
        node("b1", labels={"zone": "zone-b"}, taints=[{"key": "k", "effect": "NoSchedule"}]),
        pod("cache", node_name="b1", labels={"app": "cache"}),
        pod("web", affinity={"podAffinity": required}),
        pod_name="web",
    )
    assert closest_of(output) == {
        "a1": ("InterPodAffinity", "affinity: no pod matching `app=cache` runs in zone=zone-a"),
        "b1": ("TaintToleration", "taint `k:NoSchedule` not tolerated"),
    }


def test_the_histogram_sums_to_the_node_count_and_names_the_most_rejecting_plugin():
    output = explain(
        node("a", cpu="1"),
        node("b", cpu="1"),
        node("c", taints=[{"key": "k", "effect": "NoSchedule"}]),
        pod("big", cpu="2"),
        pod_name="big",
    )
    assert output["reasons"] == [
        {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu", "nodes": 2},
        {"plugin": "TaintToleration", "reason": "node(s) had untolerated taint(s)", "nodes": 1},
    ]
    assert output["mostRejecting"] == "NodeResourcesFit"
    assert output["message"].startswith("0/3 nodes are available")


def test_it_words_the_events_that_would_requeue_the_pod():
    output = explain(node("a", cpu="1"), pod("big", cpu="2"), pod_name="big")
    [fit] = output["requeueOn"]
    assert fit["plugin"] == "NodeResourcesFit"
    assert "a Node added or its allocatable grown" in fit["events"]
    assert any(e.startswith("a Pod deleted") for e in fit["events"])
    assert output["nextTry"]["state"] == "unschedulable"
    assert output["nextTry"]["inSeconds"] == pytest.approx(300.0, abs=1)


def test_a_gated_pod_lists_its_gates():
    output = explain(
        node("a"),
        pod("held", schedulingGates=[{"name": "example.com/quota"}]),
        pod_name="held",
    )
    assert output["result"] == "Gated"
    assert output["gates"] == ["example.com/quota"]
    assert output["nextTry"]["state"] == "gated"
    assert output["reasons"] == []
    assert output["requeueOn"] == [
        {"plugin": "SchedulingGates", "events": ["this pod's scheduling gates removed"]}
    ]


def test_a_scheduled_pod_has_nothing_to_explain():
    output = explain(node("a"), pod("web"), pod_name="web")
    assert output["result"] == "Scheduled"
    assert output["reasons"] == output["closest"] == []


def test_an_unknown_pod_is_named():
    with pytest.raises(ExplainError, match="pod default/ghost is not in the objects"):
        explain(node("a"), pod_name="ghost")


def test_the_queue_given_by_the_caller_gives_the_time_to_the_next_try():
    simulation = Simulation(CONFIG, objects_text(node("a", cpu="1"), pod("big", cpu="2")))
    [report] = simulation.run()
    cluster = simulation.cluster
    objects = [o for kind in cluster.kinds() for o in cluster.list(kind)]
    big = cluster.get("Pod", "big", "default")
    queue = {"state": "backoff", "nextTryAt": 1_767_225_610.0, "gates": []}
    output = explain_pod(big, objects, report.to_dict(), queue=queue, now=1_767_225_606.8)
    assert output.to_dict()["nextTry"] == {
        "state": "backoff",
        "at": 1_767_225_610.0,
        "inSeconds": 3.2,
    }
    assert output.to_dict()["reasons"] == [
        {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu", "nodes": 1}
    ]
