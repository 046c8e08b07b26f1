"""An in-memory cluster: a dict of objects per kind, for the CLI, tests and benchmarks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class InMemoryCluster:
    """Objects by kind and (namespace, name); the reference implementation of ``Cluster``."""

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        self._objects: dict[str, dict[tuple[str, str], Any]] = {}
        for obj in objects:
            self.add(obj)

    def add(self, obj: Any) -> None:
        """Adds or replaces an object (keyed by kind, namespace and name)."""
        meta = obj.metadata
        self._objects.setdefault(obj.kind, {})[(meta.namespace, meta.name)] = obj

    def delete(self, obj: Any) -> None:
        meta = obj.metadata
        self._objects.get(obj.kind, {}).pop((meta.namespace, meta.name), None)

    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        return self._objects.get(kind, {}).get((namespace, name))

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        objects = self._objects.get(kind, {})
        if namespace is None:
            return list(objects.values())
        return [obj for (ns, _), obj in objects.items() if ns == namespace]
