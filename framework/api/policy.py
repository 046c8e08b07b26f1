"""policy/v1 PodDisruptionBudget, read by preemption to prefer victims whose loss is allowed."""

from __future__ import annotations

import datetime as _dt
from typing import Any, Self

from framework.api.fields import Fields
from framework.api.labels import LabelSelector
from framework.api.meta import KubeObject, ObjectMeta


class PodDisruptionBudget(KubeObject):
    __slots__ = (
        "disrupted_pods",
        "disruptions_allowed",
        "max_unavailable",
        "min_available",
        "selector",
    )

    KIND = "PodDisruptionBudget"
    API_VERSION = "policy/v1"

    def __init__(
        self,
        metadata: ObjectMeta,
        selector: LabelSelector | None = None,
        min_available: int | str | None = None,
        max_unavailable: int | str | None = None,
        disruptions_allowed: int = 0,
        disrupted_pods: dict[str, _dt.datetime] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.selector = selector
        self.min_available = min_available
        self.max_unavailable = max_unavailable
        self.disruptions_allowed = disruptions_allowed
        self.disrupted_pods = disrupted_pods or {}

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        spec, status = f.mapping("spec"), f.mapping("status")
        disrupted = status.mapping("disruptedPods")
        return cls(
            metadata,
            selector=spec.parse_optional("selector", LabelSelector.parse),
            min_available=spec.int_or_string("minAvailable"),
            max_unavailable=spec.int_or_string("maxUnavailable"),
            disruptions_allowed=status.integer("disruptionsAllowed"),
            disrupted_pods={name: disrupted.time(name) for name in disrupted.data},
            manifest=f.data,
        )
