"""PV helpers against component-helpers' tables (pv_helpers_test.go, helpers_test.go)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.storage.lookup import NotFoundError
from framework.storage.volume import (
    check_node_affinity,
    find_matching_volume,
    get_bind_volume_to_claim,
    get_persistent_volume_claim_class,
    is_delay_binding_mode,
)
from tests.framework.builders import make_node
from tests.framework.storage.builders import WAIT, make_pv, make_pvc, make_storage_class


def volume(uid: str, name: str, capacity: str, available: bool, **spec: Any) -> PersistentVolume:
    manifest: dict[str, Any] = {
        "kind": "PersistentVolume",
        "metadata": {"name": name, "uid": uid},
        "spec": {
            "capacity": {"storage": capacity},
            "local": {"path": "/mnt"},
            "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
            **spec,
        },
    }
    manifest["status"] = {"phase": "Available" if available else "Pending"}
    return PersistentVolume.from_dict(manifest)


def affinity(value: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": "key1", "operator": "In", "values": [value]}]}
    return {"required": {"nodeSelectorTerms": [term]}}


VOLUMES = [
    volume("local-small", "local001", "5G", True),
    volume("local-pd-very-large", "local002", "200E", True, storageClassName="large"),
    volume(
        "affinity-pv",
        "affinity001",
        "100G",
        True,
        storageClassName="wait",
        nodeAffinity=affinity("value1"),
    ),
    volume(
        "affinity-pv2",
        "affinity002",
        "150G",
        True,
        storageClassName="wait",
        nodeAffinity=affinity("value1"),
    ),
    volume(
        "affinity-prebound",
        "affinity003",
        "100G",
        True,
        storageClassName="wait",
        claimRef={"name": "claim02", "namespace": "myns"},
        nodeAffinity=affinity("value1"),
    ),
    volume(
        "affinity-pv3",
        "affinity003",
        "200G",
        True,
        storageClassName="wait",
        nodeAffinity=affinity("value3"),
    ),
    volume(
        "affinity-pv4",
        "affinity004",
        "200G",
        False,
        storageClassName="wait",
        nodeAffinity=affinity("value4"),
    ),
]


def with_vac(name: str, volumes: list[PersistentVolume]) -> list[PersistentVolume]:
    result = []
    for pv in volumes:
        manifest = pv.to_dict()
        manifest["spec"]["volumeAttributesClassName"] = name
        result.append(PersistentVolume.from_dict(manifest))
    return result


def claim(name: str, access_modes: list[str], vac: str | None = None) -> PersistentVolumeClaim:
    spec: dict[str, Any] = {
        "accessModes": access_modes,
        "resources": {"requests": {"storage": "100G"}},
        "storageClassName": "wait",
    }
    if vac is not None:
        spec["volumeAttributesClassName"] = vac
    return PersistentVolumeClaim.from_dict(
        {
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "myns"},
            "spec": spec,
        }
    )


def node(value: str) -> Any:
    return make_node("n", labels={"key1": value})


RWO = ["ReadWriteOnce"]
BOTH = [True, False]

SCENARIOS = [
    ("affinity-pv", VOLUMES, claim("claim01", RWO), node("value1"), {}, BOTH, False),
    ("affinity-prebound", VOLUMES, claim("claim02", RWO), node("value1"), {}, BOTH, False),
    (
        "affinity-pv2",
        VOLUMES,
        claim("claim01", RWO),
        node("value1"),
        {"affinity001": None},
        BOTH,
        False,
    ),
    (
        "",
        VOLUMES,
        claim("claim01", RWO),
        node("value1"),
        {"affinity001": None, "affinity002": None, "affinity002-vac": None},
        BOTH,
        False,
    ),
    ("", VOLUMES, claim("claim01", ["ReadWriteMany"]), node("value1"), {}, BOTH, False),
    ("", VOLUMES, claim("claim01", RWO), node("value2"), {}, BOTH, False),
    ("", VOLUMES, claim("claim02", RWO), node("value3"), {}, BOTH, False),
    ("", VOLUMES, claim("claim04", RWO), node("value4"), {}, BOTH, False),
    ("affinity-pv3", VOLUMES, claim("claim03", RWO), node("value3"), {}, BOTH, False),
    (
        "affinity-pv",
        with_vac("gold", VOLUMES),
        claim("claim01", RWO, "gold"),
        node("value1"),
        {},
        [True],
        False,
    ),
    ("", VOLUMES, claim("claim01", RWO, "silver"), node("value1"), {}, [True], False),
    (
        "",
        with_vac("gold", VOLUMES),
        claim("claim02", RWO, "silver"),
        node("value1"),
        {},
        [True],
        False,
    ),
    ("", VOLUMES, claim("claim01", RWO, "gold"), node("value1"), {}, [False], True),
    ("", with_vac("gold", VOLUMES), claim("claim01", RWO), node("value1"), {}, [False], False),
]
SCENARIO_NAMES = [
    "success-match",
    "success-prebound",
    "success-exclusion",
    "fail-exclusion",
    "fail-accessmode",
    "fail-nodeaffinity",
    "fail-prebound-node-affinity",
    "fail-nonavaliable",
    "success-bad-and-good-node-affinity",
    "success-match-with-vac",
    "fail-vac",
    "fail-prebound-vac",
    "fail-on-error",
    "fail-volumes-vac",
]


@pytest.mark.parametrize(
    ("want", "volumes", "pvc", "on_node", "excluded", "vac_modes", "want_error"),
    SCENARIOS,
    ids=SCENARIO_NAMES,
)
def test_find_match_volume_with_node(want, volumes, pvc, on_node, excluded, vac_modes, want_error):
    for vac_enabled in vac_modes:
        if want_error:
            with pytest.raises(ValueError):
                find_matching_volume(pvc, volumes, on_node, excluded, True, vac_enabled)
            continue
        found = find_matching_volume(pvc, volumes, on_node, excluded, True, vac_enabled)
        assert (found.uid if found is not None else "") == want


def test_the_smallest_fitting_volume_wins_and_a_selector_filters():
    small = make_pv("small", "c", phase="Available", capacity="1Gi", labels={"tier": "a"})
    large = make_pv("large", "c", phase="Available", capacity="2Gi", labels={"tier": "b"})
    pvc = make_pvc("data", "c", request="1Gi")
    assert find_matching_volume(pvc, [large, small], None, {}, False, True).name == "small"
    manifest = pvc.to_dict()
    manifest["spec"]["selector"] = {"matchLabels": {"tier": "b"}}
    selective = PersistentVolumeClaim.from_dict(manifest)
    assert find_matching_volume(selective, [large, small], None, {}, False, True).name == "large"


def test_volumes_being_deleted_or_of_another_mode_never_match():
    pvc = make_pvc("data", "c", request="1Gi")
    block = make_pv("block", "c", phase="Available", capacity="1Gi", volume_mode="Block")
    deleting = make_pv("deleting", "c", phase="Available", capacity="1Gi")
    deleting.metadata.deletion_timestamp = object()  # type: ignore[assignment]
    assert find_matching_volume(pvc, [block, deleting], None, {}, False, True) is None


def test_the_pv_controller_path_skips_unbound_volumes_when_binding_is_delayed():
    pvc = make_pvc("data", "c", request="1Gi")
    pv = make_pv("pv", "c", phase="Available", capacity="1Gi")
    assert find_matching_volume(pvc, [pv], None, {}, True, True) is None
    assert find_matching_volume(pvc, [pv], None, {}, False, True).name == "pv"


@pytest.mark.parametrize(
    ("pvc_class", "classes", "want"),
    [
        (None, [], False),
        ("missing", [], False),
        ("no-mode", [make_storage_class("no-mode", None)], "error"),
        ("immediate", [make_storage_class("immediate")], False),
        ("wait", [make_storage_class("wait", WAIT)], True),
    ],
    ids=[
        "nil-class",
        "class-not-found",
        "no-mode-class",
        "immediate-mode-class",
        "wait-mode-class",
    ],
)
def test_delay_binding_mode(pvc_class, classes, want):
    by_name = {c.name: c for c in classes}

    def get_class(name: str) -> Any:
        if name not in by_name:
            raise NotFoundError("storageclass.storage.k8s.io", name)
        return by_name[name]

    pvc = make_pvc("data", pvc_class)
    if want == "error":
        with pytest.raises(
            ValueError, match='VolumeBindingMode not set for StorageClass "no-mode"'
        ):
            is_delay_binding_mode(pvc, get_class)
    else:
        assert is_delay_binding_mode(pvc, get_class) is want


def test_the_beta_annotation_names_the_class_first():
    pvc = make_pvc("data", "ga", annotations={"volume.beta.kubernetes.io/storage-class": "beta"})
    assert get_persistent_volume_claim_class(pvc) == "beta"
    assert get_persistent_volume_claim_class(make_pvc("data")) == ""


def test_binding_a_volume_to_a_claim_copies_it_and_marks_the_controller():
    pvc = make_pvc("data", "c", uid="u1")
    pv = make_pv("pv", "c")
    bound, dirty = get_bind_volume_to_claim(pv, pvc)
    assert dirty is True
    assert (
        bound.spec.claim_ref.namespace,
        bound.spec.claim_ref.name,
        bound.spec.claim_ref.uid,
    ) == (
        "default",
        "data",
        "u1",
    )
    assert bound.metadata.annotations["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert pv.spec.claim_ref is None
    assert get_bind_volume_to_claim(bound, pvc)[1] is False


def test_a_volume_prebound_by_the_user_is_not_marked_as_bound_by_the_controller():
    pvc = make_pvc("data", "c", uid="u1")
    pv = make_pv("pv", "c", claim=("default", "data"))
    bound, dirty = get_bind_volume_to_claim(pv, pvc)
    assert dirty is True
    assert "pv.kubernetes.io/bound-by-controller" not in bound.metadata.annotations


@pytest.mark.parametrize(
    ("affinity_of", "labels", "want"),
    [
        (None, {}, None),
        ({"key1": ["v1"]}, {"key1": "v1"}, None),
        ({"key1": ["v1"]}, {"key1": "v2"}, "no matching NodeSelectorTerms"),
    ],
    ids=["no affinity fits any node", "matching labels fit", "other labels do not"],
)
def test_check_node_affinity(affinity_of, labels, want):
    pv = make_pv("pv", node_affinity=affinity_of)
    assert check_node_affinity(pv.spec.node_affinity, labels) == want
