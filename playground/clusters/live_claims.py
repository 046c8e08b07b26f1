"""What kube-scheduler's DynamicResources writes to ResourceClaims, written the way it writes it.

The engine's DynamicResources plugin changes claims through its cluster (``update``,
``create``, ``delete``); for a live cluster each change becomes upstream's API call, through
the official client:

- **PreBind** (``bindClaim``): an allocation needs the claim's finalizer first, added with a
  plain ``PUT`` of the claim; then ``PUT resourceclaims/{name}/status`` with the allocation and
  the pod appended to ``reservedFor``. Both start from the claim as the server has it now
  (``GET``) and are tried again from a fresh copy on a 409 Conflict, as upstream's
  ``retry.RetryOnConflict``; a claim the server has allocated meanwhile, or is deleting, is
  refused with upstream's words.
- **Unreserve**: a strategic-merge ``PATCH`` of ``status`` removing the pod's ``reservedFor``
  entry (``{"$patch": "delete", "uid": ...}``) with the claim's uid as a precondition, which
  needs no current copy.
- **PostFilter** (deallocation): ``PUT .../status`` with allocation, reservedFor and devices
  cleared.
- the claim for **DRA extended resources**: ``POST`` and ``DELETE``.

Everything goes as JSON (``_preload_content=False``): the client's models would drop fields
the engine keeps. Nothing here logs a claim.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubernetes.client import ApiClient, ResourceV1Api
from kubernetes.client.exceptions import ApiException

from framework.api.resource_claim import RESOURCE_CLAIM_FINALIZER
from playground.clusters.live_writes import drained

CONFLICT = 409
RETRIES = 5
"""Attempts on a conflict: client-go's retry.DefaultRetry makes five."""
SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields")
"""Metadata the server sets on create: a create that carries a resourceVersion is refused."""


class ClaimWriteError(Exception):
    """A claim change the server refused, or one that upstream gives up on; the message is
    upstream's (``claim ns/name got allocated elsewhere in the meantime``) or the server's."""


class ClaimWrites:
    """The ResourceClaim calls of DynamicResources, on one cluster."""

    def __init__(self, api_client: ApiClient) -> None:
        self.api = ResourceV1Api(api_client)

    def write_status(self, desired: Mapping[str, Any], stored: Mapping[str, Any] | None) -> dict:
        """Brings the server's claim to ``desired``'s status (and finalizer), as the plugin
        step that made it would: Unreserve's patch when only reservations went, else
        ``bindClaim``'s or PostFilter's updates. ``stored`` is the claim as the workspace had
        it (the mirror's copy). Returns the claim as the server answered."""
        metadata = desired.get("metadata") or {}
        namespace, name = metadata.get("namespace", ""), metadata.get("name", "")
        removed = _removed_reservations(desired, stored)
        if removed is not None:
            return self._unreserve(namespace, name, metadata.get("uid", ""), removed)
        return self._update_status(namespace, name, desired, stored)

    def create(self, manifest: Mapping[str, Any]) -> dict:
        body = copy.deepcopy(dict(manifest))
        meta = body.setdefault("metadata", {})
        for key in SERVER_FIELDS:
            meta.pop(key, None)
        body.pop("status", None)  # the main resource ignores status; PreBind writes it next
        response = self.api.create_namespaced_resource_claim(
            meta.get("namespace", ""), body, _preload_content=False
        )
        return json.loads(response.data)

    def delete(self, namespace: str, name: str) -> None:
        # Read to its end, or the connection never goes back to the client's pool.
        drained(self.api.delete_namespaced_resource_claim(name, namespace, _preload_content=False))

    # ------------------------------------------------------------------------------------------

    def _update_status(
        self,
        namespace: str,
        name: str,
        desired: Mapping[str, Any],
        stored: Mapping[str, Any] | None,
    ) -> dict:
        """``bindClaim`` or PostFilter's deallocation, applied to the server's copy: what the
        engine changed (from the workspace's ``stored`` copy to ``desired``) is made on the
        claim as it is now, so reservations the mirror has not brought yet are kept."""
        change = _StatusChange.between(stored, desired)
        for attempt in range(RETRIES):
            current = self._read(namespace, name)
            _check(current, change)
            try:
                if change.allocation is not None and not _has_finalizer(current):
                    current = self._add_finalizer(current)
                current["status"] = change.applied_to(current.get("status") or {})
                response = self.api.replace_namespaced_resource_claim_status(
                    name, namespace, current, _preload_content=False
                )
                return json.loads(response.data)
            except ApiException as err:
                if err.status != CONFLICT or attempt == RETRIES - 1:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    def _add_finalizer(self, claim: dict) -> dict:
        claim["metadata"]["finalizers"] = [
            *(claim["metadata"].get("finalizers") or []),
            RESOURCE_CLAIM_FINALIZER,
        ]
        response = self.api.replace_namespaced_resource_claim(
            claim["metadata"]["name"],
            claim["metadata"]["namespace"],
            claim,
            _preload_content=False,
        )
        return json.loads(response.data)

    def _unreserve(self, namespace: str, name: str, uid: str, pod_uids: list[str]) -> dict:
        patch = {
            "metadata": {"uid": uid},
            "status": {"reservedFor": [{"$patch": "delete", "uid": pod} for pod in pod_uids]},
        }
        response = self.api.patch_namespaced_resource_claim_status(
            name, namespace, patch, _preload_content=False
        )
        return json.loads(response.data)

    def _read(self, namespace: str, name: str) -> dict:
        response = self.api.read_namespaced_resource_claim(name, namespace, _preload_content=False)
        return json.loads(response.data)


@dataclass(frozen=True)
class _StatusChange:
    """What the engine changed in a claim's status: an allocation made, the claim deallocated,
    pods added to ``reservedFor``."""

    allocation: dict[str, Any] | None
    deallocated: bool
    added: tuple[dict[str, Any], ...]

    @classmethod
    def between(cls, stored: Mapping[str, Any] | None, desired: Mapping[str, Any]) -> _StatusChange:
        old = (stored or {}).get("status") or {}
        new = desired.get("status") or {}
        known = {ref.get("uid") for ref in old.get("reservedFor") or []}
        made = new.get("allocation") if new.get("allocation") != old.get("allocation") else None
        return cls(
            allocation=made,
            deallocated=bool(old.get("allocation")) and not new.get("allocation"),
            added=tuple(r for r in new.get("reservedFor") or [] if r.get("uid") not in known),
        )

    def applied_to(self, status: Mapping[str, Any]) -> dict[str, Any]:
        updated = copy.deepcopy(dict(status))
        if self.deallocated:
            for key in ("allocation", "reservedFor", "devices"):
                updated.pop(key, None)
            return updated
        if self.allocation is not None:
            updated["allocation"] = copy.deepcopy(self.allocation)
        reserved = list(updated.get("reservedFor") or [])
        present = {ref.get("uid") for ref in reserved}
        reserved += [dict(ref) for ref in self.added if ref.get("uid") not in present]
        if reserved:
            updated["reservedFor"] = reserved
        return updated


def _check(current: Mapping[str, Any], change: _StatusChange) -> None:
    """Upstream's checks on the server's copy before it writes."""
    metadata = current.get("metadata") or {}
    ref = f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"
    if metadata.get("deletionTimestamp"):
        raise ClaimWriteError(f"claim {ref} got deleted in the meantime")
    if change.allocation is not None and (current.get("status") or {}).get("allocation"):
        raise ClaimWriteError(f"claim {ref} got allocated elsewhere in the meantime")


def _has_finalizer(claim: Mapping[str, Any]) -> bool:
    return RESOURCE_CLAIM_FINALIZER in ((claim.get("metadata") or {}).get("finalizers") or ())


def _removed_reservations(
    desired: Mapping[str, Any], stored: Mapping[str, Any] | None
) -> list[str] | None:
    """The pod uids ``desired`` drops from ``stored``'s reservedFor when that is its only
    change (Unreserve), else None."""
    if stored is None:
        return None
    old, new = stored.get("status") or {}, desired.get("status") or {}
    if old.get("allocation") != new.get("allocation"):
        return None
    old_uids = [ref.get("uid") for ref in old.get("reservedFor") or []]
    new_uids = {ref.get("uid") for ref in new.get("reservedFor") or []}
    removed = [uid for uid in old_uids if uid not in new_uids]
    if not removed or len(new_uids) != len(old_uids) - len(removed):
        return None
    return removed
