"""The NamespaceLifecycle admission plugin: no new object in a namespace that does not exist.

kube-apiserver refuses to create a namespaced object whose namespace it does not have
(``namespaces "team-a" not found``), or one that is being deleted. Every cluster has its
system namespaces from the start, so objects in those need no Namespace object.
"""

from __future__ import annotations

from collections.abc import Callable

from framework.api.errors import ObjectError
from framework.api.meta import KubeObject

SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
"""Namespaces kube-apiserver creates at start-up (the first three it never lets be deleted)."""

TERMINATING = "Terminating"

NamespacePhase = Callable[[str], str | None]
"""``name -> status.phase`` of the cluster's Namespace (``""`` when unset), None if absent."""


def namespace_error(obj: KubeObject, phase_of: NamespacePhase) -> ObjectError | None:
    """Why creating ``obj`` would be refused for its namespace, or None."""
    if not obj.NAMESPACED or obj.kind == "Namespace":
        return None
    namespace = obj.namespace or "default"
    phase = phase_of(namespace)
    if phase is None and namespace not in SYSTEM_NAMESPACES:
        message = f'namespaces "{namespace}" not found'
        return ObjectError(obj.describe(), "metadata.namespace", message)
    if phase == TERMINATING:
        return ObjectError(
            obj.describe(),
            "metadata.namespace",
            f"unable to create new content in namespace {namespace} because it is being terminated",
        )
    return None


def phases_of(namespaces: list[KubeObject]) -> NamespacePhase:
    """A ``NamespacePhase`` over Namespace objects held in memory."""
    phases = {ns.name: (ns.to_dict().get("status") or {}).get("phase") or "" for ns in namespaces}
    return phases.get
