"""What the API server fills in on an object before storing it, beyond its validation.

New objects are validated as kube-apiserver validates them by ``parse_new_object``; the
playground stores objects as a cluster would, so it adds the Priority admission plugin, which
resolves a new pod's ``priorityClassName`` into ``spec.priority``: without it a pod of class
``high`` would be scheduled with priority 0.
"""

from __future__ import annotations

from typing import Any, Protocol

from framework.api.errors import ObjectError
from framework.api.pod import PREEMPT_LOWER_PRIORITY
from framework.api.scheduling import PriorityClass
from framework.api.validation.scheduling import SYSTEM_PRIORITY_CLASSES


class PriorityClasses(Protocol):
    """Where admission finds the cluster's PriorityClasses."""

    def get(self, name: str) -> PriorityClass | None: ...

    def global_default(self) -> PriorityClass | None: ...


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
