"""Admission of a whole set of objects held in memory, as kube-apiserver would create them.

``simulate`` reads its objects from one file; each is created as if by ``kubectl apply``,
with the file's Namespaces and PriorityClasses taken to exist already (the file is a
cluster's state, in whatever order it lists things); only a second global default
PriorityClass is refused in file order, as creating them one by one would.
"""

from __future__ import annotations

from framework.admission.namespace_lifecycle import namespace_error, phases_of
from framework.admission.priority import ListedPriorityClasses, admit_pod, priority_class_error
from framework.api.errors import ObjectError
from framework.api.meta import KubeObject
from framework.api.pod import Pod
from framework.api.scheduling import PriorityClass


def admit_objects(objects: list[KubeObject]) -> tuple[list[KubeObject], list[ObjectError]]:
    """The objects as admitted (pods with their priority resolved), and every refusal, in the
    objects' order."""
    phase_of = phases_of([o for o in objects if o.kind == "Namespace"])
    refusals: dict[int, ObjectError] = {}
    classes = ListedPriorityClasses([])
    for index, obj in enumerate(objects):
        refusal = namespace_error(obj, phase_of)
        if refusal is None and isinstance(obj, PriorityClass):
            refusal = priority_class_error(obj, classes.listed())
            if refusal is None:
                classes.add(obj)
        if refusal is not None:
            refusals[index] = refusal
    admitted: list[KubeObject] = []
    for index, obj in enumerate(objects):
        if index in refusals:
            continue
        try:
            admitted.append(_admitted_pod(obj, classes) if isinstance(obj, Pod) else obj)
        except ObjectError as err:
            refusals[index] = err
    return admitted, [refusals[index] for index in sorted(refusals)]


def _admitted_pod(pod: Pod, classes: ListedPriorityClasses) -> Pod:
    manifest = pod.to_dict()
    if "priority" in (manifest.get("spec") or {}):
        return pod
    admit_pod(manifest, pod.describe(), classes)
    return Pod.from_dict(manifest)
