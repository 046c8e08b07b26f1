"""Generic ephemeral volumes: the claim a pod's inline volume template becomes.

Mirrors ``component-helpers/storage/ephemeral``: the claim's name is derived from the pod and
volume names, and the claim only counts if the pod controls it.
"""

from __future__ import annotations

from framework.api.core import PersistentVolumeClaim
from framework.api.pod import Pod
from framework.api.volume import Volume


def volume_claim_name(pod: Pod, volume: Volume) -> str:
    return f"{pod.name}-{volume.name}"


def volume_is_for_pod(pod: Pod, claim: PersistentVolumeClaim) -> None:
    """Raises ValueError unless the claim was created for the pod (the pod is its controller)."""
    controller = claim.metadata.controller_ref()
    if claim.namespace != pod.namespace or controller is None or controller.uid != pod.uid:
        raise ValueError(
            f"PVC {claim.namespace}/{claim.name} was not created for pod "
            f"{pod.namespace}/{pod.name} (pod is not owner)"
        )
