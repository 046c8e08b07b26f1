"""Admission of a whole set of objects held in memory, as kube-apiserver would create them.

``simulate`` reads its objects from one file; each is created as if by ``kubectl apply``,
with the file's Namespaces and PriorityClasses taken to exist already (the file is a
cluster's state, in whatever order it lists things).
"""

from __future__ import annotations

from framework.admission.namespace_lifecycle import namespace_error, phases_of
from framework.admission.priority import ListedPriorityClasses, admit_pod
from framework.api.errors import ObjectError
from framework.api.meta import KubeObject
from framework.api.pod import Pod
from framework.api.scheduling import PriorityClass


def admit_objects(objects: list[KubeObject]) -> tuple[list[KubeObject], list[ObjectError]]:
    """The objects as admitted (pods with their priority resolved), and every refusal."""
    phase_of = phases_of([o for o in objects if o.kind == "Namespace"])
    classes = ListedPriorityClasses([o for o in objects if isinstance(o, PriorityClass)])
    admitted: list[KubeObject] = []
    errors: list[ObjectError] = []
    for obj in objects:
        refusal = namespace_error(obj, phase_of)
        if refusal is not None:
            errors.append(refusal)
            continue
        if isinstance(obj, Pod):
            try:
                obj = _admitted_pod(obj, classes)
            except ObjectError as err:
                errors.append(err)
                continue
        admitted.append(obj)
    return admitted, errors


def _admitted_pod(pod: Pod, classes: ListedPriorityClasses) -> Pod:
    manifest = pod.to_dict()
    if "priority" in (manifest.get("spec") or {}):
        return pod
    admit_pod(manifest, pod.describe(), classes)
    return Pod.from_dict(manifest)
