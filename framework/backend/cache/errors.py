"""Errors of the cache and its snapshot, with upstream's messages.

Upstream returns these as ``error`` values; here they are raised. Where upstream stops the
whole process (a pod seen on a different node than the cache holds it on), we raise
CacheCorruptedError instead and leave the decision to the caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework.api.pod import Pod


class CacheError(Exception):
    """A cache or snapshot operation that does not fit the pod's or node's current state."""


class CacheCorruptedError(CacheError):
    """Events disagree with the cache about a pod's node; upstream exits the process here."""


class SnapshotInconsistentError(CacheError):
    """The snapshot's node list did not match the node tree; the lists were rebuilt."""


class NodeInfoNotFoundError(KeyError):
    """A snapshot lookup of a node it does not hold (a KeyError, as NodeInfoLister promises)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def get_pod_key(pod: Pod) -> str:
    """The pod's uid: the cache's key, as upstream (a name can be reused, a uid cannot)."""
    if not pod.uid:
        raise CacheError("cannot get cache key for pod with empty UID")
    return pod.uid


def kobj(pod: Pod) -> str:
    """``namespace/name`` as klog.KObj prints a pod in upstream's messages."""
    return f"{pod.namespace}/{pod.name}" if pod.namespace else pod.name
