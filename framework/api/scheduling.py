"""scheduling.k8s.io PriorityClass: the priority value pods of that class get."""

from __future__ import annotations

from typing import Any, Self

from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.pod import PREEMPT_LOWER_PRIORITY


class PriorityClass(KubeObject):
    __slots__ = ("description", "global_default", "preemption_policy", "value")

    KIND = "PriorityClass"
    API_VERSION = "scheduling.k8s.io/v1"
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        value: int = 0,
        global_default: bool = False,
        preemption_policy: str = PREEMPT_LOWER_PRIORITY,
        description: str = "",
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.value = value
        self.global_default = global_default
        self.preemption_policy = preemption_policy
        self.description = description

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(
            metadata,
            value=f.integer("value"),
            global_default=f.boolean("globalDefault"),
            preemption_policy=f.string("preemptionPolicy") or PREEMPT_LOWER_PRIORITY,
            description=f.string("description"),
            manifest=f.data,
        )
