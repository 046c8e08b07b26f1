"""A package's names, each imported from its own module on first use (PEP 562).

A package ``__init__`` that imports its own submodules while it initialises closes an import
cycle with each of them, and two threads importing at once can deadlock on it
(tests/import_graph.py; the product imports from several threads). A package that wants
``from package import name`` to work anyway sets ``__getattr__ = lazy_exports(...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's ``__getattr__``: ``exports`` maps each name to its module's name
    relative to ``package`` (``"variant"`` for ``package.variant``)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{module}"), name)

    return __getattr__
