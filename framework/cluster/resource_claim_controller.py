"""The part of kube-controller-manager's ResourceClaim controller a simulation needs.

In a cluster the controller creates one ResourceClaim per pod claim that names a
ResourceClaimTemplate, owned by the pod and named from ``<pod>-<claim>-`` (generateName), and
records it in the pod's ``status.resourceClaimStatuses``; the scheduler waits at PreEnqueue
until then. When a pod goes away it removes the pod from its claims' ``reservedFor``,
deallocates claims nobody uses any more (those the scheduler allocated: with its finalizer,
which goes too), and deletes the claims generated for the pod.

Names: the API server appends five random characters to a generateName; here they are derived
from the pod's UID and claim name, so a simulation gives the same names every time.
"""

from __future__ import annotations

from typing import Any

from framework.api.meta import controller_reference
from framework.api.pod import Pod
from framework.api.resource_claim import ResourceClaim, has_finalizer, with_finalizer
from framework.cluster.generated_names import deterministic_suffix
from framework.cluster.memory import InMemoryCluster

POD_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
"""resourceapi.PodResourceClaimAnnotation: which pod claim a generated claim is for."""

MAX_BASE_LEN = 57
"""Room for a hyphen and five random characters in a 63-character name (upstream's rule)."""


class ResourceClaimController:
    """Creates claims from templates for new pods and cleans up after deleted ones."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster

    def start(self) -> None:
        """Handles the pods already there (the informer's initial list), then watches."""
        for pod in list(self.cluster.list("Pod")):
            self.sync_pod(pod)
        self.cluster.watch(self.on_event)

    def on_event(self, event_type: str, old: Any, new: Any) -> None:
        if event_type == "DELETED":
            if old is not None and old.kind == "Pod":
                self.pod_deleted(old)
        elif new is not None and new.kind == "Pod":
            self.sync_pod(new)
        elif new is not None and new.kind == "ResourceClaimTemplate":
            self.template_changed(new)

    def template_changed(self, template: Any) -> None:
        """Syncs the pods waiting for this template (upstream enqueues them by an index of
        pods by template), so a pod created before its template gets its claim."""
        for pod in list(self.cluster.list("Pod", template.namespace)):
            if any(
                claim.resource_claim_template_name == template.name
                for claim in pod.spec.resource_claims
            ):
                self.sync_pod(pod)

    def sync_pod(self, pod: Pod) -> None:
        """Creates the pod's missing claims and records them in its status (``syncPod``)."""
        if not pod.spec.resource_claims:
            return
        recorded = {s.name for s in pod.status.resource_claim_statuses}
        new_statuses: list[dict[str, str]] = []
        for pod_claim in pod.spec.resource_claims:
            template_name = pod_claim.resource_claim_template_name
            if template_name is None or pod_claim.name in recorded:
                continue
            claim = self._find_generated_claim(pod, pod_claim.name)
            if claim is None:
                template = self.cluster.get("ResourceClaimTemplate", template_name, pod.namespace)
                if template is None:
                    # Upstream retries with `resource claim template "<name>": ... not found`.
                    continue
                claim = self.cluster.add(generated_claim(pod, pod_claim.name, template, self))
            new_statuses.append({"name": pod_claim.name, "resourceClaimName": claim.name})
        if new_statuses:
            self._record_statuses(pod, new_statuses)

    def pod_deleted(self, pod: Pod) -> None:
        """Frees the pod's reservations; deletes the claims generated for it (owner GC)."""
        for claim in list(self.cluster.list("ResourceClaim", pod.namespace)):
            if _is_generated_for(claim, pod):
                self.cluster.delete(claim)
                continue
            remaining = [ref for ref in claim.status.reserved_for if ref.uid != pod.uid]
            if len(remaining) == len(claim.status.reserved_for):
                continue
            updated = claim.deep_copy()
            updated.status.reserved_for = remaining
            if not remaining and has_finalizer(claim):
                # Allocated by the scheduler: deallocate, and drop the finalizer with it.
                updated = with_finalizer(updated, False)
                updated.status.allocation = None
            self.cluster.update(updated)

    def name_taken(self, namespace: str, name: str) -> bool:
        return self.cluster.get("ResourceClaim", name, namespace) is not None

    def _find_generated_claim(self, pod: Pod, pod_claim_name: str) -> ResourceClaim | None:
        """A claim made before the pod's status was written (``findPodResourceClaim``)."""
        for claim in self.cluster.list("ResourceClaim", pod.namespace):
            annotation = claim.metadata.annotations.get(POD_RESOURCE_CLAIM_ANNOTATION)
            if _is_generated_for(claim, pod) and annotation == pod_claim_name:
                return claim
        return None

    def _record_statuses(self, pod: Pod, new_statuses: list[dict[str, str]]) -> None:
        manifest = pod.to_dict()
        status = manifest.setdefault("status", {})
        status["resourceClaimStatuses"] = [
            *(status.get("resourceClaimStatuses") or []),
            *new_statuses,
        ]
        self.cluster.update(Pod.from_dict(manifest))


def claims_for_new_pod(pod: Pod, objects: list[Any]) -> tuple[Pod, list[ResourceClaim]]:
    """The pod as the controller leaves it (claims named in its status) and the claims it
    creates, given the templates and claims among ``objects``; nothing is changed."""
    kinds = ("ResourceClaimTemplate", "ResourceClaim")
    scratch = InMemoryCluster([o for o in objects if o.kind in kinds] + [pod])
    existing = {claim.key for claim in scratch.list("ResourceClaim")}
    ResourceClaimController(scratch).start()
    created = [claim for claim in scratch.list("ResourceClaim") if claim.key not in existing]
    return scratch.get("Pod", pod.name, pod.namespace), created


def generate_name(pod_name: str, pod_claim_name: str) -> str:
    """``<pod>-<claim>-``, both parts cut in proportion when longer than MAX_BASE_LEN."""
    base = f"{pod_name}-{pod_claim_name}-"
    if len(base) > MAX_BASE_LEN:
        # As upstream: the cut base has no trailing hyphen.
        base = (
            pod_name[: len(pod_name) * MAX_BASE_LEN // len(base)]
            + "-"
            + pod_claim_name[: len(pod_claim_name) * MAX_BASE_LEN // len(base)]
        )
    return base


def generated_claim(
    pod: Pod, pod_claim_name: str, template: Any, names: ResourceClaimController
) -> ResourceClaim:
    """The claim the controller creates: the template's spec, labels and annotations."""
    base = generate_name(pod.name, pod_claim_name)
    attempt = 0
    name = base + deterministic_suffix(f"{pod.uid}/{pod_claim_name}")
    while names.name_taken(pod.namespace, name):
        attempt += 1
        name = base + deterministic_suffix(f"{pod.uid}/{pod_claim_name}", attempt)
    template_metadata = template.claim_metadata
    annotations = dict(template_metadata.get("annotations") or {})
    annotations[POD_RESOURCE_CLAIM_ANNOTATION] = pod_claim_name
    metadata: dict[str, Any] = {
        "name": name,
        "generateName": base,
        "namespace": pod.namespace,
        "annotations": annotations,
        "ownerReferences": [controller_reference(pod)],
    }
    if template_metadata.get("labels"):
        metadata["labels"] = dict(template_metadata["labels"])
    spec = (template.manifest.get("spec") or {}).get("spec") or {}
    return ResourceClaim.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": metadata,
            "spec": spec,
        }
    )


def _is_generated_for(claim: ResourceClaim, pod: Pod) -> bool:
    controller = claim.metadata.controller_ref()
    return controller is not None and controller.kind == "Pod" and controller.uid == pod.uid
