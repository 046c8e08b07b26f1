"""Pod groups come into a workspace only when its scheduler can place them.

A workspace's store answers as a kube-apiserver that serves ``scheduling.k8s.io/v1alpha2``, but
Workloads, PodGroups and pods naming a group are scheduled as groups only with the
``GenericWorkload`` gate on; without it, a gang's members would be scheduled one by one, which
is not what they ask for. So what a person writes (the import, the object editor) is refused,
naming the object, the field and the gate, while the workspace's latest configuration revision
(the one its scheduler runs or is about to) leaves the gate off. A live cluster's mirror is
taken as the cluster has it.
"""

from __future__ import annotations

from framework.api.errors import ObjectError
from framework.api.meta import KubeObject
from framework.api.pod_group import not_simulated
from framework.features import FeatureGateError, FeatureGates
from playground.workspaces.models import SchedulerConfiguration

GENERIC_WORKLOAD = "GenericWorkload"
NEEDS_THE_GATE = (
    "workload-aware (PodGroup) scheduling needs the GenericWorkload feature gate: turn it on "
    "in the workspace's scheduler configuration (Feature gates: "
    "GenericWorkload=true,GangScheduling=true)"
)


def generic_workload_enabled(workspace_id: int) -> bool:
    """Whether the workspace's latest configuration revision turns ``GenericWorkload`` on."""
    latest = (
        SchedulerConfiguration.objects.filter(workspace_id=workspace_id)
        .order_by("-revision")
        .values_list("feature_gates", flat=True)
        .first()
    )
    try:
        return FeatureGates.from_string(latest or "").enabled(GENERIC_WORKLOAD)
    except FeatureGateError:  # revisions are checked when saved; an old one may not be now
        return False


def gate_refusal(obj: KubeObject) -> ObjectError | None:
    """Why the object is refused with the gate off: a Workload or PodGroup (its ``kind``), or a
    pod's ``spec.schedulingGroup``; None for any other object."""
    refusal = not_simulated(obj, NEEDS_THE_GATE)
    if refusal is None:
        return None
    return ObjectError(refusal.owner, refusal.field or "kind", refusal.problem)
