"""The apps-group workloads scheduling reads for default spreading: ReplicaSet, StatefulSet."""

from __future__ import annotations

from typing import Any, Self

from framework.api.fields import Fields
from framework.api.labels import LabelSelector
from framework.api.meta import KubeObject, ObjectMeta


class _Workload(KubeObject):
    """A controller of pods: a label selector and a replica count (default 1)."""

    __slots__ = ("replicas", "selector")

    API_VERSION = "apps/v1"

    def __init__(
        self,
        metadata: ObjectMeta,
        selector: LabelSelector | None = None,
        replicas: int = 1,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.selector = selector
        self.replicas = replicas

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        spec = f.mapping("spec")
        selector = spec.parse_optional("selector", LabelSelector.parse)
        return cls(metadata, selector, spec.integer("replicas", 1), manifest=f.data)


class ReplicaSet(_Workload):
    __slots__ = ()

    KIND = "ReplicaSet"


class StatefulSet(_Workload):
    __slots__ = ()

    KIND = "StatefulSet"
