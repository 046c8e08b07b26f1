"""Workload and PodGroup (scheduling.k8s.io/v1alpha2) and a pod's ``spec.schedulingGroup``,
created as kube-apiserver v1.36.2 creates them with the workload-aware gates on: its answers,
recorded in tests/fixtures/oracle-workloads/apiserver (scripts/record-workload-oracle), replayed
through the engine's decoding, admission and validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.admission.admit import create_objects
from framework.api.errors import ObjectError
from framework.api.loader import decode_new_object, load_objects
from framework.api.pod_group import (
    DEFAULT_DISRUPTION_MODE,
    POD_GROUP_PROTECTION_FINALIZER,
    PodGroup,
    Workload,
)

RECORDED = Path(__file__).parents[2] / "fixtures" / "oracle-workloads" / "apiserver"
ANSWERS = json.loads((RECORDED / "invalid.json").read_text())


def engine_answer(manifest: dict) -> str | None:
    """What the engine says creating the object alone, or None when it is created."""
    try:
        _, refused = create_objects([decode_new_object(manifest)])
    except ObjectError as err:
        return str(err)
    return str(refused[0]) if refused else None


def problem(message: str) -> str:
    """The part of a refusal that names fields and problems: both sides name the object in
    their own way (kube-apiserver ``PodGroup.scheduling.k8s.io "g"``, the engine
    ``PodGroup "default/g"``)."""
    for lead in (" is invalid: ", "strict decoding error: ", " is forbidden: "):
        if lead in message:
            return message.split(lead, 1)[1]
    return message.split('": ', 1)[1]


@pytest.mark.parametrize("answer", ANSWERS, ids=[answer["case"] for answer in ANSWERS])
def test_the_engine_answers_as_kube_apiserver_did(answer):
    got = engine_answer(answer["object"])
    if answer["code"] == 201:
        assert got is None
        return
    assert got is not None, f"kube-apiserver refused it ({answer['message']}); the engine did not"
    if answer["code"] == 403:
        # Admission: the engine names the field it read, as it does for a pod's class.
        assert problem(got).endswith(problem(answer["message"]))
    else:
        assert problem(got) == problem(answer["message"])


def test_every_rule_of_the_recording_is_refused_by_some_case():
    refused = [answer for answer in ANSWERS if answer["code"] >= 400]
    assert len(refused) >= 25
    assert {answer["code"] for answer in refused} == {400, 403, 422}


def test_a_standalone_pod_group_gets_kube_apiservers_defaults():
    recorded = json.loads((RECORDED / "defaults.json").read_text())
    manifest = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "defaults", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }
    created, refused = create_objects([decode_new_object(manifest)])
    assert refused == []
    stored = created[0].to_dict()
    assert stored["metadata"]["finalizers"] == recorded["finalizers"]
    for key in ("disruptionMode", "priority", "schedulingPolicy"):
        assert stored["spec"][key] == recorded["spec"][key]
    assert recorded["finalizers"] == [POD_GROUP_PROTECTION_FINALIZER]
    assert recorded["spec"]["disruptionMode"] == DEFAULT_DISRUPTION_MODE


def test_a_pod_group_takes_its_priority_from_its_class():
    objects = load_objects(
        """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g}
spec: {priorityClassName: high, schedulingPolicy: {gang: {minCount: 2}}}
"""
    )
    created, refused = create_objects([decode_new_object(o.to_dict()) for o in objects])
    assert refused == []
    assert created[1].spec.priority == 1000


def test_the_engine_reads_what_the_scheduler_needs_of_each_kind():
    group, workload, pod = load_objects(
        """
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: trainer}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
  disruptionMode: PodGroup
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: job}
spec:
  podGroupTemplates:
  - {name: workers, schedulingPolicy: {basic: {}}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer-0}
spec:
  schedulingGroup: {podGroupName: trainer}
  containers: [{name: c, image: i}]
"""
    )
    assert isinstance(group, PodGroup) and isinstance(workload, Workload)
    policy = group.spec.scheduling_policy
    assert (policy.gang, policy.min_count) == (True, 4)
    assert group.spec.topology_keys == ["topology.kubernetes.io/zone"]
    assert group.spec.disruption_mode == "PodGroup"
    template = workload.pod_group_templates[0]
    assert (template.name, template.scheduling_policy.gang) == ("workers", False)
    assert pod.spec.pod_group_name == "trainer"
