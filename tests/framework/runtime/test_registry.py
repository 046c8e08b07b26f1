"""The plugin registry: duplicate names, dotted paths and entry-point discovery."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import pytest

from framework.interface.plugins import FilterPlugin
from framework.plugins.registry import in_tree_registry
from framework.runtime import registry as registry_module
from framework.runtime.registry import (
    Registry,
    RegistryError,
    build_registry,
    discover_out_of_tree,
    load_factory,
    plugin_type,
    registry_from_paths,
)
from framework.testing.fake_plugins import FakeFilter


def factory(args, handle):
    return FakeFilter("FromPath")


def test_registering_a_name_twice_is_an_error():
    registry = Registry()
    registry.register("A", factory)
    with pytest.raises(RegistryError) as error:
        registry.register("A", factory)
    assert str(error.value) == "a plugin named A already exists"


def test_unregistering_an_unknown_name_is_an_error():
    with pytest.raises(RegistryError) as error:
        Registry().unregister("A")
    assert str(error.value) == "no plugin named A exists"


def test_merging_out_of_tree_plugins_with_a_clashing_name_is_an_error():
    in_tree = Registry({"NodeName": factory})
    with pytest.raises(RegistryError, match="a plugin named NodeName already exists"):
        build_registry(in_tree, {"NodeName": factory})


@pytest.mark.parametrize(
    "path",
    [f"{__name__}:factory", f"{__name__}.factory"],
    ids=["colon form", "dotted form"],
)
def test_a_factory_is_loaded_by_dotted_path(path):
    assert load_factory(path) is factory
    assert registry_from_paths({"FromPath": path})["FromPath"] is factory


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("nomodule", "is not of the form 'module:attribute'"),
        ("no.such.module:thing", "No module named 'no'"),
        (f"{__name__}:missing", "has no attribute 'missing'"),
        (f"{__name__}:__doc__", "is not callable"),
    ],
    ids=["no attribute part", "missing module", "missing attribute", "not callable"],
)
def test_bad_dotted_paths_say_what_is_wrong(path, problem):
    with pytest.raises(RegistryError, match=problem):
        load_factory(path)


def test_out_of_tree_plugins_are_discovered_through_entry_points(monkeypatch):
    entry = SimpleNamespace(name="Discovered", value="pkg:factory", load=lambda: factory)
    monkeypatch.setattr(registry_module, "_entry_points", lambda group: [entry])
    assert discover_out_of_tree() == {"Discovered": factory}
    assert build_registry(Registry(), discover=True) == {"Discovered": factory}


def test_a_broken_entry_point_names_the_plugin(monkeypatch):
    def fail():
        raise ImportError("boom")

    entry = SimpleNamespace(name="Broken", value="pkg:factory", load=fail)
    monkeypatch.setattr(registry_module, "_entry_points", lambda group: [entry])
    with pytest.raises(RegistryError, match="plugin 'Broken' from entry point 'pkg:factory': boom"):
        discover_out_of_tree()


def test_the_class_a_factory_builds_is_known_for_classes_and_their_partials():
    class Late(FilterPlugin):
        name = "Late"

    assert plugin_type(Late) is Late
    assert plugin_type(functools.partial(Late, features=None)) is Late
    assert plugin_type(lambda args, handle: Late()) is None  # known only once it has built one
    assert plugin_type(dict) is None  # a class, but no plugin
    assert all(plugin_type(factory) for factory in in_tree_registry().values())
