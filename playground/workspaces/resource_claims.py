"""What kube-controller-manager's ResourceClaim controller does when a pod is created.

A pod whose ``spec.resourceClaims`` name a ResourceClaimTemplate gets, from the controller, one
ResourceClaim per such entry and their names in ``status.resourceClaimStatuses``; until then
the scheduler keeps it waiting at PreEnqueue. The playground applies the controller's work in
the same write as the pod: the claims are stored just before it, the pod with its status; a
pod stored before its template gets them in the write that stores the template. The claims
are made by the engine's emulation (``framework.cluster.resource_claim_controller``), so names
match what ``simulate`` gives. Deleted pods' claims are released by the store
(``DatabaseCluster.delete``).
"""

from __future__ import annotations

from collections.abc import Callable

from framework.api.meta import KubeObject
from framework.cluster.resource_claim_controller import claims_for_new_pod

CLAIM_KINDS = ("ResourceClaimTemplate", "ResourceClaim")


def needs_claims(obj: KubeObject) -> bool:
    """A pod with a template claim its status does not name yet."""
    if obj.kind != "Pod":
        return False
    recorded = {status.name for status in obj.status.resource_claim_statuses}
    return any(
        claim.resource_claim_template_name is not None and claim.name not in recorded
        for claim in obj.spec.resource_claims
    )


def waits_for(pod: KubeObject, templates: set[tuple[str, str]]) -> bool:
    """A pod that needs a claim from one of these (namespace, name) templates."""
    return needs_claims(pod) and any(
        (pod.namespace, claim.resource_claim_template_name) in templates
        for claim in pod.spec.resource_claims
    )


def with_generated_claims(
    batch: list[KubeObject],
    is_new: Callable[[KubeObject], bool],
    stored: list[KubeObject],
) -> list[KubeObject]:
    """The batch with each new pod's claims put before it and the pod's status naming them.

    ``stored`` are the templates and claims already in the cluster; the batch's own count too.
    """
    known = [*stored, *(o for o in batch if o.kind in CLAIM_KINDS)]
    expanded: list[KubeObject] = []
    for obj in batch:
        if is_new(obj) and needs_claims(obj):
            obj, claims = claims_for_new_pod(obj, known)
            known.extend(claims)
            expanded.extend(claims)
        expanded.append(obj)
    return expanded
