"""Finding a pod's ResourceClaims, as upstream's ``resourceclaim`` helper package does.

A pod names a claim directly (``resourceClaimName``) or through a template
(``resourceClaimTemplateName``); for a template, the ResourceClaim controller records the
claim it made in the pod's ``status.resourceClaimStatuses``, and that claim must be owned by
the pod. Errors here mean "not schedulable yet": their texts are upstream's, word for word.
"""

from __future__ import annotations

from typing import Any

from framework.api.pod import Pod, PodResourceClaim
from framework.api.resource_claim import ResourceClaim, ResourceClaimConsumerReference

RESOURCE_CLAIM_KIND = "ResourceClaim"
RESOURCE_CLAIM_RESOURCE = "resourceclaim.resource.k8s.io"

ERR_CLAIM_NOT_FOUND = "ResourceClaim not created yet"
ERR_API_UNSUPPORTED = "none of the supported fields are set"


class ClaimError(Exception):
    """A claim of the pod is missing or unusable: the pod waits (UnschedulableAndUnresolvable)."""


def claim_name(pod: Pod, pod_claim: PodResourceClaim) -> tuple[str | None, bool]:
    """The claim's name (None: none is needed) and whether the pod must own it (``Name``)."""
    if pod_claim.resource_claim_name is not None:
        return pod_claim.resource_claim_name, False
    if pod_claim.resource_claim_template_name is not None:
        for status in pod.status.resource_claim_statuses:
            if status.name == pod_claim.name:
                return status.resource_claim_name, True
        raise ClaimError(f'pod "{pod.namespace}/{pod.name}": {ERR_CLAIM_NOT_FOUND}')
    raise ClaimError(
        f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pod_claim.name}": '
        f"{ERR_API_UNSUPPORTED}"
    )


def check_is_for_pod(pod: Pod, claim: ResourceClaim) -> None:
    """A claim made from a template must be controlled by the pod (``IsForPod``)."""
    if claim.namespace != pod.namespace:
        raise ClaimError(
            f"ResourceClaim {claim.namespace}/{claim.name} is not in the same namespace as "
            f"Pod {pod.namespace}/{pod.name}"
        )
    controller = claim.metadata.controller_ref()
    if controller is None or controller.uid != pod.uid:
        raise ClaimError(
            f"ResourceClaim {claim.namespace}/{claim.name} was not created for "
            f"Pod {pod.namespace}/{pod.name} (Pod is not owner)"
        )


def pod_claims(cluster: Any, pod: Pod) -> list[ResourceClaim]:
    """Every claim of the pod that exists, in ``spec.resourceClaims`` order
    (``foreachPodResourceClaim``); ClaimError for the first one that stops the pod."""
    claims = []
    for pod_claim in pod.spec.resource_claims:
        name, must_check_owner = claim_name(pod, pod_claim)
        if name is None:
            # The controller decided no claim is needed: there is nothing to allocate.
            continue
        claim = cluster.get(RESOURCE_CLAIM_KIND, name, pod.namespace) if cluster else None
        if claim is None:
            raise ClaimError(f'{RESOURCE_CLAIM_RESOURCE} "{name}" not found')
        if claim.metadata.deletion_timestamp is not None:
            raise ClaimError(f'resourceclaim "{claim.name}" is being deleted')
        if must_check_owner:
            check_is_for_pod(pod, claim)
        claims.append(claim)
    return claims


def is_reserved_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    """Whether the pod is among the claim's consumers (``IsReservedForPod``, pods only)."""
    return any(ref.uid == pod.uid for ref in claim.status.reserved_for)


def pod_reference(pod: Pod) -> ResourceClaimConsumerReference:
    """How a pod is recorded in a claim's ``status.reservedFor`` (core group: no apiGroup)."""
    return ResourceClaimConsumerReference(resource="pods", name=pod.name, uid=pod.uid)


def klog_ref(obj: Any) -> str:
    """``namespace/name`` as klog.KObj prints it."""
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
