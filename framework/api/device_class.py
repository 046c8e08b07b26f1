"""resource.k8s.io/v1 DeviceClass and the device selectors classes and requests share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.resource_slice import RESOURCE_API_VERSION


@dataclass(frozen=True, slots=True)
class DeviceSelector:
    """A CEL expression over ``device``; ``cel`` is the only selector type in v1."""

    cel_expression: str | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceSelector:
        cel = f.optional_mapping("cel")
        return cls(cel.string("expression") if cel is not None else None)


@dataclass(slots=True)
class DeviceClassSpec:
    selectors: list[DeviceSelector] = field(default_factory=list)
    extended_resource_name: str | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceClassSpec:
        return cls(
            selectors=f.parse_list("selectors", DeviceSelector.parse),
            extended_resource_name=f.optional_string("extendedResourceName"),
        )


class DeviceClass(KubeObject):
    """Selectors every device allocated for a request naming this class must pass."""

    __slots__ = ("spec",)

    KIND = "DeviceClass"
    API_VERSION = RESOURCE_API_VERSION
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: DeviceClassSpec | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec if spec is not None else DeviceClassSpec()

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(metadata, DeviceClassSpec.parse(f.mapping("spec")), manifest=f.data)
