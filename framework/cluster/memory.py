"""An in-memory cluster: a dict of objects per kind, for the CLI, tests and benchmarks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from framework.cluster.interface import BindError


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

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """Sets ``spec.nodeName`` like the API server's Binding subresource, with its checks."""
        pod = self.get("Pod", name, namespace)
        if pod is None:
            raise BindError(f'pods "{name}" not found')
        if uid and pod.uid != uid:
            raise BindError(
                f"Operation cannot be fulfilled on pods/binding \"{name}\": the UID in the "
                f"precondition ({uid}) does not match the UID in record ({pod.uid}). "
                "The object might have been deleted and then recreated"
            )
        if pod.spec.node_name:
            raise BindError(f"pod {name} is already assigned to node \"{pod.spec.node_name}\"")
        pod.spec.node_name = node_name
