"""Strict field decoding: unknown fields refused with kube-apiserver's words and paths."""

from __future__ import annotations

import importlib.util
import json
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from framework.api.errors import InvalidObjectError, ObjectError, StrictDecodingError
from framework.api.loader import KINDS, load_objects, parse_new_object
from framework.api.validation.strict import MAX_STRICT_ERRORS, unknown_fields

ROOT = Path(__file__).resolve().parents[3]


def pod(**spec):
    container = {"name": "c", "image": "nginx"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {"containers": [container], **spec},
    }


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda p: p["spec"].update(containerz=[]), ['unknown field "spec.containerz"']),
        (lambda p: p["metadata"].update(lables={}), ['unknown field "metadata.lables"']),
        (
            lambda p: p["spec"]["containers"][0].update(resources={"requets": {"cpu": "1"}}),
            ['unknown field "spec.containers[0].resources.requets"'],
        ),
        (
            lambda p: p["spec"].update(affinity={"nodeAffinity": {"requiredDuringScheduling": {}}}),
            ['unknown field "spec.affinity.nodeAffinity.requiredDuringScheduling"'],
        ),
        # Names match case-sensitively, as upstream's decoder does.
        (lambda p: p["spec"].update(NodeName="n"), ['unknown field "spec.NodeName"']),
        (lambda p: p.update(extra=1), ['unknown field "extra"']),
    ],
    ids=["spec field", "metadata field", "nested in a list", "deep", "case", "top level"],
)
def test_an_unknown_field_is_named_by_its_path(change, expected):
    manifest = pod()
    change(manifest)
    assert unknown_fields("Pod", manifest) == expected


def test_fields_the_engine_does_not_read_are_still_known():
    manifest = pod(
        dnsPolicy="ClusterFirst",
        securityContext={"runAsUser": 1000, "seccompProfile": {"type": "RuntimeDefault"}},
    )
    manifest["spec"]["containers"][0].update(
        livenessProbe={"httpGet": {"path": "/", "port": 80}, "periodSeconds": 5},
        env=[{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
    )
    manifest["metadata"]["managedFields"] = [{"fieldsV1": {"f:spec": {"f:anything": {}}}}]
    assert unknown_fields("Pod", manifest) == []


def test_map_values_of_objects_are_walked_with_their_key():
    node = {"kind": "Node", "metadata": {"name": "n", "labels": {"any/key": "v"}}}
    assert unknown_fields("Node", node) == []


def test_every_unknown_field_is_listed_once_in_document_order_in_the_error():
    manifest = pod(containerz=[], hostnetwork=True)
    manifest["spec"]["containers"].append({"name": "d", "image": "x", "imag": "y"})
    with pytest.raises(StrictDecodingError) as excinfo:
        parse_new_object(manifest)
    assert str(excinfo.value) == (
        'Pod "default/web": strict decoding error: unknown field "spec.containers[1].imag", '
        'unknown field "spec.containerz", unknown field "spec.hostnetwork"'
    )


def test_at_most_a_hundred_strict_errors_are_collected():
    manifest = pod(**{f"x{i}": 1 for i in range(150)})
    assert len(unknown_fields("Pod", manifest)) == MAX_STRICT_ERRORS


def test_simulate_files_are_decoded_strictly():
    text = json.dumps(pod(containerz=[]))
    with pytest.raises(StrictDecodingError, match=r'unknown field "spec\.containerz"'):
        load_objects(text)


def test_the_known_fields_file_matches_the_installed_client():
    # The script has no .py suffix: load it as Python source.
    loader = SourceFileLoader("known_fields", str(ROOT / "scripts" / "known-fields"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    committed = json.loads((ROOT / "framework/api/validation/known_fields.json").read_text())
    assert module.known_fields() == committed


def test_every_kind_the_loader_reads_is_decoded_strictly():
    """A kind added to the loader without its schema would take any typo silently."""
    committed = json.loads((ROOT / "framework/api/validation/known_fields.json").read_text())
    assert set(committed["kinds"]) == set(KINDS)


@pytest.mark.parametrize(
    ("kind", "api_version"),
    [
        ("Pod", "v2"),
        ("PodDisruptionBudget", "policy/v1beta1"),
        ("CSINode", "storage.k8s.io/v1beta1"),
    ],
)
def test_a_version_that_does_not_serve_the_kind_is_refused(kind, api_version):
    manifest = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    with pytest.raises(ObjectError) as raised:
        parse_new_object(manifest)
    assert raised.value.field == "apiVersion"
    assert raised.value.problem == f'no matches for kind "{kind}" in version "{api_version}"'


def test_a_manifest_without_api_version_is_read_as_the_kinds_version():
    assert parse_new_object(pod() | {"apiVersion": None}).api_version == "v1"


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (
            lambda p: p["spec"].update(tolerations={"key": "a"}),
            "spec.tolerations",
            "expected a list, got object",
        ),
        (
            # A field the engine does not read is decoded all the same.
            lambda p: p["spec"]["containers"][0].update(livenessProbe={"periodSeconds": "5"}),
            "spec.containers[0].livenessProbe.periodSeconds",
            "expected an integer, got string",
        ),
        (
            lambda p: p["spec"].update(
                volumes=[{"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": []}}}]
            ),
            "spec.volumes[0].ephemeral.volumeClaimTemplate.spec",
            "expected an object, got list",
        ),
        (
            lambda p: p["spec"].update(
                volumes=[
                    {
                        "name": "v",
                        "ephemeral": {
                            "volumeClaimTemplate": {
                                "spec": {
                                    "accessModes": ["ReadWriteOnce"],
                                    "resources": {"requests": {"storage": "lots"}},
                                }
                            }
                        },
                    }
                ]
            ),
            "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests.storage",
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
    ],
    ids=["a list", "an unread field", "an unread object", "an unread quantity"],
)
def test_a_value_of_the_wrong_type_is_refused_with_its_path(change, field, problem):
    manifest = pod()
    change(manifest)
    with pytest.raises(ObjectError) as raised:
        parse_new_object(manifest)
    assert (raised.value.field, raised.value.problem) == (field, problem)


def test_a_wrong_type_is_reported_alone_as_json_decoding_reports_it():
    manifest = pod(containerz=[], tolerations={}, nodeName=5)
    with pytest.raises(ObjectError) as raised:
        parse_new_object(manifest)
    assert str(raised.value) == 'Pod "default/web": spec.nodeName: expected a string, got number'


def test_a_null_list_item_is_read_as_an_empty_object_as_json_decoding_does():
    manifest = pod(tolerations=[None], schedulingGates=[None])
    with pytest.raises(InvalidObjectError) as raised:
        parse_new_object(manifest)
    assert [field for field, _ in raised.value.parts()] == [
        "spec.schedulingGates[0]",
        "spec.schedulingGates[0]",
        "spec.tolerations[0].operator",
    ]
