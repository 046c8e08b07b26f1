"""The scheduler cache, its node tree and the per-cycle snapshot (upstream backend/cache)."""

from framework.backend.cache.cache import Cache, Dump
from framework.backend.cache.errors import (
    CacheCorruptedError,
    CacheError,
    NodeInfoNotFoundError,
    SnapshotInconsistentError,
)
from framework.backend.cache.node_tree import NodeTree
from framework.backend.cache.snapshot import Snapshot, new_snapshot

__all__ = [
    "Cache",
    "CacheCorruptedError",
    "CacheError",
    "Dump",
    "NodeInfoNotFoundError",
    "NodeTree",
    "Snapshot",
    "SnapshotInconsistentError",
    "new_snapshot",
]
