"""Parsed manifests, kept so that reading a cluster from the database does not re-parse it.

Parsing a pod costs about a hundred times more than fetching its JSON, and pages and the
scheduler service read the same thousands of objects over and over. Entries are keyed by
object and resourceVersion, so a new version never hits an old entry, and are used only when
the stored manifest is still equal to the one parsed: ids that a rolled-back transaction
handed out can be handed out again, and equality makes such a reuse harmless.

Parsed objects are shared between readers and must not be changed in place (copy them with
``deep_copy()``), as with the engine's InMemoryCluster.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from framework.api.loader import parse_object
from framework.api.meta import KubeObject

ObjectKey = tuple[int, str, str, str, int]
"""(workspace id, kind, namespace, name, resourceVersion)"""

CAPACITY = 30_000
"""Objects kept at most: a 5000-node cluster with its pods fits; the oldest go first."""


class ParsedObjects:
    """A thread-safe least-recently-used map from stored manifests to parsed objects."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[ObjectKey, tuple[Mapping[str, Any], KubeObject]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def parse(self, key: ObjectKey, manifest: Mapping[str, Any]) -> KubeObject:
        """The object for this manifest, parsed once per version."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (entry[0] is manifest or entry[0] == manifest):
                self._entries.move_to_end(key)
                return entry[1]
        obj = parse_object(manifest)
        with self._lock:
            self._entries[key] = (manifest, obj)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return obj

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


PARSED_OBJECTS = ParsedObjects()
"""The process-wide cache every DatabaseCluster reads through."""
