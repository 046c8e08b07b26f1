"""Kubernetes resource quantities (``resource.Quantity``) with exact arithmetic.

A quantity is kept as an integer count of nano-units: every value upstream can hold after
parsing is a multiple of 10^-9 (finer values are rounded up to 1n), so integers give exact
sums and comparisons without floats. The suffix family (decimal SI, binary SI, decimal
exponent) is remembered only to print the value back the way Kubernetes does.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any, ClassVar

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

FORMAT_WRONG_MESSAGE = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
NUMERIC_MESSAGE = "unable to parse numeric part of quantity"
SUFFIX_MESSAGE = "unable to parse quantity's suffix"

NANO = 10**9
_MAX_INT64 = 2**63 - 1
# Exponents beyond this would build astronomically large integers; upstream wraps them in int32.
_MAX_DECIMAL_EXPONENT = 1000

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12}
_DECIMAL_SUFFIXES.update({"P": 15, "E": 18})
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_FOR_DECIMAL_EXPONENT = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_SUFFIX_FOR_BINARY_EXPONENT = {exp: suffix for suffix, exp in _BINARY_SUFFIXES.items()}
_SUFFIX_FOR_BINARY_EXPONENT[0] = ""

# sign, leading zeros, integer digits, optional fraction, suffix (checked separately)
_SCAN = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
_GO_INT = re.compile(r"[+-]?[0-9]+")


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity; the message is upstream's, word for word."""


class Quantity:
    """An exact resource amount such as ``100m``, ``1.5Gi`` or ``2e3``.

    ``str()`` gives the canonical form Kubernetes prints (``1.5Gi`` -> ``1536Mi``), except
    that text already in canonical form is kept as written, as upstream does.
    """

    __slots__ = ("_nanos", "_text", "format")

    DECIMAL_SI: ClassVar[str] = DECIMAL_SI
    BINARY_SI: ClassVar[str] = BINARY_SI
    DECIMAL_EXPONENT: ClassVar[str] = DECIMAL_EXPONENT

    def __init__(self, nanos: int = 0, format: str = DECIMAL_SI, text: str | None = None):
        self._nanos = nanos
        self.format = format
        self._text = text

    # -- construction -------------------------------------------------------------------

    @classmethod
    def parse(cls, value: str | int | float | Quantity) -> Quantity:
        """Parse a manifest value: a quantity string, or a YAML/JSON number."""
        if isinstance(value, Quantity):
            return value
        if isinstance(value, bool):
            raise QuantityError(FORMAT_WRONG_MESSAGE)
        if isinstance(value, int):
            return _parse_text(str(value))
        if isinstance(value, float):
            if not math.isfinite(value):
                raise QuantityError(FORMAT_WRONG_MESSAGE)
            return _parse_text(repr(value))
        if isinstance(value, str):
            return _parse_text(value)
        raise QuantityError(FORMAT_WRONG_MESSAGE)

    @classmethod
    def from_value(cls, value: int, format: str = DECIMAL_SI) -> Quantity:
        """A whole number of units (upstream ``NewQuantity``)."""
        return cls(value * NANO, format)

    @classmethod
    def from_milli(cls, milli: int, format: str = DECIMAL_SI) -> Quantity:
        """A number of thousandths (upstream ``NewMilliQuantity``), e.g. milli-CPU."""
        return cls(milli * 10**6, format)

    @classmethod
    def from_nanos(cls, nanos: int, format: str = DECIMAL_SI) -> Quantity:
        """A number of billionths, the finest unit a quantity holds."""
        return cls(nanos, format)

    # -- reading ------------------------------------------------------------------------

    @property
    def nanos(self) -> int:
        return self._nanos

    def value(self) -> int:
        """Whole units, rounded up away from zero (upstream ``Value()``)."""
        return _scale_away_from_zero(self._nanos, NANO)

    def milli_value(self) -> int:
        """Thousandths, rounded up away from zero (upstream ``MilliValue()``)."""
        return _scale_away_from_zero(self._nanos, 10**6)

    def is_zero(self) -> bool:
        return self._nanos == 0

    def sign(self) -> int:
        return (self._nanos > 0) - (self._nanos < 0)

    def cmp(self, other: Quantity) -> int:
        """-1, 0 or 1 like upstream ``Cmp``."""
        return (self._nanos > other._nanos) - (self._nanos < other._nanos)

    def cmp_int(self, units: int) -> int:
        """Compare with a whole number of units (upstream ``CmpInt64``)."""
        other = units * NANO
        return (self._nanos > other) - (self._nanos < other)

    # -- arithmetic: results are new quantities; a zero operand adopts the other's format --

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return Quantity(self._nanos + other._nanos, self._result_format(other))

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return Quantity(self._nanos - other._nanos, self._result_format(other))

    def __mul__(self, factor: int) -> Quantity:
        if not isinstance(factor, int) or isinstance(factor, bool):
            return NotImplemented
        return Quantity(self._nanos * factor, self.format)

    __rmul__ = __mul__

    def __neg__(self) -> Quantity:
        return Quantity(-self._nanos, self.format)

    def _result_format(self, other: Quantity) -> str:
        return other.format if self._nanos == 0 else self.format

    # -- comparisons ----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos == other._nanos

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos < other._nanos

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos <= other._nanos

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos > other._nanos

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos >= other._nanos

    def __hash__(self) -> int:
        return hash(self._nanos)

    # A quantity never changes once built (only its canonical text is cached), so copies of
    # the objects holding it can share it.
    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Quantity:
        return self

    # -- printing -------------------------------------------------------------------------

    def __str__(self) -> str:
        if self._text is None:
            self._text = _canonical(self._nanos, self.format)
        return self._text

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


# -- parsing ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    """Parsed once per distinct text: a quantity never changes (see ``__copy__``), so every
    manifest that says ``100m`` shares one (150,000 pods hold four quantities each)."""
    return _parse_new_text(text)


def _parse_new_text(text: str) -> Quantity:
    if not text:
        raise QuantityError(FORMAT_WRONG_MESSAGE)
    if text == "0":
        return Quantity(0, DECIMAL_SI, text)
    match = _SCAN.fullmatch(text)
    if match is None:
        raise QuantityError(FORMAT_WRONG_MESSAGE)
    sign, num, denom, suffix = match.groups()
    num = num or "0"
    denom = denom or ""
    base, exponent, fmt = _interpret_suffix(suffix)
    if base == 10:
        nanos = _decimal_nanos(int(num + denom), exponent - len(denom))
    else:
        nanos = _ceil_div(int(num + denom) * 2**exponent * NANO, 10 ** len(denom))
        if nanos > _MAX_INT64 * NANO:
            nanos = _MAX_INT64 * NANO
        if 0 < nanos < NANO:
            fmt = DECIMAL_SI
    if sign == "-":
        nanos = -nanos
    kept = text if _is_kept_as_written(num, denom, base, exponent) else None
    return Quantity(nanos, fmt, kept)


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE" and _GO_INT.fullmatch(suffix[1:]):
        exponent = int(suffix[1:])
        if abs(exponent) > 2**31:
            raise QuantityError(SUFFIX_MESSAGE)
        if exponent > _MAX_DECIMAL_EXPONENT:
            raise QuantityError(NUMERIC_MESSAGE)
        return 10, exponent, DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_MESSAGE)


def _decimal_nanos(digits: int, exponent: int) -> int:
    """digits * 10^exponent in nano-units, rounded up to the next nano-unit."""
    shift = exponent + 9
    if shift >= 0:
        return digits * 10**shift
    if digits == 0:
        return 0
    if -shift > len(str(digits)) + 1:
        return 1  # far below one nano-unit: upstream rounds any non-zero amount up to 1n
    return _ceil_div(digits, 10**-shift)


def _is_kept_as_written(num: str, denom: str, base: int, exponent: int) -> bool:
    """Whether upstream's fast path keeps the original text as the printed form."""
    if base == 2:
        precision = 14 - len(num) - exponent * 3 // 10
        return not denom and precision >= 0 and int(num) & 0x07 != 0
    precision = 18 - len(num) - len(denom)
    scale = exponent - len(denom)
    shifted = num + denom
    return (
        precision >= 0
        and scale >= -9
        and scale % 3 == 0
        and not shifted.endswith("000")
        and shifted[0] != "0"
    )


# -- printing ---------------------------------------------------------------------------------


def _canonical(nanos: int, fmt: str) -> str:
    if nanos == 0:
        return "0"
    if fmt == BINARY_SI:
        if abs(nanos) >= 1024 * NANO and nanos % NANO == 0:
            return _canonical_binary(nanos // NANO)
        fmt = DECIMAL_SI  # small or fractional binary amounts print in decimal, unrounded
    return _canonical_decimal(nanos, fmt)


def _canonical_binary(units: int) -> str:
    mantissa, power = abs(units), 0
    while mantissa % 1024 == 0 and power < 60:
        mantissa //= 1024
        power += 10
    sign = "-" if units < 0 else ""
    return f"{sign}{mantissa}{_SUFFIX_FOR_BINARY_EXPONENT[power]}"


def _canonical_decimal(nanos: int, fmt: str) -> str:
    mantissa, exponent = abs(nanos), -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    while exponent % 3:
        mantissa *= 10
        exponent -= 1
    sign = "-" if nanos < 0 else ""
    if fmt != DECIMAL_SI:  # upstream prints unknown formats as decimal exponents
        return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")
    if exponent > 18:
        mantissa *= 10 ** (exponent - 18)
        exponent = 18
    return f"{sign}{mantissa}{_SUFFIX_FOR_DECIMAL_EXPONENT[exponent]}"


# -- integer helpers --------------------------------------------------------------------------


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def _scale_away_from_zero(nanos: int, unit: int) -> int:
    if nanos >= 0:
        return _ceil_div(nanos, unit)
    return -_ceil_div(-nanos, unit)
