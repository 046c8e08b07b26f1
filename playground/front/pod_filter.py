"""Which pods the pods page lists: by name, namespace, state, node and labels.

The filter lives in the URL (``?name=web&state=unschedulable&labels=app%3Dweb``), so a
filtered list can be linked, paged, followed live and deleted in bulk. Name, namespace, node
and bound / not bound are matched by the database; labels and the other states in Python,
over the pods left (a label selector is more than the database can run, and where an unbound
pod stands comes from the scheduler's published queue).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from framework.api.label_syntax import parse_selector
from framework.api.labels import Selector, SelectorError
from playground.front.pod_states import LABELS, state_of
from playground.workspaces.models import ClusterObject, Workspace

FIELDS = ("name", "namespace", "state", "node", "labels")
"""The filter's fields, as named in the URL and the form."""
BOUND = "bound"

Where = dict[str, tuple[str, dict[str, Any]]]
"""uid -> (list name, entry) of every pod on the scheduler's board (``Board.where()``)."""


@dataclass(frozen=True, slots=True)
class PodFilter:
    """What a person asked for; ``errors`` maps a field to why it cannot be used."""

    name: str = ""
    namespace: str = ""
    state: str = ""
    node: str = ""
    labels: str = ""
    selector: Selector | None = field(default=None, compare=False)
    errors: dict[str, str] = field(default_factory=dict, compare=False)

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> PodFilter:
        """The filter of a request's GET or POST data (missing fields match every pod)."""
        values = {name: str(query.get(name) or "").strip() for name in FIELDS}
        errors = {}
        selector = None
        try:
            selector = parse_selector(values["labels"])
        except SelectorError as err:
            errors["labels"] = str(err)
        if values["state"] and values["state"] not in LABELS:
            choices = ", ".join(LABELS)
            errors["state"] = f'unknown state "{values["state"]}": choose one of {choices}'
        return cls(**values, selector=selector, errors=errors)

    @property
    def active(self) -> bool:
        return any(self.fields())

    def fields(self) -> list[tuple[str, str]]:
        """(field, value) of the fields set, in form order."""
        return [(name, getattr(self, name)) for name in FIELDS if getattr(self, name)]

    def query_string(self) -> str:
        """The filter as URL parameters ("" when it is empty)."""
        return urlencode(self.fields())

    def pods(self, workspace: Workspace, where: Where) -> Any:
        """The matching pods by namespace and name: a queryset, or a list when Python had to
        look at each pod. A filter with errors matches none."""
        rows = ClusterObject.objects.filter(workspace=workspace, kind="Pod")
        if self.errors:
            return rows.none()
        if self.name:
            rows = rows.filter(name__icontains=self.name)
        if self.namespace:
            rows = rows.filter(namespace=self.namespace)
        if self.node:
            rows = rows.filter(node_name=self.node)
        if self.state == BOUND:
            rows = rows.exclude(node_name="")
        elif self.state:
            rows = rows.filter(node_name="")
        rows = rows.order_by("namespace", "name")
        by_labels = self.selector is not None and not self.selector.empty()
        if not by_labels and self.state in ("", BOUND):
            return rows
        return [row for row in rows if self._matches(row, where)]

    def _matches(self, pod: ClusterObject, where: Where) -> bool:
        if self.state not in ("", BOUND) and state_of(pod, where).name != self.state:
            return False
        labels = (pod.manifest.get("metadata") or {}).get("labels") or {}
        return self.selector is None or self.selector.matches(labels)
