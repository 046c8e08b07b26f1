"""The workspace's cluster as the service's scheduler sees it: reads from memory, writes to the DB.

kube-scheduler never asks the API server for an object while it schedules: its listers read
informer caches, which the watch keeps current. Plugins here do the same reads (a pod's
Namespace for affinity, Services for default spreading...), for every pod; answering them from
the database would cost a query each. ``InformerCluster`` lists the workspace once, inside the
consistent read the scheduler starts in, and then applies each change from the log to its copy
before the scheduler's own handlers see it, as an informer updates its store first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playground.workspaces.cluster import DELETED, DatabaseCluster

Store = dict[str, dict[tuple[str, str], Any]]
"""kind -> (namespace, name) -> object, each kind in creation order."""


class InformerCluster(DatabaseCluster):
    """DatabaseCluster whose reads come from an in-memory copy once ``sync()`` has run."""

    def __init__(
        self, workspace_id: int, on_pod_deleted: Callable[[Any], None] | None = None
    ) -> None:
        super().__init__(workspace_id)
        self._store: Store | None = None
        self._on_pod_deleted = on_pod_deleted

    def sync(self) -> None:
        """Lists every object into memory and follows the change log from there on.

        Call it inside ``consistent_read()`` and before anyone else watches, so the copy is
        current before other handlers run.
        """
        database = super()
        self._store = {
            kind: {(obj.namespace, obj.name): obj for obj in database.list(kind)}
            for kind in database.kinds()
        }
        self.watch(self._apply)

    # ------------------------------------------------------------------------------------------
    # Reads

    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        if self._store is None:
            return super().get(kind, name, namespace)
        return self._store.get(kind, {}).get((namespace, name))

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        if self._store is None:
            return super().list(kind, namespace)
        objects = self._store.get(kind, {})
        if namespace is None:
            return list(objects.values())
        return [obj for (ns, _), obj in objects.items() if ns == namespace]

    def kinds(self) -> list[str]:
        if self._store is None:
            return super().kinds()
        return sorted(kind for kind, objects in self._store.items() if objects)

    # ------------------------------------------------------------------------------------------
    # Writes the scheduler makes

    def delete(self, obj: Any) -> None:
        """Deletes as the database cluster does; a pod deleted by the scheduler is a victim."""
        super().delete(obj)
        if obj.kind == "Pod" and self._on_pod_deleted is not None:
            self._on_pod_deleted(obj)

    # ------------------------------------------------------------------------------------------

    def _apply(self, event_type: str, old: Any, new: Any) -> None:
        assert self._store is not None
        obj = new if new is not None else old
        objects = self._store.setdefault(obj.kind, {})
        key = (obj.namespace, obj.name)
        if event_type == DELETED:
            objects.pop(key, None)
        else:
            objects[key] = new
