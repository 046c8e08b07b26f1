"""node.k8s.io RuntimeClass: pod overhead and the nodes a runtime handler is on."""

from __future__ import annotations

from typing import Any, Self

from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.quantity import Quantity
from framework.api.taints import Toleration


class RuntimeClass(KubeObject):
    __slots__ = ("handler", "node_selector", "overhead", "tolerations")

    KIND = "RuntimeClass"
    API_VERSION = "node.k8s.io/v1"
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        handler: str = "",
        overhead: dict[str, Quantity] | None = None,
        node_selector: dict[str, str] | None = None,
        tolerations: list[Toleration] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.handler = handler
        self.overhead = overhead or {}
        self.node_selector = node_selector or {}
        self.tolerations = tolerations or []

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        scheduling = f.mapping("scheduling")
        return cls(
            metadata,
            handler=f.string("handler"),
            overhead=f.mapping("overhead").quantities("podFixed"),
            node_selector=scheduling.string_map("nodeSelector"),
            tolerations=scheduling.parse_list("tolerations", Toleration.parse),
            manifest=f.data,
        )
