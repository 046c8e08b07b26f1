"""The pod-group cycle (schedule_one_podgroup.py) beyond the recorded scenarios: quorum below
the group's size, member order, the group's condition, members of several profiles."""

from __future__ import annotations

import yaml

from framework.admission.admit import create_objects
from framework.api.loader import decode_objects
from framework.debugger.breakpoints import parse_breakpoint
from framework.debugger.session import ABORT, RUN, Debugger
from framework.features import FeatureGates
from framework.simulator import Simulation

GANG_GATES = FeatureGates({"GenericWorkload": True, "GangScheduling": True})
CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
WAITING = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, "
    "one or more plugins asked to wait and no plugin rejected pod"
)


def node(name: str, cpu: str = "4") -> dict:
    allocatable = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }


def gang(name: str, min_count: int) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def member(name: str, group: str, cpu: str, **spec) -> dict:
    container = {"name": "c", "image": "pause", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], "schedulingGroup": {"podGroupName": group}, **spec},
    }


def simulate(*objects: dict, config: str = CONFIG) -> Simulation:
    simulation = Simulation(config, yaml.safe_dump_all(objects), features=GANG_GATES)
    simulation.run()
    return simulation


def outcome(simulation: Simulation) -> dict:
    pods = {}
    for pod in simulation.cluster.list("Pod"):
        condition = pod.status.condition("PodScheduled")
        pods[pod.name] = pod.spec.node_name or (condition.message if condition else None)
    return pods


def group_condition(simulation: Simulation, name: str) -> tuple[str, str, str]:
    (condition,) = simulation.cluster.get("PodGroup", name, "default").conditions
    return condition.status, condition.reason, condition.message


def test_a_gang_is_feasible_once_min_count_members_fit_and_the_rest_fail_alone():
    high = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 10,
    }
    simulation = simulate(
        high,
        node("w0"),
        node("w1"),
        gang("g", 2),
        member("g-0", "g", "3"),
        member("g-1", "g", "3"),
        member("g-2", "g", "3", priorityClassName="high"),
    )
    placed = outcome(simulation)
    # By priority, then first attempt: g-2, g-0, then g-1, which finds no room left.
    assert {placed["g-2"], placed["g-0"]} == {"w0", "w1"}
    assert placed["g-1"].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert group_condition(simulation, "g") == ("True", "Scheduled", "")


def test_members_that_fit_in_a_group_short_of_its_quorum_say_they_waited():
    simulation = simulate(
        node("w0"), gang("g", 2), member("g-0", "g", "3"), member("g-1", "g", "3")
    )
    messages = sorted(outcome(simulation).values())
    assert messages[1] == WAITING
    assert messages[0].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert group_condition(simulation, "g") == (
        "False",
        "Unschedulable",
        "pod group is unschedulable",
    )


def test_members_of_several_profiles_fail_together_with_upstreams_error():
    profiles = "".join(f"- schedulerName: {n}\n" for n in ("default-scheduler", "b", "c"))
    simulation = simulate(
        node("w0"),
        gang("g", 3),
        member("g-0", "g", "1"),
        member("g-1", "g", "1", schedulerName="b"),
        member("g-2", "g", "1", schedulerName="c"),
        config=CONFIG + "profiles:\n" + profiles,
    )
    # The first member whose profile differs from the first one's is named.
    error = (
        "all pods in a single pod group should have the same .spec.schedulerName set, "
        'got: "b" and "default-scheduler"'
    )
    assert outcome(simulation) == {"g-0": error, "g-1": error, "g-2": error}
    assert {r.attempt.result for r in simulation.reports} == {"Error"}


def test_an_abort_mid_trial_fails_the_group_with_an_error_and_leaves_nothing_assumed():
    aborted = []

    def abort_first_reserve(stop):
        if not aborted:
            aborted.append(stop.pod)
            return ABORT
        return RUN

    debugger = Debugger([parse_breakpoint("reserve")], abort_first_reserve)
    simulation = Simulation(
        CONFIG,
        yaml.safe_dump_all(
            [node("w0"), node("w1"), gang("g", 2), member("g-0", "g", "3"), member("g-1", "g", "3")]
        ),
        features=GANG_GATES,
        debugger=debugger,
    )
    simulation.run()

    first = [(r.attempt.pod, r.attempt.result, r.attempt.message) for r in simulation.reports[:2]]
    # The member that failed keeps its own error; the others get the group's.
    own = "aborted by the debugger at reserve"
    group = f"failed to schedule other pod from a pod group: {own}"
    assert first == [("default/g-0", "Error", own), ("default/g-1", "Error", group)]
    assert simulation.scheduler.snapshot.assumed_pods == {}
    # Errored pods back off, and a simulation ends when only those are left.
    backing_off = sorted(p.name for p in simulation.scheduler.queue.pods_in_backoff_q())
    assert backing_off == ["g-0", "g-1"]


def test_a_member_added_after_its_gang_was_scheduled_joins_it_alone():
    objects, _ = create_objects(
        decode_objects(
            yaml.safe_dump_all(
                [node("w0"), gang("g", 2), member("g-0", "g", "1"), member("g-1", "g", "1")]
            )
        )[0]
    )
    simulation = Simulation(CONFIG, "", features=GANG_GATES)
    simulation.create(objects)
    late = create_objects(decode_objects(yaml.safe_dump(member("g-2", "g", "1")))[0])[0]
    simulation.create(late)

    assert outcome(simulation) == {"g-0": "w0", "g-1": "w0", "g-2": "w0"}
    assert group_condition(simulation, "g") == ("True", "Scheduled", "")
