"""explain agrees with the oracle-recorded attempts it reads (issue 26, "Done when").

Each scenario of tests/fixtures/oracle is replayed as recorded (one pod at a time, the real
scheduler's picks among ties). For every pod that ends unschedulable, the cluster is taken as
that attempt saw it and explained. Then:
- the histogram's counts sum to the node count;
- each closest node really fails exactly one plugin: the attempt rejected it with that plugin,
  and once what explain says is missing is supplied the pod fits there (a what-if rerun of
  the attempt over the changed objects) — for the resource, taint and label cases.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from framework.api.quantity import Quantity
from framework.api.taints import Toleration
from framework.explain import explain_pod
from framework.simulator import AttemptReport, Simulation
from framework.what_if import what_if
from tests.framework.explain import manifests
from tests.framework.test_oracle import SCENARIOS, replay_simulation

TAINT = re.compile(r"taint `([^`=:]+)(?:=([^`:]*))?:(\w+)` not tolerated")
LABEL = re.compile(r"label `([^`=]+)=([^`]*)` wanted by nodeSelector")


@cache
def unschedulable_attempts(scenario):
    """(pod, objects the attempt saw, attempt dict, simulation) per unschedulable pod."""
    _, simulation = replay_simulation(scenario)
    out = []
    for pending in list(simulation.pending):
        before = len(simulation.reports)
        simulation.create([pending])
        reports = simulation.reports[before:]
        if not reports or reports[-1].attempt.result == "Scheduled":
            continue
        cluster = simulation.cluster
        objects = [o for kind in cluster.kinds() for o in cluster.list(kind)]
        current = cluster.get("Pod", pending.name, pending.namespace)
        out.append((current, objects, reports[-1].to_dict(), simulation))
        cluster.delete(current)  # as recorded: an unschedulable pod is deleted at once
    return out


def explained(scenario):
    for pod, objects, attempt, simulation in unschedulable_attempts(scenario):
        explanation = explain_pod(
            pod,
            objects,
            attempt,
            profile=simulation.configuration,
            registry=simulation.registry,
            features=simulation.features,
        )
        yield pod, objects, attempt, simulation, explanation.to_dict()


def test_the_scenarios_have_unschedulable_pods_to_explain():
    assert sum(len(unschedulable_attempts(s)) for s in SCENARIOS) >= 2


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_histogram_sums_to_the_node_count(scenario):
    for _, objects, _, _, output in explained(scenario):
        nodes = sum(1 for o in objects if o.kind == "Node")
        assert output["nodes"] == nodes
        assert sum(r["nodes"] for r in output["reasons"]) == nodes


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_closest_nodes_were_rejected_by_that_one_plugin(scenario):
    for _, _, attempt, _, output in explained(scenario):
        for closest in output["closest"]:
            verdicts = attempt["filter"][closest["node"]]
            failing = [p for p, v in verdicts.items() if v["code"] != "Success"]
            assert failing == [closest["plugin"]], (closest, verdicts)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_supplying_what_is_missing_makes_the_pod_fit_there(scenario):
    checked = 0
    for pod, objects, _, simulation, output in explained(scenario):
        for closest in output["closest"]:
            fits = fits_after_supplying(closest, pod, objects, simulation)
            assert fits in (True, None), closest
            checked += fits is True
    assert checked > 0 or not any(output["closest"] for *_, output in explained(scenario))


def test_supplying_the_missing_toleration_makes_the_pod_fit_there():
    """The scenarios have no node that only a taint keeps out: a built one has."""
    text = manifests.objects_text(
        manifests.node("gpu-node", taints=[{"key": "gpu", "value": "1", "effect": "NoSchedule"}]),
        manifests.node("dedicated", taints=[{"key": "team", "effect": "NoExecute"}]),
        manifests.pod("web", cpu="1"),
    )
    simulation = Simulation(manifests.CONFIG, text)
    [report] = simulation.run()
    cluster = simulation.cluster
    objects = [o for kind in cluster.kinds() for o in cluster.list(kind)]
    web = cluster.get("Pod", "web", "default")
    output = explain_pod(web, objects, report.to_dict(), profile=simulation.configuration)
    assert [c["plugin"] for c in output.to_dict()["closest"]] == ["TaintToleration"] * 2
    for closest in output.to_dict()["closest"]:
        assert fits_after_supplying(closest, web, objects, simulation) is True
        assert fits_after_supplying(closest, web, objects, simulation, supplied=False) is False


def fits_after_supplying(closest, pod, objects, simulation, supplied=True):
    """Whether the pod passes every Filter on the closest node (and so is schedulable) once
    what explain says is missing is supplied (a what-if rerun), or None when that case is
    not automated.
    ``supplied=False`` reruns without the change: the control."""
    fixed = supply(closest, pod, objects)
    if fixed is None:
        return None
    fixed_pod, fixed_objects = fixed if supplied else (pod, objects)
    result = what_if(
        simulation.configuration,
        fixed_objects,
        fixed_pod,
        fixed_pod.spec.scheduler_name,
        registry=simulation.registry,
        features=simulation.features,
    )
    verdicts = AttemptReport(result.attempt, result.events).filter_table()
    statuses = [v["code"] for v in verdicts.get(closest["node"], {}).values()]
    passes = bool(statuses) and all(code == "Success" for code in statuses)
    assert not passes or result.attempt.result == "Scheduled"
    return passes


def supply(closest, pod, objects):
    """The pod and objects changed as explain says would help, or None if not automated."""
    if closest.get("resources"):
        return pod, [grown(o, closest) if is_node(o, closest) else o for o in objects]
    if closest["plugin"] == "TaintToleration":
        tolerant = pod.deep_copy()
        for key, value, effect in TAINT.findall(closest["missing"]):
            operator = "Equal" if value else "Exists"
            tolerant.spec.tolerations.append(Toleration(key, operator, value, effect))
        return tolerant, [tolerant if same_pod(o, pod) else o for o in objects]
    if closest["plugin"] == "NodeAffinity" and LABEL.search(closest["missing"]):
        return pod, [labelled(o, closest) if is_node(o, closest) else o for o in objects]
    return None


def grown(node, closest):
    node = node.deep_copy()
    for resource in closest["resources"]:
        short = resource["requested"] - resource["free"]
        name = resource["name"]
        current = node.status.allocatable[name]
        if resource["unit"] == "m":
            node.status.allocatable[name] = Quantity.from_milli(current.milli_value() + short)
        elif name == "pods":
            node.status.allocatable[name] = Quantity.from_value(current.value() + 1)
        else:
            node.status.allocatable[name] = Quantity.from_value(current.value() + short)
    return node


def labelled(node, closest):
    node = node.deep_copy()
    for key, value in LABEL.findall(closest["missing"]):
        node.metadata.labels[key] = value
    return node


def is_node(obj, closest):
    return obj.kind == "Node" and obj.name == closest["node"]


def same_pod(obj, pod):
    return obj.kind == "Pod" and obj.key == pod.key
