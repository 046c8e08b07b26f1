"""Creating objects through the cluster interface, and names made from generateName."""

from __future__ import annotations

import pytest

from framework.api.resource_claim import ResourceClaim
from framework.cluster.dry_run import DryRunCluster, Write
from framework.cluster.generated_names import (
    ALPHANUMS,
    MAX_GENERATED_NAME_LENGTH,
    generated_name,
)
from framework.cluster.interface import AlreadyExistsError
from framework.cluster.memory import InMemoryCluster


def claim(name: str) -> ResourceClaim:
    return ResourceClaim.from_dict(
        {"kind": "ResourceClaim", "metadata": {"name": name, "namespace": "default"}}
    )


def test_the_in_memory_cluster_creates_once_and_tells_watchers():
    cluster = InMemoryCluster()
    seen: list[str] = []
    cluster.watch(lambda event, old, new: seen.append(event))
    cluster.create(claim("a"))
    with pytest.raises(AlreadyExistsError, match='resourceclaims "a" already exists'):
        cluster.create(claim("a"))
    assert seen == ["ADDED"]


def test_a_dry_run_records_the_create_and_stores_nothing():
    cluster = DryRunCluster([claim("a")])
    cluster.create(claim("b"))
    assert cluster.writes == [Write("create", "resourceclaims", "default/b")]
    assert cluster.get("ResourceClaim", "b", "default") is None
    with pytest.raises(AlreadyExistsError):
        cluster.create(claim("a"))


def test_generated_names_cut_the_prefix_and_avoid_taken_names():
    first = generated_name("p-extended-resources-", "uid/x", lambda name: False)
    assert first.startswith("p-extended-resources-")
    suffix = first.removeprefix("p-extended-resources-")
    assert len(suffix) == 5 and set(suffix) <= set(ALPHANUMS)
    # The same seed gives the same name; a taken one is skipped.
    assert generated_name("p-extended-resources-", "uid/x", lambda name: False) == first
    second = generated_name("p-extended-resources-", "uid/x", lambda name: name == first)
    assert second != first
    long = generated_name("x" * 70, "seed", lambda name: False)
    assert len(long) == MAX_GENERATED_NAME_LENGTH + 5
