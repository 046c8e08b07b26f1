"""The Kubernetes CEL libraries DRA selectors use, as celpy functions.

Quantities (``quantity``, ``isQuantity``, ``sign``, ``isGreaterThan``, ``isLessThan``,
``compareTo``, ``asApproximateFloat``, ``asInteger``, ``isInteger``, ``add``, ``sub``), semantic
versions v1 (``semver``, ``isSemver``, the comparisons, ``major``, ``minor``, ``patch``) and the
parts of the CEL strings extension (v2) that a selector may call on an attribute. Quantities
are :class:`framework.api.quantity.Quantity` and versions :class:`Semver` values; functions
shared by both dispatch on the receiver. A wrong argument type is CEL's ``no such overload``;
a failure is an error value, so ``||`` and ``&&`` can still short-circuit past it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from framework.api.quantity import Quantity, QuantityError
from framework.plugins.dynamicresources.cel.semver import Semver, SemverError

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def is_cel_int(value: Any) -> bool:
    """CEL ints only: celpy's bools are ints to Python."""
    return isinstance(value, int) and not isinstance(value, (bool, celtypes.BoolType))


def is_cel_bool(value: Any) -> bool:
    return isinstance(value, (bool, celtypes.BoolType))


def no_such_overload(*args: Any) -> CELEvalError:
    return CELEvalError("no such overload", TypeError, args)


def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, ())


# -- quantities ---------------------------------------------------------------------------------


def quantity(text: Any) -> Any:
    if not isinstance(text, str):
        return no_such_overload(text)
    try:
        return Quantity.parse(str(text))
    except QuantityError as err:
        return _error(str(err))


def is_quantity(text: Any) -> Any:
    if not isinstance(text, str):
        return no_such_overload(text)
    try:
        Quantity.parse(str(text))
    except QuantityError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def sign(value: Any) -> Any:
    if not isinstance(value, Quantity):
        return no_such_overload(value)
    return celtypes.IntType(value.sign())


def as_approximate_float(value: Any) -> Any:
    if not isinstance(value, Quantity):
        return no_such_overload(value)
    return celtypes.DoubleType(value.nanos / 1e9)


def as_integer(value: Any) -> Any:
    if not isinstance(value, Quantity):
        return no_such_overload(value)
    if not _fits_int64(value):
        return _error("cannot convert value to integer")
    return celtypes.IntType(value.nanos // 1_000_000_000)


def is_integer(value: Any) -> Any:
    if not isinstance(value, Quantity):
        return no_such_overload(value)
    return celtypes.BoolType(_fits_int64(value))


def add(value: Any, other: Any) -> Any:
    return _arithmetic(value, other, 1)


def sub(value: Any, other: Any) -> Any:
    return _arithmetic(value, other, -1)


def _arithmetic(value: Any, other: Any, direction: int) -> Any:
    if not isinstance(value, Quantity):
        return no_such_overload(value, other)
    if isinstance(other, Quantity):
        return value + other if direction > 0 else value - other
    if is_cel_int(other):
        return value + Quantity.from_value(direction * int(other), value.format)
    return no_such_overload(value, other)


def _fits_int64(value: Quantity) -> bool:
    """resource.Quantity ``AsInt64``: a whole number of units within int64."""
    units, remainder = divmod(value.nanos, 1_000_000_000)
    return remainder == 0 and _INT64_MIN <= units <= _INT64_MAX


# -- semantic versions --------------------------------------------------------------------------


def semver(text: Any, normalize: Any = False) -> Any:
    if not isinstance(text, str) or not is_cel_bool(normalize):
        return no_such_overload(text)
    try:
        return Semver.parse_normalized(str(text)) if bool(normalize) else Semver.parse(str(text))
    except SemverError as err:
        return _error(str(err))


def is_semver(text: Any, normalize: Any = False) -> Any:
    parsed = semver(text, normalize)
    if isinstance(parsed, CELEvalError) and parsed.args[0] == "no such overload":
        return parsed
    return celtypes.BoolType(isinstance(parsed, Semver))


def _version_part(attribute: str) -> Callable[[Any], Any]:
    def part(value: Any) -> Any:
        if not isinstance(value, Semver):
            return no_such_overload(value)
        return celtypes.IntType(getattr(value, attribute))

    return part


# -- comparisons shared by quantities and versions ----------------------------------------------


def compare_to(value: Any, other: Any) -> Any:
    order = _order(value, other)
    return order if isinstance(order, CELEvalError) else celtypes.IntType(order)


def is_greater_than(value: Any, other: Any) -> Any:
    order = _order(value, other)
    return order if isinstance(order, CELEvalError) else celtypes.BoolType(order == 1)


def is_less_than(value: Any, other: Any) -> Any:
    order = _order(value, other)
    return order if isinstance(order, CELEvalError) else celtypes.BoolType(order == -1)


def _order(value: Any, other: Any) -> int | CELEvalError:
    if isinstance(value, Quantity) and isinstance(other, Quantity):
        return value.cmp(other)
    if isinstance(value, Semver) and isinstance(other, Semver):
        return value.compare(other)
    return no_such_overload(value, other)


# -- strings extension --------------------------------------------------------------------------


def _string_function(implementation: Callable[..., Any], *types: type) -> Callable[..., Any]:
    """Checks argument types (CEL's overload resolution) and wraps the Python result."""

    def function(*args: Any) -> Any:
        if len(args) != len(types) or not all(
            is_cel_int(a) if t is int else isinstance(a, t)
            for a, t in zip(args, types, strict=True)
        ):
            return no_such_overload(*args)
        try:
            return _to_cel(implementation(*args))
        except IndexError as err:
            return _error(str(err))

    return function


def _to_cel(value: Any) -> Any:
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, list):
        return celtypes.ListType([_to_cel(item) for item in value])
    return value


def _substring(text: str, start: int, end: int | None = None) -> str:
    end = len(text) if end is None else end
    if start < 0 or start > len(text):
        raise IndexError(f"index out of range: {start}")
    if end < start or end > len(text):
        raise IndexError(f"index out of range: {end}")
    return text[start:end]


def _char_at(text: str, index: int) -> str:
    if index < 0 or index > len(text):
        raise IndexError(f"index out of range: {index}")
    return text[index : index + 1]


def _index_of(text: str, sub: str, start: int = 0) -> int:
    if start < 0 or start > len(text):
        raise IndexError(f"index out of range: {start}")
    return text.find(sub, start)


def _split(text: str, separator: str, limit: int = -1) -> list[str]:
    """Go's ``strings.SplitN``: at most ``limit`` parts, none for 0, all when negative."""
    if limit == 0:
        return []
    parts = text.split(separator) if separator else list(text)
    if 0 < limit < len(parts):
        parts = [*parts[: limit - 1], separator.join(parts[limit - 1 :])]
    return parts


def _replace(text: str, old: str, new: str, limit: int = -1) -> str:
    return text.replace(old, new, limit)


def _dispatch(*overloads: Callable[..., Any]) -> Callable[..., Any]:
    """The first overload that accepts the arguments, as CEL picks by argument types."""

    def function(*args: Any) -> Any:
        result: Any = None
        for overload in overloads:
            result = overload(*args)
            if not (isinstance(result, CELEvalError) and result.args[0] == "no such overload"):
                return result
        return result

    return function


def _ascii_case(convert: Callable[[str], str]) -> Callable[[str], str]:
    return lambda text: "".join(convert(c) if c.isascii() else c for c in text)


STRINGS = {
    "lowerAscii": _string_function(_ascii_case(str.lower), str),
    "upperAscii": _string_function(_ascii_case(str.upper), str),
    "trim": _string_function(str.strip, str),
    "charAt": _string_function(_char_at, str, int),
    "indexOf": _dispatch(
        _string_function(_index_of, str, str), _string_function(_index_of, str, str, int)
    ),
    "lastIndexOf": _string_function(str.rfind, str, str),
    "replace": _dispatch(
        _string_function(_replace, str, str, str), _string_function(_replace, str, str, str, int)
    ),
    "split": _dispatch(_string_function(_split, str, str), _string_function(_split, str, str, int)),
    "substring": _dispatch(
        _string_function(_substring, str, int), _string_function(_substring, str, int, int)
    ),
}


# -- DRA's own functions ---------------------------------------------------------------------------

RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
"""resourceapi.ResourceSliceMaxAttributeValuesPerDevice: the longest list ``includes`` reads."""


def includes(target: Any, value: Any) -> Any:
    """``<target>.includes(<value>)``: a list holds the value, or a scalar equals it.

    Upstream declares it for DRAListTypeAttributes, but the scheduler compiles selectors in
    the stored-expressions environment, which offers every declared function whatever the
    gates: with the v1.36 defaults it works on (scalar) attributes too.
    """
    if not isinstance(target, celtypes.ListType):
        return celtypes.BoolType(_cel_equal(target, value))
    for index, item in enumerate(target):
        if index >= RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
            return _error(
                "'includes' function cannot be applied to lists longer than"
                f" {RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE} values"
            )
        if _cel_equal(item, value):
            return celtypes.BoolType(True)
    return celtypes.BoolType(False)


def _cel_equal(left: Any, right: Any) -> bool:
    """cel-go's ``Equal``: numbers compare by value, other values only with their own type."""
    numbers = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)
    if is_cel_bool(left) or is_cel_bool(right):
        return is_cel_bool(left) and is_cel_bool(right) and bool(left) == bool(right)
    if isinstance(left, numbers) and isinstance(right, numbers):
        return _plain_number(left) == _plain_number(right)
    if type(left) is not type(right):
        return False
    return bool(left == right)


def _plain_number(value: Any) -> int | float:
    """Python compares an int and a float exactly; celpy's own types refuse to."""
    return float(value) if isinstance(value, celtypes.DoubleType) else int(value)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": quantity,
    "isQuantity": is_quantity,
    "sign": sign,
    "asApproximateFloat": as_approximate_float,
    "asInteger": as_integer,
    "isInteger": is_integer,
    "add": add,
    "sub": sub,
    "semver": semver,
    "isSemver": is_semver,
    "major": _version_part("major"),
    "minor": _version_part("minor"),
    "patch": _version_part("patch"),
    "compareTo": compare_to,
    "isGreaterThan": is_greater_than,
    "isLessThan": is_less_than,
    "includes": includes,
    **STRINGS,
}
"""Every function a selector may call beyond celpy's standard ones."""
