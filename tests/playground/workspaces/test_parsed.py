"""Parsed manifests are kept per object version, and only while the manifest is unchanged."""

from __future__ import annotations

from playground.workspaces.parsed import ParsedObjects


def node(name: str, cpu: str = "4", version: int = 1) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "resourceVersion": str(version)},
        "status": {"allocatable": {"cpu": cpu}},
    }


def key(name: str, version: int = 1) -> tuple:
    return (1, "Node", "", name, version)


def test_a_version_is_parsed_once():
    cache = ParsedObjects()
    first = cache.parse(key("n1"), node("n1"))
    assert cache.parse(key("n1"), node("n1")) is first


def test_a_new_version_is_parsed_again():
    cache = ParsedObjects()
    first = cache.parse(key("n1"), node("n1"))
    second = cache.parse(key("n1", 2), node("n1", version=2))
    assert second is not first
    assert second.metadata.resource_version == "2"


def test_a_different_manifest_under_a_reused_version_is_parsed_again():
    # A rolled-back transaction may hand the same id to another write later.
    cache = ParsedObjects()
    cache.parse(key("n1"), node("n1", cpu="4"))
    reused = cache.parse(key("n1"), node("n1", cpu="8"))
    assert str(reused.status.allocatable["cpu"]) == "8"


def test_the_least_recently_used_object_goes_first():
    cache = ParsedObjects(capacity=2)
    n1 = cache.parse(key("n1"), node("n1"))
    cache.parse(key("n2"), node("n2"))
    cache.parse(key("n1"), node("n1"))
    cache.parse(key("n3"), node("n3"))
    assert len(cache) == 2
    assert cache.parse(key("n1"), node("n1")) is n1
