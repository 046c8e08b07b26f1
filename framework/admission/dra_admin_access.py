"""Who may ask for admin access to devices: the ResourceClaim and template strategies' check.

A request with ``adminAccess: true`` gets devices even when other claims hold them (to monitor
or debug them), so kube-apiserver creates such a claim or template only in a namespace labelled
``resource.kubernetes.io/admin-access: "true"`` (``AuthorizedForAdmin``, which runs with the
kind's validation and comes first in its error list). Templates are checked with the claim's
field path, as upstream reports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from framework.api.field_errors import FieldError, forbidden
from framework.api.meta import KubeObject

ADMIN_NAMESPACE_LABEL = "resource.kubernetes.io/admin-access"

NamespaceLabels = Callable[[str], Mapping[str, str] | None]
"""``name -> metadata.labels`` of the cluster's Namespace, None if there is none."""


def requests_admin_access(obj: KubeObject) -> bool:
    return _admin_request_index(obj) is not None


def admin_access_errors(obj: KubeObject, labels_of: NamespaceLabels) -> list[FieldError]:
    """The Forbidden error for a claim or template asking for admin access outside an admin
    namespace, or none."""
    index = _admin_request_index(obj)
    if index is None:
        return []
    labels = labels_of(obj.namespace or "default") or {}
    if labels.get(ADMIN_NAMESPACE_LABEL) == "true":
        return []
    path = f"spec.devices.requests[{index}].adminAccess"
    message = (
        f"admin access to devices requires the `{ADMIN_NAMESPACE_LABEL}: true` label on the "
        "containing namespace"
    )
    return [forbidden(path, message)]


def _admin_request_index(obj: KubeObject) -> int | None:
    """The first request asking for admin access (only ``exactly`` requests can)."""
    if obj.kind not in ("ResourceClaim", "ResourceClaimTemplate"):
        return None
    for index, request in enumerate(obj.spec.requests):
        if request.exactly is not None and request.exactly.admin_access:
            return index
    return None
