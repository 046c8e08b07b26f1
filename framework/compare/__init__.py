"""Compare profiles over a whole cluster: the same pods (or a recording's stream of changes)
scheduled under several configurations, and a report of how each did (docs/compare.md).

The names of the engine's comparison API can be imported from here (``from framework.compare
import run_variant``). Each is looked up in its own module on first use, not imported by this
``__init__``: a package that imports its own modules at import time makes a cycle two threads
can deadlock on (tests/test_imports.py). Modules of the engine import from the defining
modules directly.
"""

from __future__ import annotations

from framework.util.lazy_exports import lazy_exports

_EXPORTS = {
    "Cancelled": "errors",
    "CompareError": "errors",
    "RecordingError": "errors",
    "Change": "recording",
    "CompareInputs": "inputs",
    "inputs_from_recording": "inputs",
    "read_recording": "recording",
    "VariantResult": "variant",
    "VariantSpec": "variant",
    "run_variant": "variant",
    "compare_results": "report",
    "compare": "fanout",
}
__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
