"""Typed reads from a manifest mapping that know where they are.

Every object parser reads through :class:`Fields`, so a wrong type anywhere in a manifest
becomes an :class:`ObjectError` naming the object and the full field path, and absent or
``null`` fields get the zero value the Go API types would have.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from framework.api.errors import ObjectError
from framework.api.quantity import Quantity, QuantityError

T = TypeVar("T")


class Fields:
    """One mapping of a manifest, the object it belongs to and the path leading to it."""

    __slots__ = ("data", "owner", "path")

    def __init__(self, data: Mapping[str, Any], owner: str, path: str = "") -> None:
        self.data = data
        self.owner = owner
        self.path = path

    @classmethod
    def of(cls, data: Any, owner: str, path: str = "") -> Fields:
        """Wrap ``data``, which must be a mapping (``None`` reads as an empty one)."""
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            where = path or "(root)"
            raise ObjectError(owner, where, f"expected an object, got {type_name(data)}")
        return cls(data, owner, path)

    # -- paths and errors ---------------------------------------------------------------------

    def field(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, problem: str) -> ObjectError:
        return ObjectError(self.owner, self.field(key) if key else self.path, problem)

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def raw(self, key: str, default: Any = None) -> Any:
        value = self.data.get(key)
        return default if value is None else value

    # -- scalars ---------------------------------------------------------------------------------

    def string(self, key: str, default: str = "") -> str:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {type_name(value)}")
        return value

    def optional_string(self, key: str) -> str | None:
        return self.string(key) if self.has(key) else None

    def integer(self, key: str, default: int = 0) -> int:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {type_name(value)}")
        return value

    def optional_integer(self, key: str) -> int | None:
        return self.integer(key) if self.has(key) else None

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, f"expected a boolean, got {type_name(value)}")
        return value

    def int_or_string(self, key: str) -> int | str | None:
        """An ``IntOrString`` such as a PodDisruptionBudget's ``minAvailable: 50%``."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise self.error(key, f"expected an integer or a string, got {type_name(value)}")
        return value

    def time(self, key: str) -> _dt.datetime | None:
        """An RFC 3339 timestamp; YAML loaders may already have turned it into a datetime."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, _dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=_dt.UTC)
        if isinstance(value, str):
            try:
                parsed = _dt.datetime.fromisoformat(value)
            except ValueError:
                raise self.error(key, f"invalid RFC 3339 time {value!r}") from None
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.UTC)
        raise self.error(key, f"expected a time string, got {type_name(value)}")

    def quantity(self, key: str) -> Quantity | None:
        value = self.data.get(key)
        if value is None:
            return None
        return self._quantity(key, value)

    # -- collections -----------------------------------------------------------------------------

    def string_map(self, key: str) -> dict[str, str]:
        inner = self.mapping(key)
        result: dict[str, str] = {}
        for name, value in inner.data.items():
            if not isinstance(value, str):
                raise inner.error(str(name), f"expected a string, got {type_name(value)}")
            result[str(name)] = value
        return result

    def string_list(self, key: str) -> list[str]:
        result: list[str] = []
        for index, value in enumerate(self._list(key)):
            if not isinstance(value, str):
                problem = f"expected a string, got {type_name(value)}"
                raise self.error(f"{key}[{index}]", problem)
            result.append(value)
        return result

    def quantities(self, key: str) -> dict[str, Quantity]:
        """A ``ResourceList``: resource name to quantity; ``null`` values read as zero."""
        inner = self.mapping(key)
        result: dict[str, Quantity] = {}
        for name, value in inner.data.items():
            result[str(name)] = Quantity() if value is None else inner._quantity(str(name), value)
        return result

    def quantity_list(self, key: str) -> list[Quantity]:
        return [self._quantity(f"{key}[{i}]", value) for i, value in enumerate(self._list(key))]

    def optional_quantities(self, key: str) -> dict[str, Quantity] | None:
        return self.quantities(key) if self.has(key) else None

    def mapping(self, key: str) -> Fields:
        """The nested object at ``key`` (empty when absent)."""
        return Fields.of(self.data.get(key), self.owner, self.field(key))

    def optional_mapping(self, key: str) -> Fields | None:
        return self.mapping(key) if self.has(key) else None

    def mappings(self, key: str) -> list[Fields]:
        """The list of objects at ``key``, each knowing its index."""
        field = self.field(key)
        return [
            Fields.of(item, self.owner, f"{field}[{index}]")
            for index, item in enumerate(self._list(key))
        ]

    def parse_list(self, key: str, parse: Callable[[Fields], T]) -> list[T]:
        return [parse(item) for item in self.mappings(key)]

    def parse_optional(self, key: str, parse: Callable[[Fields], T]) -> T | None:
        inner = self.optional_mapping(key)
        return None if inner is None else parse(inner)

    # -- helpers --------------------------------------------------------------------------------

    def _list(self, key: str) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            raise self.error(key, f"expected a list, got {type_name(value)}")
        return list(value)

    def _quantity(self, key: str, value: Any) -> Quantity:
        if isinstance(value, str):
            # JSON decoding of a quantity trims surrounding blanks before parsing.
            value = value.strip()
        try:
            return Quantity.parse(value)
        except QuantityError as exc:
            raise self.error(key, str(exc)) from None


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "list"
    return type(value).__name__


def format_time(value: _dt.datetime) -> str:
    """RFC 3339 in UTC with a ``Z``, as the API server writes timestamps."""
    return value.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
