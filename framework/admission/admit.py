"""Admission of a whole set of objects held in memory, as kube-apiserver would create them.

``simulate`` reads its objects from one file; each is created as if by ``kubectl apply``,
with the file's Namespaces, PriorityClasses and RuntimeClasses taken to exist already (the file is a
cluster's state, in whatever order it lists things); only a second global default
PriorityClass is refused in file order, as creating them one by one would. Admission and
validation come in kube-apiserver's order, so an object is refused for what upstream would
name first.
"""

from __future__ import annotations

from framework.admission import runtime_class
from framework.admission.dra_admin_access import admin_access_errors
from framework.admission.namespace_lifecycle import NamespacePhase, namespace_error, phases_of
from framework.admission.priority import (
    ListedPriorityClasses,
    admit_pod,
    admit_pod_group,
    priority_class_error,
)
from framework.api.errors import ObjectError
from framework.api.loader import NewObject
from framework.api.meta import KubeObject
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup, with_defaults
from framework.api.runtime_class import RuntimeClass
from framework.api.scheduling import PriorityClass

FIRST_KINDS = ("Namespace", "PriorityClass", "RuntimeClass")
"""Created before the file's other objects, which admission looks them up for."""


def create_objects(new: list[NewObject]) -> tuple[list[KubeObject], list[ObjectError]]:
    """The objects as kube-apiserver creates them (pods with their priority resolved), and
    every refusal, in the objects' order.

    Each object goes through upstream's steps in their order, its first refusal reported:
    mutating admission (NamespaceLifecycle, then Priority resolving a pod's priority, then
    RuntimeClass setting its overhead), validation (for a claim or template, the DRA
    admin-access check first, as its strategy does), validating admission (Priority's one
    default PriorityClass, RuntimeClass's overhead check). The file's Namespaces,
    PriorityClasses and RuntimeClasses are created first, so its other objects find them.
    """
    refusals: dict[int, ObjectError] = {}
    created: dict[int, KubeObject] = {}
    classes = ListedPriorityClasses([])
    first = [i for i, n in enumerate(new) if n.obj.kind in FIRST_KINDS]
    for index in first:
        refusal = new[index].validation_error()
        obj = new[index].obj
        if refusal is None and isinstance(obj, PriorityClass):
            refusal = priority_class_error(obj, classes.listed())
            if refusal is None:
                classes.add(obj)
        _record(index, obj, refusal, created, refusals)
    namespaces = [o for o in created.values() if o.kind == "Namespace"]
    phase_of = phases_of(namespaces)
    labels_of = {ns.name: ns.labels for ns in namespaces}.get
    runtime_classes = {o.name: o for o in created.values() if isinstance(o, RuntimeClass)}.get
    for index, item in enumerate(new):
        if index not in created and index not in refusals:
            obj, refusal = _admitted(item, phase_of, classes, runtime_classes)
            if refusal is None:
                refusal = item.validation_error(admin_access_errors(obj, labels_of))
            if refusal is None and isinstance(obj, Pod):
                refusal = _runtime_class_validation(obj, runtime_classes)
            _record(index, obj, refusal, created, refusals)
    return [created[i] for i in sorted(created)], [refusals[i] for i in sorted(refusals)]


def _admitted(
    item: NewObject,
    phase_of: NamespacePhase,
    classes: ListedPriorityClasses,
    runtime_classes: runtime_class.RuntimeClasses,
) -> tuple[KubeObject, ObjectError | None]:
    """The object after mutating admission, or why admission refuses it."""
    refusal = namespace_error(item.obj, phase_of)
    if refusal is not None or not isinstance(item.obj, Pod | PodGroup):
        return item.obj, refusal
    try:
        if isinstance(item.obj, PodGroup):
            return _admitted_pod_group(item.obj, classes), None
        return _admitted_pod(item.obj, classes, runtime_classes), None
    except ObjectError as err:
        return item.obj, err


def _runtime_class_validation(
    pod: Pod, runtime_classes: runtime_class.RuntimeClasses
) -> ObjectError | None:
    try:
        runtime_class.validate_pod(pod.to_dict(), pod.describe(), runtime_classes)
    except ObjectError as err:
        return err
    return None


def _record(
    index: int,
    obj: KubeObject,
    refusal: ObjectError | None,
    created: dict[int, KubeObject],
    refusals: dict[int, ObjectError],
) -> None:
    if refusal is None:
        created[index] = obj
    else:
        refusals[index] = refusal


def _admitted_pod_group(group: PodGroup, classes: ListedPriorityClasses) -> PodGroup:
    """Defaulted (disruption mode, protection finalizer) and its priority resolved."""
    manifest = with_defaults(group.to_dict())
    admit_pod_group(manifest, group.describe(), classes)
    return PodGroup.from_dict(manifest)


def _admitted_pod(
    pod: Pod, classes: ListedPriorityClasses, runtime_classes: runtime_class.RuntimeClasses
) -> Pod:
    """Priority, then RuntimeClass (kube-apiserver's order of mutating plugins). A pod that
    carries ``spec.priority`` was admitted already (exported from a cluster) and is kept."""
    manifest = pod.to_dict()
    if "priority" in (manifest.get("spec") or {}):
        return pod
    admit_pod(manifest, pod.describe(), classes)
    runtime_class.admit_pod(manifest, pod.describe(), runtime_classes)
    return Pod.from_dict(manifest)
