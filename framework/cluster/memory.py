"""An in-memory cluster: objects per kind with watch events, for the CLI, tests and benchmarks.

Every write stores an object with a new resourceVersion and tells the watchers (``ADDED`` /
``MODIFIED`` / ``DELETED`` with the old and new object), the way informers see an API server.
Writes the scheduler makes (bind, status patches) store a changed copy, so a watcher never sees
an object change under its feet; objects handed to ``add`` / ``update`` are stored as given.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from framework.api.pod import PodCondition
from framework.cluster.interface import AlreadyExistsError, BindError, NotFoundError

WatchHandler = Callable[[str, Any, Any], None]


class InMemoryCluster:
    """Objects by kind and (namespace, name); the reference implementation of ``Cluster``."""

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        self._objects: dict[str, dict[tuple[str, str], Any]] = {}
        self._watchers: list[WatchHandler] = []
        self._revision = itertools.count(1)
        self.events: list[dict[str, Any]] = []
        for obj in objects:
            self.add(obj)

    # ------------------------------------------------------------------------------------------
    # Reads

    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        return self._objects.get(kind, {}).get((namespace, name))

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        objects = self._objects.get(kind, {})
        if namespace is None:
            return list(objects.values())
        return [obj for (ns, _), obj in objects.items() if ns == namespace]

    def kinds(self) -> list[str]:
        return list(self._objects)

    def watch(self, handler: WatchHandler) -> None:
        """Calls ``handler(event_type, old, new)`` after every change from now on."""
        self._watchers.append(handler)

    # ------------------------------------------------------------------------------------------
    # Writes

    def add(self, obj: Any) -> Any:
        """Creates (or replaces) an object; the cluster owns it from now on."""
        old = self.get(obj.kind, obj.name, obj.namespace)
        stored = self._store(obj)
        self._notify("MODIFIED" if old is not None else "ADDED", old, stored)
        return stored

    def create(self, obj: Any) -> Any:
        """Creates an object; AlreadyExistsError if one with its kind and name exists."""
        if self.get(obj.kind, obj.name, obj.namespace) is not None:
            raise AlreadyExistsError(f'{obj.kind.lower()}s "{obj.name}" already exists')
        return self.add(obj)

    def update(self, obj: Any) -> Any:
        old = self.get(obj.kind, obj.name, obj.namespace)
        if old is None:
            raise NotFoundError(f'{obj.kind.lower()}s "{obj.name}" not found')
        stored = self._store(obj)
        self._notify("MODIFIED", old, stored)
        return stored

    def delete(self, obj: Any) -> None:
        """Deletes the stored object with this object's kind, namespace and name."""
        old = self._objects.get(obj.kind, {}).pop((obj.namespace, obj.name), None)
        if old is None:
            raise NotFoundError(f'{obj.kind.lower()}s "{obj.name}" not found')
        self._notify("DELETED", old, None)

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """Sets ``spec.nodeName`` like the API server's Binding subresource, with its checks."""
        pod = self.get("Pod", name, namespace)
        if pod is None:
            raise BindError(f'pods "{name}" not found')
        if uid and pod.uid != uid:
            raise BindError(
                f'Operation cannot be fulfilled on pods/binding "{name}": the UID in the '
                f"precondition ({uid}) does not match the UID in record ({pod.uid}). "
                "The object might have been deleted and then recreated"
            )
        if pod.spec.node_name:
            raise BindError(f'pod {name} is already assigned to node "{pod.spec.node_name}"')
        bound = pod.deep_copy()
        bound.spec.node_name = node_name
        self._replace(pod, bound)

    def update_pod_status(
        self,
        namespace: str,
        name: str,
        condition: dict[str, str] | None = None,
        nominated_node_name: str | None = None,
    ) -> None:
        """Patches a pod's PodScheduled-style condition and/or nominatedNodeName."""
        pod = self.get("Pod", name, namespace)
        if pod is None:
            raise NotFoundError(f'pods "{name}" not found')
        patched = pod.deep_copy()
        if nominated_node_name is not None:
            patched.status.nominated_node_name = nominated_node_name
        if condition is not None:
            _set_condition(patched.status.conditions, condition)
        self._replace(pod, patched)

    def record_event(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    # ------------------------------------------------------------------------------------------

    def _store(self, obj: Any) -> Any:
        revision = next(self._revision)
        current = obj.metadata.resource_version
        if not current.isdigit() or int(current) < revision:
            obj.metadata.resource_version = str(revision)
        self._objects.setdefault(obj.kind, {})[(obj.namespace, obj.name)] = obj
        return obj

    def _replace(self, old: Any, new: Any) -> None:
        self._notify("MODIFIED", old, self._store(new))

    def _notify(self, event_type: str, old: Any, new: Any) -> None:
        for handler in list(self._watchers):
            handler(event_type, old, new)


def _set_condition(conditions: list[PodCondition], condition: dict[str, str]) -> None:
    for index, existing in enumerate(conditions):
        if existing.type == condition["type"]:
            conditions[index] = PodCondition(**condition)
            return
    conditions.append(PodCondition(**condition))
