"""A cluster frozen at a snapshot: reads answer from it, writes are recorded and not applied.

A what-if runs a real scheduling cycle, and a scheduling cycle writes: a failed one records a
FailedScheduling event and patches the PodScheduled condition and nominatedNodeName;
preemption marks its victims DisruptionTarget, deletes them and records Preempted events. Over
a ``DryRunCluster`` each of those calls is kept as a ``Write`` for the page to show ("the
scheduler would have ...") and the snapshot stays as it was, so nothing the cycle does can
change what the rest of the cycle reads either. No watch event is ever sent: nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from framework.cluster.interface import AlreadyExistsError, NotFoundError


@dataclass(frozen=True, slots=True)
class Write:
    """One call the scheduler made that would have changed the cluster.

    ``verb`` is the API call (``create``, ``delete``, ``patch``, ``update``), ``resource``
    what it names as kubectl would (``pods/binding``, ``pods/status``, ``events``), ``key``
    the object (``namespace/name``), ``detail`` what would have been sent.
    """

    verb: str
    resource: str
    key: str
    detail: dict[str, Any] = field(default_factory=dict)


class DryRunCluster:
    """The ``Cluster`` interface over fixed objects; every write lands in ``writes``.

    Objects are stored as given and never changed (they may be shared with a cache, as the
    playground's parsed objects are). Writes still check that their object exists and raise
    ``NotFoundError`` when it does not, as a real cluster would answer.
    """

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        self._objects: dict[str, dict[tuple[str, str], Any]] = {}
        for obj in objects:
            self._objects.setdefault(obj.kind, {})[(obj.namespace, obj.name)] = obj
        self.writes: list[Write] = []

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

    def watch(self, handler: Callable[[str, Any, Any], None]) -> None:
        """Accepted and never called: a snapshot does not change."""

    # ------------------------------------------------------------------------------------------
    # Writes, recorded

    def create(self, obj: Any) -> Any:
        if self.get(obj.kind, obj.name, obj.namespace) is not None:
            raise AlreadyExistsError(f'{_resource(obj.kind)} "{obj.name}" already exists')
        self._record("create", _resource(obj.kind), obj.key, {})
        return obj

    def update(self, obj: Any) -> Any:
        self._existing(obj.kind, obj.name, obj.namespace)
        self._record("update", _resource(obj.kind), obj.key, {})
        return obj

    def delete(self, obj: Any) -> None:
        self._existing(obj.kind, obj.name, obj.namespace)
        self._record("delete", _resource(obj.kind), obj.key, {})

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        self._existing("Pod", name, namespace)
        self._record("create", "pods/binding", f"{namespace}/{name}", {"node": node_name})

    def update_pod_status(
        self,
        namespace: str,
        name: str,
        condition: dict[str, str] | None = None,
        nominated_node_name: str | None = None,
    ) -> None:
        self._existing("Pod", name, namespace)
        detail: dict[str, Any] = {}
        if condition is not None:
            detail["condition"] = dict(condition)
        if nominated_node_name is not None:
            detail["nominatedNodeName"] = nominated_node_name
        self._record("patch", "pods/status", f"{namespace}/{name}", detail)

    def record_event(self, event: dict[str, Any]) -> None:
        regarding = event.get("regarding", {})
        key = "/".join(part for part in (regarding.get("namespace"), regarding.get("name")) if part)
        detail = {name: event[name] for name in ("type", "reason", "note") if name in event}
        self._record("create", "events", key, detail)

    # ------------------------------------------------------------------------------------------

    def deleted(self, kind: str = "Pod") -> list[str]:
        """Keys of the objects of a kind the scheduler deleted (preemption's victims)."""
        resource = _resource(kind)
        return [w.key for w in self.writes if w.verb == "delete" and w.resource == resource]

    def _existing(self, kind: str, name: str, namespace: str) -> Any:
        obj = self.get(kind, name, namespace)
        if obj is None:
            raise NotFoundError(f'{_resource(kind)} "{name}" not found')
        return obj

    def _record(self, verb: str, resource: str, key: str, detail: dict[str, Any]) -> None:
        self.writes.append(Write(verb, resource, key, detail))


def _resource(kind: str) -> str:
    """The resource a kind is written through (``Pod`` -> ``pods``)."""
    lower = kind.lower()
    return lower + ("es" if lower.endswith("s") else "s")
