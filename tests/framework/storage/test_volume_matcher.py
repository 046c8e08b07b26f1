"""The prepared matcher answers exactly as upstream's single pass over the volumes.

The reference below is a plain transcription of ``FindMatchingVolume``; random clusters
(seeded) compare it with :class:`VolumeMatcher`, whose label index must never change answers.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.storage.volume import (
    VOLUME_AVAILABLE,
    VolumeMatcher,
    check_access_modes,
    check_node_affinity,
    check_volume_mode_mismatches,
    claim_storage_request,
    get_persistent_volume_claim_class,
    get_persistent_volume_class,
    is_volume_bound_to_claim,
    volume_capacity,
)
from tests.framework.builders import make_node
from tests.framework.storage.builders import make_pv, make_pvc


def reference(claim: Any, volumes: list[Any], node: Any, excluded: set[str]) -> Any:
    requested = claim_storage_request(claim)
    smallest = None
    for volume in volumes:
        if volume.name in excluded:
            continue
        if volume.spec.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        if volume_capacity(volume).cmp(requested) < 0:
            continue
        if check_volume_mode_mismatches(claim, volume):
            continue
        fits = check_node_affinity(volume.spec.node_affinity, node.labels) is None
        if is_volume_bound_to_claim(volume, claim):
            return volume if fits else None
        if volume.phase != VOLUME_AVAILABLE:
            continue
        if get_persistent_volume_class(volume) != get_persistent_volume_claim_class(claim):
            continue
        if not fits or not check_access_modes(claim, volume):
            continue
        if smallest is None or volume_capacity(smallest).cmp(volume_capacity(volume)) > 0:
            smallest = volume
    return smallest


HOSTS = [f"h{i}" for i in range(6)]
ZONES = ["z1", "z2", "z3"]


def random_affinity(rng: random.Random) -> dict[str, Any] | None:
    kind = rng.choice(["none", "host", "zone", "two-terms", "not-in", "fields", "mixed"])
    if kind == "none":
        return None
    if kind == "host":
        terms = [[("kubernetes.io/hostname", "In", rng.sample(HOSTS, rng.randint(1, 2)))]]
    elif kind == "zone":
        terms = [[("zone", "In", [rng.choice(ZONES)]), ("kubernetes.io/hostname", "NotIn", ["h0"])]]
    elif kind == "two-terms":
        terms = [[("zone", "In", [rng.choice(ZONES)])], [("zone", "In", [rng.choice(ZONES)])]]
    elif kind == "not-in":
        terms = [[("zone", "NotIn", [rng.choice(ZONES)])]]
    elif kind == "fields":
        return {
            "required": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["x"]}]}
                ]
            }
        }
    else:
        terms = [[("zone", "In", [rng.choice(ZONES)])], [("kubernetes.io/hostname", "In", ["h1"])]]
    return {
        "required": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {"key": k, "operator": op, "values": list(values)} for k, op, values in term
                    ]
                }
                for term in terms
            ]
        }
    }


def random_volume(rng: random.Random, index: int) -> PersistentVolume:
    volume = make_pv(
        f"pv-{index}",
        rng.choice(["a", "b"]),
        phase=rng.choice([VOLUME_AVAILABLE, VOLUME_AVAILABLE, "Bound", "Pending"]),
        capacity=f"{rng.choice([1, 2, 2, 5, 10])}Gi",
        claim=rng.choice([None, None, None, ("default", "data"), ("default", "other")]),
        access_modes=rng.choice(
            [["ReadWriteOnce"], ["ReadWriteMany"], ["ReadWriteOnce", "ReadOnlyMany"]]
        ),
        volume_mode=rng.choice([None, None, "Block"]),
    )
    affinity = random_affinity(rng)
    if affinity is not None:
        manifest = volume.to_dict()
        manifest["spec"]["nodeAffinity"] = affinity
        volume = PersistentVolume.from_dict(manifest)
    return volume


def random_claim(rng: random.Random) -> PersistentVolumeClaim:
    return make_pvc(
        "data",
        rng.choice(["a", "b"]),
        request=f"{rng.choice([1, 2, 3])}Gi",
        access_modes=rng.choice([["ReadWriteOnce"], ["ReadWriteMany"]]),
    )


def random_node(rng: random.Random) -> Any:
    labels = {"kubernetes.io/hostname": rng.choice(HOSTS)}
    if rng.random() < 0.8:
        labels["zone"] = rng.choice(ZONES)
    return make_node(labels["kubernetes.io/hostname"], labels=labels)


@pytest.mark.parametrize("seed", range(40), ids=lambda seed: f"random cluster {seed}")
def test_the_matcher_agrees_with_upstreams_single_pass(seed):
    rng = random.Random(seed)
    volumes = [random_volume(rng, i) for i in range(rng.randint(0, 25))]
    claim = random_claim(rng)
    matcher = VolumeMatcher(claim, volumes, True, True, True)
    for _ in range(10):
        node = random_node(rng)
        excluded = {v.name for v in volumes if rng.random() < 0.15}
        want = reference(claim, volumes, node, excluded)
        got = matcher.match(node, dict.fromkeys(excluded))
        assert (got.name if got else None) == (want.name if want else None)


def test_a_bad_claim_selector_fails_even_without_candidates():
    manifest = make_pvc("data", "a").to_dict()
    manifest["spec"]["selector"] = {
        "matchExpressions": [{"key": "k", "operator": "Bogus", "values": ["v"]}]
    }
    with pytest.raises(ValueError, match="error creating internal label selector for claim"):
        VolumeMatcher(PersistentVolumeClaim.from_dict(manifest), [], True, True, True)
