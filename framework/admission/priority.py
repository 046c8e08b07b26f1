"""The Priority admission plugin: a new pod's ``priorityClassName`` resolved into its priority.

kube-apiserver runs it on every pod it creates. Without it a pod of class ``high`` would be
scheduled with priority 0, and a pod naming a class that does not exist would be stored
instead of refused. The playground admits pods as it stores them, ``simulate`` as it reads its
file.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Protocol

from framework.api.errors import ObjectError
from framework.api.pod import PREEMPT_LOWER_PRIORITY
from framework.api.scheduling import PriorityClass
from framework.api.validation.scheduling import SYSTEM_PRIORITY_CLASSES


class PriorityClasses(Protocol):
    """Where admission finds the cluster's PriorityClasses."""

    def get(self, name: str) -> PriorityClass | None: ...

    def global_default(self) -> PriorityClass | None: ...


class ListedPriorityClasses:
    """PriorityClasses held in memory (a file's, for ``simulate``)."""

    def __init__(self, classes: list[PriorityClass]) -> None:
        self._by_name = {c.name: c for c in classes}

    def get(self, name: str) -> PriorityClass | None:
        return self._by_name.get(name)

    def global_default(self) -> PriorityClass | None:
        return global_default(list(self._by_name.values()))

    def add(self, pc: PriorityClass) -> None:
        self._by_name[pc.name] = pc

    def listed(self) -> list[PriorityClass]:
        return list(self._by_name.values())


def priority_class_error(pc: PriorityClass, existing: list[PriorityClass]) -> ObjectError | None:
    """Why creating ``pc`` next to the ``existing`` classes would be refused: a second global
    default (the plugin's ``validatePriorityClass``; several defaults can only come from a
    cluster that had them before)."""
    if not pc.global_default:
        return None
    default = global_default([c for c in existing if c.name != pc.name])
    if default is None:
        return None
    return ObjectError(
        pc.describe(),
        "globalDefault",
        f"PriorityClass {default.name} is already marked as default. Only one default can exist",
    )


def admit_pod(manifest: dict[str, Any], owner: str, classes: PriorityClasses) -> None:
    """Resolves a new pod's priority from its class, in place, as the Priority plugin does.

    A pod that already carries ``spec.priority`` is taken as admitted (a manifest exported from
    a cluster, or an example written with its resolved priority) and left as it is.
    """
    spec = manifest.setdefault("spec", {})
    if "priority" in spec:
        return
    class_name, priority, policy = _resolve(spec.get("priorityClassName") or "", owner, classes)
    given = spec.get("preemptionPolicy")
    if given and given != policy:
        raise ObjectError(
            owner,
            "spec.preemptionPolicy",
            f"the string value of PreemptionPolicy ({given}) must not be provided in pod spec; "
            f"priority admission controller computed {policy} from the given PriorityClass name",
        )
    if class_name:
        spec["priorityClassName"] = class_name
    spec["priority"] = priority
    spec["preemptionPolicy"] = policy


def admit_pod_group(manifest: dict[str, Any], owner: str, classes: PriorityClasses) -> None:
    """Resolves a new PodGroup's priority from its class, in place, as the Priority plugin does
    with the WorkloadAwarePreemption gate on: a priority given must be the class's."""
    spec = manifest.setdefault("spec", {})
    class_name, priority, _ = _resolve(spec.get("priorityClassName") or "", owner, classes)
    given = spec.get("priority")
    if given is not None and given != priority:
        raise ObjectError(
            owner,
            "",
            f"priority set in the pod group ({given}) must match the priority computed "
            f"({priority}) based on the priority class set in the spec",
        )
    if class_name:
        spec["priorityClassName"] = class_name
    spec["priority"] = priority


def admit_pod_update(manifest: Mapping[str, Any], old: Mapping[str, Any]) -> dict[str, Any]:
    """The updated pod's manifest as the Priority plugin passes it on: a priority or
    preemption policy the update leaves out is kept from the stored pod (this plugin set them
    on create; validation then refuses any other change of them)."""
    updated = copy.deepcopy(dict(manifest))
    spec = updated.get("spec")
    old_spec = old.get("spec") or {}
    if isinstance(spec, dict):
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and old_spec.get(key) is not None:
                spec[key] = old_spec[key]
    return updated


def _resolve(class_name: str, owner: str, classes: PriorityClasses) -> tuple[str, int, str]:
    """(class name, priority, preemption policy): the named class, else the global default."""
    if not class_name:
        found = classes.global_default()
        if found is None:
            return "", 0, PREEMPT_LOWER_PRIORITY
    else:
        found = classes.get(class_name)
        if found is None and class_name in SYSTEM_PRIORITY_CLASSES:
            found = system_priority_class(class_name)
        if found is None:
            raise ObjectError(
                owner,
                "spec.priorityClassName",
                f"no PriorityClass with name {class_name} was found",
            )
    return found.name, found.value, found.preemption_policy or PREEMPT_LOWER_PRIORITY


def system_priority_class(name: str) -> PriorityClass:
    return PriorityClass.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": SYSTEM_PRIORITY_CLASSES[name],
        }
    )


def global_default(classes: list[PriorityClass]) -> PriorityClass | None:
    """The class pods without one get: the lowest-valued global default, as upstream picks."""
    defaults = [c for c in classes if c.global_default]
    return min(defaults, key=lambda c: c.value) if defaults else None
