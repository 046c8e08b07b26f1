"""Objects kube-apiserver v1.36.2 refuses, answered alike by the engine's validation and
admission (issue 23).

Each case records the real server's answer, taken by creating the object on one (a
control plane from ../shared/kube, through the ``kubernetes`` client as kubectl would).
``test_the_engine_answers_as_kube_apiserver`` holds the engine to it; with ``kube_api``
standing for a real kube-apiserver (PLAYGROUND_TEST_KUBECONFIG or KUBEBUILDER_ASSETS)
``test_kube_apiserver_still_answers_so`` asks the server again. The object is named as
upstream prints it: ``pods "p"``, ``DeviceClass.resource.k8s.io "x"``; the engine names
objects its own way (``Pod "ns/p"``), so what follows ``is forbidden:`` / ``is invalid:`` is
compared.
"""

from __future__ import annotations

import json

import pytest
from kubernetes.client.exceptions import ApiException

from framework.admission.admit import create_objects
from framework.api.errors import InvalidObjectError
from framework.api.loader import decode_new_object
from tests.kube.fixtures import LocalKubeApi

CONTAINERS = [{"name": "c", "image": "nginx"}]
KATA = {
    "apiVersion": "node.k8s.io/v1",
    "kind": "RuntimeClass",
    "metadata": {"name": "pg-test-kata"},
    "handler": "kata",
    "overhead": {"podFixed": {"cpu": "250m", "memory": "64Mi"}},
    "scheduling": {
        "nodeSelector": {"sandbox": "kata"},
        "tolerations": [{"key": "sandbox", "operator": "Exists"}],
    },
}
EXPECTING_AN_OPERAND = (
    "mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', "
    "'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
)


def pod(**spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": CONTAINERS, **spec},
    }


def node(**status) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "pg-test-n"}, "status": status}


def persistent_volume(**spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pg-test-pv"},
        "spec": {"accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}, **spec},
    }


def device_class(expression: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "pg-test-dc"},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


CASES = [
    pytest.param(
        pod(overhead={"cpu": "100m"}),
        'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding '
        "RuntimeClass defined Overhead",
        id="pod-overhead-without-runtime-class",
    ),
    pytest.param(
        pod(runtimeClassName="pg-test-missing"),
        'pods "p" is forbidden: pod rejected: RuntimeClass "pg-test-missing" not found',
        id="pod-naming-a-missing-runtime-class",
    ),
    pytest.param(
        pod(runtimeClassName="pg-test-kata", overhead={"cpu": "1"}),
        "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's "
        "defined Overhead",
        id="pod-overhead-other-than-its-runtime-class",
    ),
    pytest.param(
        pod(runtimeClassName="pg-test-kata", nodeSelector={"sandbox": "gvisor"}),
        'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; '
        "pod.spec.nodeSelector[sandbox] = gvisor",
        id="pod-node-selector-against-its-runtime-class",
    ),
    pytest.param(
        node(capacity={"cpu": "-2"}),
        'Node "pg-test-n" is invalid: [status.capacity.cpu: Invalid value: "-2": must be '
        'greater than or equal to 0, status.allocatable.cpu: Invalid value: "-2": must be '
        "greater than or equal to 0]",
        id="node-capacity-defaults-allocatable-before-validation",
    ),
    pytest.param(
        node(capacity={"cpu": "-2"}, allocatable={"memory": "1Gi"}),
        'Node "pg-test-n" is invalid: status.capacity.cpu: Invalid value: "-2": must be '
        "greater than or equal to 0",
        id="node-with-allocatable-keeps-it",
    ),
    pytest.param(
        persistent_volume(),
        'PersistentVolume "pg-test-pv" is invalid: [spec.capacity: Required value, '
        'spec.capacity: Unsupported value: null: supported values: "storage"]',
        id="pv-without-capacity",
    ),
    pytest.param(
        persistent_volume(capacity={}),
        'PersistentVolume "pg-test-pv" is invalid: [spec.capacity: Required value, '
        'spec.capacity: Unsupported value: {}: supported values: "storage"]',
        id="pv-with-empty-capacity",
    ),
    pytest.param(
        device_class("device.driver == "),
        'DeviceClass.resource.k8s.io "pg-test-dc" is invalid: spec.selectors[0].cel.expression: '
        'Invalid value: "device.driver == ": compilation failed: ERROR: <input>:1:18: Syntax '
        f"error: {EXPECTING_AN_OPERAND}\n | device.driver == \n | .................^",
        id="cel-expression-ending-after-an-operator",
    ),
    pytest.param(
        device_class("device.attributes['x'].model == 'a' &&"),
        'DeviceClass.resource.k8s.io "pg-test-dc" is invalid: spec.selectors[0].cel.expression: '
        "Invalid value: \"device.attributes['x'].model == 'a' &&\": compilation failed: ERROR: "
        f"<input>:1:39: Syntax error: {EXPECTING_AN_OPERAND}\n"
        " | device.attributes['x'].model == 'a' &&\n"
        " | ......................................^",
        id="cel-expression-ending-after-and",
    ),
]


def answer_text(message: str) -> str:
    """What follows the object's name: the part both name alike."""
    for verb in (" is forbidden: ", " is invalid: "):
        if verb in message:
            return verb.strip() + " " + message.split(verb, 1)[1]
    return message


def engine_answer(manifest: dict) -> str:
    """The engine's refusal of creating the object (with pg-test-kata in the cluster)."""
    _, refusals = create_objects([decode_new_object(KATA), decode_new_object(manifest)])
    assert len(refusals) == 1, refusals
    (refusal,) = refusals
    verb = "is invalid:" if isinstance(refusal, InvalidObjectError) else "is forbidden:"
    if isinstance(refusal, InvalidObjectError):
        return f"{verb} {str(refusal).split(' is invalid: ', 1)[1]}"
    return f"{verb} {refusal.problem}"


@pytest.mark.parametrize(("manifest", "answer"), CASES)
def test_the_engine_answers_as_kube_apiserver(manifest, answer):
    assert engine_answer(manifest) == answer_text(answer)


def test_a_pod_gets_its_runtime_class_overhead_and_scheduling():
    """What the server stored for a pod of pg-test-kata whose own overhead is the class's
    in other words, with a toleration the class's wider one covers: the class's overhead,
    its node selector, and only the wider toleration."""
    given = pod(
        runtimeClassName="pg-test-kata",
        overhead={"cpu": "0.25", "memory": "64Mi"},
        tolerations=[{"key": "sandbox", "operator": "Equal", "value": "x"}],
    )
    (_, created), refusals = create_objects([decode_new_object(KATA), decode_new_object(given)])
    assert refusals == []
    spec = created.to_dict()["spec"]
    assert spec["overhead"] == {"cpu": "250m", "memory": "64Mi"}
    assert spec["nodeSelector"] == {"sandbox": "kata"}
    assert spec["tolerations"] == [{"key": "sandbox", "operator": "Exists"}]


@pytest.mark.parametrize(("manifest", "answer"), CASES)
def test_kube_apiserver_still_answers_so(kube_api, manifest, answer):
    if isinstance(kube_api, LocalKubeApi):
        pytest.skip("the test API server does not validate objects: a real one is needed")
    kube_api.create(KATA)
    manifest = json.loads(json.dumps(manifest))
    with pytest.raises(ApiException) as refused:
        kube_api.create(manifest)
    message = json.loads(refused.value.body)["message"]
    if manifest["kind"] == "Pod":
        message = message.replace(f'pods "{manifest["metadata"]["name"]}"', 'pods "p"')
    assert message == answer
