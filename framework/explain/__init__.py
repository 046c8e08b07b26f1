"""Explaining an attempt: why a pod is pending, and what its preemption weighed.

See docs/explain.md. ``explain_pod`` and ``explain_preemption`` are the entry points, and can be
imported from here. They are loaded on first use (PEP 562) rather than imported by this
``__init__``: a package that imports its own submodules while it initialises can deadlock two
threads importing at once (tests/import_graph.py), and the product imports from several.
"""

from __future__ import annotations

from framework.util.lazy_exports import lazy_exports

_EXPORTS = {
    "Explanation": "explanation",
    "explain_pod": "explanation",
    "PreemptionExplanation": "preemption_explainer",
    "explain_preemption": "preemption_explainer",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
