"""Namespaces an incoming pod's affinity terms reach, and the labels of the pod's namespace."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping

    from framework.cluster.interface import Cluster
    from framework.interface.node_info import AffinityTerm

TermT = TypeVar("TermT", bound="AffinityTerm")


def merge_affinity_term_namespaces_if_not_empty(term: TermT, cluster: Cluster | None) -> TermT:
    """Adds the namespaces the term's namespaceSelector selects to its namespace list.

    The incoming pod's terms are then matched without looking up other pods' namespaces.
    Upstream passes the term by value: the namespace set it extends is shared, but the
    selector it resets to Nothing is a copy, so the selector stays in force as well. Against
    the empty labels terms are matched with, it still matches when it only has NotIn or
    DoesNotExist requirements; that is kept here on purpose.
    """
    if term.namespace_selector.empty():
        return term
    selected = {
        namespace.name
        for namespace in (cluster.list("Namespace") if cluster is not None else [])
        if term.namespace_selector.matches(namespace.labels)
    }
    if selected <= term.namespaces:
        return term
    return dataclasses.replace(term, namespaces=term.namespaces | selected)


def get_namespace_labels_snapshot(namespace: str, cluster: Cluster | None) -> Mapping[str, str]:
    """A copy of the namespace's labels; none when the Namespace object is unknown."""
    found = cluster.get("Namespace", namespace) if cluster is not None else None
    return dict(found.labels) if found is not None else {}
