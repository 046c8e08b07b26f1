"""How the configuration dataclasses map onto upstream's Go types and their JSON form.

Each field knows its JSON name, its Go name, whether its Go JSON tag says ``omitempty``, and
its Go type (``Int32`` rather than ``int``, ``X | None`` for a Go pointer). The strict decoder,
the encoder and validation's rendering of bad values all read this one description, so the
three agree with each other and with upstream.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from datetime import timedelta
from functools import cache
from types import MappingProxyType
from typing import Annotated, Any


@dataclasses.dataclass(frozen=True, slots=True)
class GoType:
    """The Go type behind a Python annotation: its name in messages and its size in bits."""

    name: str
    bits: int = 0


Int32 = Annotated[int, GoType("int32", 32)]
Int64 = Annotated[int, GoType("int64", 64)]
Float32 = Annotated[float, GoType("float32", 32)]


OMITEMPTY: Mapping[str, Any] = MappingProxyType({"omitempty": True})
"""Field metadata for a Go field whose JSON tag says ``omitempty``."""


def tag(*, omitempty: bool = False, json: str | None = None, go: str | None = None) -> Any:
    """Field metadata for a Go JSON tag whose JSON or Go name is not the camel case of the
    Python name (``enableHTTPS``, ``QPS``)."""
    return MappingProxyType({"omitempty": omitempty, "json": json, "go": go})


@dataclasses.dataclass(frozen=True, slots=True)
class TypeInfo:
    """A parsed field annotation.

    ``kind`` is one of int, float, bool, str, duration, bytes, list, map, struct, any.
    ``nullable`` marks a Go pointer (``X | None``): JSON null gives None.
    """

    kind: str
    go_name: str
    nullable: bool = False
    bits: int = 0
    item: TypeInfo | None = None
    cls: type | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ApiField:
    attr: str
    json: str
    go: str
    omitempty: bool
    type: TypeInfo


def go_struct_name(cls: type) -> str:
    """The Go type's name as reflect prints it, e.g. ``v1.KubeSchedulerProfile``."""
    return f"{getattr(cls, 'GO_PACKAGE', 'v1')}.{cls.__name__}"


def uses_json_tags_for_go_values(cls: type) -> bool:
    """Core API types keep their JSON names even inside the internal config types."""
    return bool(getattr(cls, "GO_JSON_TAGS", False))


@cache
def api_fields(cls: type) -> tuple[ApiField, ...]:
    """The fields of a configuration dataclass in declaration (Go struct) order."""
    hints = typing.get_type_hints(cls, include_extras=True)
    result = []
    for f in dataclasses.fields(cls):
        meta = f.metadata
        result.append(
            ApiField(
                attr=f.name,
                json=meta.get("json") or _lower_camel(f.name),
                go=meta.get("go") or _upper_camel(f.name),
                omitempty=bool(meta.get("omitempty")),
                type=parse_annotation(hints[f.name]),
            )
        )
    return tuple(result)


@cache
def json_names(cls: type) -> dict[str, ApiField]:
    return {f.json: f for f in api_fields(cls)}


def parse_annotation(hint: Any) -> TypeInfo:
    """Turns a resolved annotation into a :class:`TypeInfo`."""
    nullable = False
    if _is_union(hint):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) != 1:
            raise TypeError(f"unsupported union {hint!r}")
        nullable, hint = True, members[0]
    info = _parse_plain(hint)
    return dataclasses.replace(info, nullable=nullable) if nullable else info


def _parse_plain(hint: Any) -> TypeInfo:
    if typing.get_origin(hint) is Annotated:
        base, *extras = typing.get_args(hint)
        go = next(e for e in extras if isinstance(e, GoType))
        return dataclasses.replace(_parse_plain(base), go_name=go.name, bits=go.bits or 0)
    origin = typing.get_origin(hint)
    if origin is list:
        item = _parse_plain(typing.get_args(hint)[0])
        return TypeInfo("list", "[]" + item.go_name, item=item)
    if origin is dict:
        return TypeInfo("map", "map[string]string", item=TypeInfo("str", "string"))
    if hint is Any:
        return TypeInfo("any", "runtime.RawExtension")
    if hint is bool:
        return TypeInfo("bool", "bool")
    if hint is int:
        return TypeInfo("int", "int", bits=64)
    if hint is float:
        return TypeInfo("float", "float64", bits=64)
    if hint is str:
        return TypeInfo("str", "string")
    if hint is bytes:
        return TypeInfo("bytes", "[]uint8")
    if hint is timedelta:
        return TypeInfo("duration", "v1.Duration")
    if dataclasses.is_dataclass(hint):
        return TypeInfo("struct", go_struct_name(hint), cls=hint)
    raise TypeError(f"unsupported annotation {hint!r}")


def _is_union(hint: Any) -> bool:
    return isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union


def _lower_camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _upper_camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
