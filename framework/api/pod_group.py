"""scheduling.k8s.io/v1alpha2 Workload and PodGroup: the groups kube-scheduler v1.36 places as
a whole (workload-aware scheduling, behind the GenericWorkload and GangScheduling gates).

A pod joins a group through ``spec.schedulingGroup.podGroupName``; the PodGroup says how the
group is scheduled (``basic``, or ``gang`` with ``minCount``), in which topology domain, and
what disrupting it means. A Workload holds the templates PodGroups may be made from; a
PodGroup needs none (kube-apiserver accepts a standalone one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.errors import ObjectError
from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta

API_VERSION = "scheduling.k8s.io/v1alpha2"

DISRUPTION_MODE_POD = "Pod"
DISRUPTION_MODE_POD_GROUP = "PodGroup"
DISRUPTION_MODES = (DISRUPTION_MODE_POD, DISRUPTION_MODE_POD_GROUP)
DEFAULT_DISRUPTION_MODE = DISRUPTION_MODE_POD
"""What kube-apiserver fills in when a PodGroup names none (seen on v1.36.2)."""

POD_GROUP_PROTECTION_FINALIZER = "scheduling.k8s.io/podgroup-protection"
"""The finalizer kube-apiserver adds to every new PodGroup."""

# The PodGroup's status conditions and their reasons (staging/src/k8s.io/api/scheduling/v1alpha2).
POD_GROUP_SCHEDULED = "PodGroupScheduled"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_SCHEDULED = "Scheduled"
"""The reason kube-scheduler gives PodGroupScheduled=True (schedule_one_podgroup.go)."""
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

WORKLOAD_MAX_POD_GROUP_TEMPLATES = 8
MAX_POD_GROUP_RESOURCE_CLAIMS = 4
MAX_TOPOLOGY_CONSTRAINTS = 1

NEEDS_GENERIC_WORKLOAD = (
    "workload-aware (PodGroup) scheduling needs the GenericWorkload feature gate"
)
"""Why a simulation with the gate off refuses them (kube-apiserver would not serve them)."""


@dataclass(slots=True)
class SchedulingPolicy:
    """``basic`` (pods scheduled one by one, as a group) or ``gang`` (all of ``min_count`` or
    none); exactly one is set on a valid object."""

    gang: bool = False
    min_count: int = 0

    @property
    def name(self) -> str:
        """The policy as the API names it: ``gang`` or ``basic``."""
        return "gang" if self.gang else "basic"

    @classmethod
    def parse(cls, f: Fields) -> SchedulingPolicy:
        gang = f.optional_mapping("gang")
        if gang is None:
            return cls()
        return cls(gang=True, min_count=gang.integer("minCount"))


@dataclass(slots=True)
class PodGroupTemplateReference:
    workload_name: str = ""
    pod_group_template_name: str = ""

    @classmethod
    def parse(cls, f: Fields) -> PodGroupTemplateReference:
        workload = f.mapping("workload")
        return cls(workload.string("workloadName"), workload.string("podGroupTemplateName"))


@dataclass(slots=True)
class PodGroupSpec:
    scheduling_policy: SchedulingPolicy = field(default_factory=SchedulingPolicy)
    topology_keys: list[str] = field(default_factory=list)
    """``schedulingConstraints.topology[*].key``: the group goes to one domain of each."""
    disruption_mode: str = DEFAULT_DISRUPTION_MODE
    priority_class_name: str = ""
    priority: int = 0
    template_ref: PodGroupTemplateReference | None = None

    @classmethod
    def parse(cls, f: Fields) -> PodGroupSpec:
        constraints = f.mapping("schedulingConstraints")
        return cls(
            scheduling_policy=SchedulingPolicy.parse(f.mapping("schedulingPolicy")),
            topology_keys=[c.string("key") for c in constraints.mappings("topology")],
            disruption_mode=f.string("disruptionMode") or DEFAULT_DISRUPTION_MODE,
            priority_class_name=f.string("priorityClassName"),
            priority=f.integer("priority"),
            template_ref=f.parse_optional("podGroupTemplateRef", PodGroupTemplateReference.parse),
        )


@dataclass(slots=True)
class Condition:
    """A metav1.Condition of the group's status."""

    type: str
    status: str
    reason: str = ""
    message: str = ""

    @classmethod
    def parse(cls, f: Fields) -> Condition:
        return cls(f.string("type"), f.string("status"), f.string("reason"), f.string("message"))


class PodGroup(KubeObject):
    __slots__ = ("conditions", "spec")

    KIND = "PodGroup"
    API_VERSION = API_VERSION
    NAMESPACED = True

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: PodGroupSpec | None = None,
        conditions: list[Condition] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec or PodGroupSpec()
        self.conditions = conditions or []

    def condition(self, condition_type: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == condition_type), None)

    def with_condition(self, condition: Condition) -> PodGroup | None:
        """This group with ``condition`` set, as kube-scheduler patches it; None when nothing
        would change, or when it would turn a True condition False (a group once scheduled
        stays so for later cycles of extra members)."""
        current = self.condition(condition.type)
        if current is not None:
            if current.status == "True" and condition.status != "True":
                return None
            if current == condition:
                return None
        manifest = self.to_dict()
        conditions = manifest.setdefault("status", {}).setdefault("conditions", [])
        entry = {
            "type": condition.type,
            "status": condition.status,
            "observedGeneration": self.metadata.generation,
            "reason": condition.reason,
            "message": condition.message,
        }
        for index, existing in enumerate(conditions):
            if existing.get("type") == condition.type:
                conditions[index] = {**existing, **entry}
                break
        else:
            conditions.append(entry)
        return PodGroup.from_dict(manifest)

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(
            metadata,
            spec=PodGroupSpec.parse(f.mapping("spec")),
            conditions=f.mapping("status").parse_list("conditions", Condition.parse),
            manifest=f.data,
        )


@dataclass(slots=True)
class PodGroupTemplate:
    name: str
    scheduling_policy: SchedulingPolicy
    topology_keys: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> PodGroupTemplate:
        constraints = f.mapping("schedulingConstraints")
        return cls(
            f.string("name"),
            SchedulingPolicy.parse(f.mapping("schedulingPolicy")),
            [c.string("key") for c in constraints.mappings("topology")],
        )


class Workload(KubeObject):
    __slots__ = ("pod_group_templates",)

    KIND = "Workload"
    API_VERSION = API_VERSION
    NAMESPACED = True

    def __init__(
        self,
        metadata: ObjectMeta,
        pod_group_templates: list[PodGroupTemplate] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.pod_group_templates = pod_group_templates or []

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        templates = f.mapping("spec").parse_list("podGroupTemplates", PodGroupTemplate.parse)
        return cls(metadata, templates, manifest=f.data)


def not_simulated(obj: KubeObject, reason: str) -> ObjectError | None:
    """Why the object is refused where pod groups are not scheduled (``reason``): a Workload,
    a PodGroup, or a pod that names its group (scheduled alone it would be scheduled wrong)."""
    if isinstance(obj, PodGroup | Workload):
        return ObjectError(obj.describe(), "", reason)
    if obj.kind == "Pod" and getattr(obj.spec, "pod_group_name", None) is not None:
        return ObjectError(obj.describe(), "spec.schedulingGroup", reason)
    return None


def with_defaults(manifest: dict[str, Any]) -> dict[str, Any]:
    """A new PodGroup's manifest as kube-apiserver stores it, in place: ``disruptionMode``
    defaulted to ``Pod`` and the protection finalizer added (seen on v1.36.2)."""
    spec = manifest.setdefault("spec", {})
    if spec.get("disruptionMode") is None:
        spec["disruptionMode"] = DEFAULT_DISRUPTION_MODE
    finalizers = manifest.setdefault("metadata", {}).setdefault("finalizers", [])
    if POD_GROUP_PROTECTION_FINALIZER not in finalizers:
        finalizers.append(POD_GROUP_PROTECTION_FINALIZER)
    return manifest
