"""Explaining an attempt: why a pod is pending, and what its preemption weighed.

See docs/explain.md. ``explain_pod`` and ``explain_preemption`` are the entry points, and can be
imported from here. They are loaded on first use (PEP 562) rather than imported by this
``__init__``: a package that imports its own submodules while it initialises can deadlock two
threads importing at once (tests/import_graph.py), and the product imports from several.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Explanation": "framework.explain.explanation",
    "explain_pod": "framework.explain.explanation",
    "PreemptionExplanation": "framework.explain.preemption_explainer",
    "explain_preemption": "framework.explain.preemption_explainer",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
