"""Imports are safe in any order and from several threads at once.

The product imports from more than one thread (the embedded Celery worker, its pool, the
watchdog, the attempt writer). A cycle between modules, including a package ``__init__`` that
imports its own submodules, lets two threads that import at the same moment deadlock or see a
half-initialised module: ``scripts/run`` crashed that way at start (see tests/import_graph.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.import_graph import ROOT, find_cycles, import_graph, project_modules

FRESH_PROCESSES = 8
"""How many fresh interpreters each concurrent-import test starts (modules import only once)."""
PROCESS_SECONDS = 120


def test_no_module_of_framework_or_playground_is_in_an_import_cycle():
    assert find_cycles(import_graph(project_modules())) == []


def test_not_even_the_imports_for_type_checkers_make_a_cycle():
    """A type-only cycle needs no lock at run time, but it is still two modules that each
    need the other to be understood (the last ones, framework.api pod↔affinity↔node_affinity,
    were broken with protocols)."""
    assert find_cycles(import_graph(project_modules(), type_checking=True)) == []


def test_the_graph_sees_the_modules_and_their_imports():
    graph = import_graph(project_modules())
    assert len(graph) > 200
    assert "framework.api.quantity" in graph["framework.api.pod"]
    assert "playground.workspaces.models" in graph["playground.scheduling.tasks"]


def test_a_package_that_imports_its_own_module_is_a_cycle(tmp_path):
    write(tmp_path / "pkg/__init__.py", "from pkg.mod import thing\n")
    write(tmp_path / "pkg/mod.py", "thing = 1\n")
    graph = import_graph(project_modules(["pkg"], root=tmp_path))
    assert find_cycles(graph) == [["pkg", "pkg.mod", "pkg"]]


def test_an_import_inside_a_function_counts_and_one_for_type_checkers_does_not(tmp_path):
    write(tmp_path / "pkg/__init__.py", "")
    write(
        tmp_path / "pkg/a.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import b\n",
    )
    write(tmp_path / "pkg/b.py", "def later():\n    from pkg.c import x\n")
    write(tmp_path / "pkg/c.py", "from pkg.b import later\nx = 1\n")
    graph = import_graph(project_modules(["pkg"], root=tmp_path))
    assert graph["pkg.a"] == {"pkg"}
    assert find_cycles(graph) == [["pkg.b", "pkg.c", "pkg.b"]]
    with_types = import_graph(project_modules(["pkg"], root=tmp_path), type_checking=True)
    assert with_types["pkg.a"] == {"pkg", "pkg.b"}


# Two threads import every module, each in its own shuffled order, released together.
CONCURRENT_IMPORTS = textwrap.dedent(
    """
    import importlib, random, sys, threading, traceback

    seed, setup_django, names = int(sys.argv[1]), sys.argv[2] == "django", sys.argv[3:]
    if setup_django:
        import django
        django.setup()
    start = threading.Barrier(2)
    failures = []

    def import_all(order):
        start.wait()
        for name in order:
            try:
                importlib.import_module(name)
            except BaseException:
                failures.append(traceback.format_exc())

    orders = [random.Random(seed + i).sample(names, len(names)) for i in range(2)]
    threads = [threading.Thread(target=import_all, args=(order,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print("".join(failures), end="")
    sys.exit(1 if failures else 0)
    """
)


@pytest.mark.parametrize(
    ("packages", "setup"),
    [(["framework"], "plain"), (["framework", "playground"], "django")],
    ids=["the engine alone", "the playground once Django is set up"],
)
def test_every_module_imports_in_two_threads_at_once(packages, setup):
    names = [name for name in project_modules(packages) if not name.endswith("__main__")]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "playground.settings"}
    for seed in range(FRESH_PROCESSES):
        done = subprocess.run(
            [sys.executable, "-c", CONCURRENT_IMPORTS, str(seed), setup, *names],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=PROCESS_SECONDS,
        )
        assert done.returncode == 0, f"seed {seed}:\n{done.stdout}{done.stderr}"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
