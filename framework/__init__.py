"""The kube-scheduler v1.36 scheduling framework in pure Python.

Usable as a library, as a command line tool (``python -m framework``) and as a scheduler.
Nothing under this package imports Django: the playground adapts it, never the reverse.
"""

# ``typing`` is imported here, before any module of the package runs: ``dataclasses`` reads
# it from ``sys.modules`` without importing it, so a dataclass made in one thread while another
# thread is still importing ``typing`` for the first time fails ("partially initialized
# module 'typing'"). Every import of a framework module first waits for this package's own.
import typing  # noqa: F401
