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
from framework.api.validation.pod_group import validate_pod_group, validate_workload

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


def pod_group(**spec) -> dict:
    spec.setdefault("schedulingPolicy", {"gang": {"minCount": 2}})
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": spec,
    }


def topology(key: str) -> dict:
    return {"topology": [{"key": key}]}


def reference(workload: str, template: str) -> dict:
    return {"workload": {"workloadName": workload, "podGroupTemplateName": template}}


# The facts of upstream's declarative validation table for PodGroup
# (pkg/registry/scheduling/podgroup/declarative_validation_test.go, gates on): which field
# each case refuses, none for a valid one.
UPSTREAM_TABLE = [
    ("valid", pod_group(), []),
    ("valid with basic policy", pod_group(schedulingPolicy={"basic": {}}), []),
    ("valid with a template reference", pod_group(podGroupTemplateRef=reference("w", "t")), []),
    (
        "template reference with an invalid workload name",
        pod_group(podGroupTemplateRef=reference("work/load", "t")),
        ["spec.podGroupTemplateRef.workload.workloadName"],
    ),
    (
        "template reference with a too long workload name",
        pod_group(podGroupTemplateRef=reference("g" * 254, "t")),
        ["spec.podGroupTemplateRef.workload.workloadName"],
    ),
    (
        "template reference with a too long template name",
        pod_group(podGroupTemplateRef=reference("w", "g" * 254)),
        ["spec.podGroupTemplateRef.workload.podGroupTemplateName"],
    ),
    ("valid with schedulingConstraints", pod_group(schedulingConstraints=topology("foo")), []),
    ("valid with empty schedulingConstraints", pod_group(schedulingConstraints={}), []),
    (
        "valid with topology key with DNS prefix",
        pod_group(schedulingConstraints=topology("example.com/Foo")),
        [],
    ),
    (
        "valid with topology key with prefix with max length",
        pod_group(schedulingConstraints=topology("a" * 253 + "/" + "b" * 63)),
        [],
    ),
    *[
        (
            f"topology key {case}",
            pod_group(schedulingConstraints=topology(key)),
            ["spec.schedulingConstraints.topology[0].key"],
        )
        for case, key in [
            ("with prefix exceeding max prefix length", "a" * 254 + "/foo"),
            ("with prefix exceeding max name length", "foo/" + "b" * 64),
            ("without prefix exceeding max length", "b" * 64),
            ("with invalid characters", "Example.com/Foo"),
        ]
    ],
    ("pod disruption mode", pod_group(disruptionMode="Pod"), []),
    ("pod group disruption mode", pod_group(disruptionMode="PodGroup"), []),
    ("invalid disruption mode", pod_group(disruptionMode="Invalid"), ["spec.disruptionMode"]),
    (
        "invalid priority class name",
        pod_group(priorityClassName="high/priority"),
        ["spec.priorityClassName"],
    ),
    ("valid negative priority", pod_group(priority=-2147483648), []),
    ("too high priority", pod_group(priority=1_000_000_001), ["spec.priority"]),
]


@pytest.mark.parametrize(
    "manifest, fields", [case[1:] for case in UPSTREAM_TABLE], ids=[c[0] for c in UPSTREAM_TABLE]
)
def test_upstreams_validation_table(manifest, fields):
    assert [error.field for error in validate_pod_group(manifest)] == fields


def workload(*templates: dict, controller: dict | None = None) -> dict:
    spec: dict = {"podGroupTemplates": list(templates or [template()])}
    if controller is not None:
        spec["controllerRef"] = controller
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": spec,
    }


def template(name: str = "main", **fields) -> dict:
    fields.setdefault("schedulingPolicy", {"gang": {"minCount": 2}})
    return {"name": name, **fields}


def controller(group: str, kind: str, name: str) -> dict:
    return {"apiGroup": group, "kind": kind, "name": name}


T0 = "spec.podGroupTemplates[0]"
# The facts of upstream's table for Workload (pkg/registry/scheduling/workload).
UPSTREAM_WORKLOAD_TABLE = [
    ("valid", workload(), []),
    (
        "too many templates",
        workload(*[template(f"t{i}") for i in range(9)]),
        ["spec.podGroupTemplates"],
    ),
    ("invalid template name", workload(template("Invalid_Name")), [f"{T0}.name"]),
    ("duplicate template names", workload(template(), template()), ["spec.podGroupTemplates[1]"]),
    (
        "gang minCount negative",
        workload(template(schedulingPolicy={"gang": {"minCount": -1}})),
        [f"{T0}.schedulingPolicy.gang.minCount"],
    ),
    ("valid with controllerRef", workload(controller=controller("apps", "Deployment", "d")), []),
    ("controllerRef with empty apiGroup", workload(controller=controller("", "Pod", "p")), []),
    *[
        (
            f"controllerRef {case}",
            workload(controller=controller(*ref)),
            [f"spec.controllerRef.{f}"],
        )
        for case, ref, f in [
            ("invalid apiGroup", ("invalid_api_group", "Deployment", "d"), "apiGroup"),
            ("too long apiGroup", ("g" * 254, "Deployment", "d"), "apiGroup"),
            ("missing kind", ("apps", "", "d"), "kind"),
            ("kind with a slash", ("apps", "Deploy/ment", "d"), "kind"),
            ("kind with a percent", ("apps", "Deploy%ment", "d"), "kind"),
            ("missing name", ("apps", "Deployment", ""), "name"),
            ("invalid name", ("apps", "Deployment", "/invalid-name"), "name"),
            ("name with a percent", ("apps", "Deployment", "my%deployment"), "name"),
        ]
    ],
    ("valid with basic policy", workload(template(schedulingPolicy={"basic": {}})), []),
    (
        "multiple topology constraints",
        workload(template(schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]})),
        [f"{T0}.schedulingConstraints.topology"],
    ),
    (
        "topology key with invalid characters",
        workload(template(schedulingConstraints=topology("Example.com/Foo"))),
        [f"{T0}.schedulingConstraints.topology[0].key"],
    ),
    ("pod group disruption mode", workload(template(disruptionMode="PodGroup")), []),
    ("invalid disruption mode", workload(template(disruptionMode="X")), [f"{T0}.disruptionMode"]),
]


@pytest.mark.parametrize(
    "manifest, fields",
    [case[1:] for case in UPSTREAM_WORKLOAD_TABLE],
    ids=[c[0] for c in UPSTREAM_WORKLOAD_TABLE],
)
def test_upstreams_workload_validation_table(manifest, fields):
    assert [error.field for error in validate_workload(manifest)] == fields
