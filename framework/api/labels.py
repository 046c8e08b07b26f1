"""Label selectors: the manifest form (``metav1.LabelSelector``) and the parsed matcher.

A ``LabelSelector`` is what a manifest says; :func:`label_selector_as_selector` turns it into
a :class:`Selector` with upstream's rules: no selector matches nothing, an empty selector
matches everything, and bad operators or values fail with upstream's messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from framework.api import field_errors as fe
from framework.api.fields import Fields
from framework.api.validation.content import is_label_key, is_label_value, parse_int64

# Operators of a parsed requirement (upstream ``selection.Operator`` values).
IN = "in"
NOT_IN = "notin"
EXISTS = "exists"
DOES_NOT_EXIST = "!"
EQUALS = "="
DOUBLE_EQUALS = "=="
NOT_EQUALS = "!="
GREATER_THAN = "gt"
LESS_THAN = "lt"

# Operators a LabelSelector manifest may use, and what they become.
LABEL_SELECTOR_OPERATORS = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
}


class SelectorError(ValueError):
    """A selector that cannot be parsed; ``errors`` holds each field problem."""

    def __init__(self, errors: Sequence[object]) -> None:
        self.errors = list(errors)
        super().__init__(fe.aggregate_message(self.errors))


@dataclass(frozen=True, slots=True)
class Requirement:
    """One parsed condition on one label key."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op in (GREATER_THAN, LESS_THAN):
            return self._compare(labels)
        return False

    def _compare(self, labels: Mapping[str, str]) -> bool:
        if self.key not in labels or len(self.values) != 1:
            return False
        have = parse_int64(labels[self.key])
        want = parse_int64(self.values[0])
        if have is None or want is None:
            return False
        return have > want if self.operator == GREATER_THAN else have < want

    def __str__(self) -> str:
        prefix = "!" if self.operator == DOES_NOT_EXIST else ""
        if self.operator in (EXISTS, DOES_NOT_EXIST):
            return f"{prefix}{self.key}"
        shown = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if self.operator in (IN, NOT_IN):
            return f"{self.key} {self.operator} ({shown})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(self.operator, self.operator)
        return f"{self.key}{symbol}{shown}"


def new_requirement(key: str, operator: str, values: Iterable[str], path: str = "") -> Requirement:
    """Validate and build a requirement (upstream ``labels.NewRequirement``)."""
    values = tuple(values)
    errors = _requirement_errors(key, operator, values, path)
    if errors:
        raise SelectorError(errors)
    return Requirement(key, operator, values)


def _requirement_errors(
    key: str, operator: str, values: tuple[str, ...], path: str
) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    key_problems = is_label_key(key)
    if key_problems:
        errors.append(fe.invalid(_child(path, "key"), key, "; ".join(key_problems)))
    values_path = _child(path, "values")
    if operator in (IN, NOT_IN) and not values:
        detail = "for 'in', 'notin' operators, values set can't be empty"
        errors.append(fe.invalid(values_path, list(values), detail))
    elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS) and len(values) != 1:
        detail = "exact-match compatibility requires one single value"
        errors.append(fe.invalid(values_path, list(values), detail))
    elif operator in (EXISTS, DOES_NOT_EXIST) and values:
        detail = "values set must be empty for exists and does not exist"
        errors.append(fe.invalid(values_path, list(values), detail))
    elif operator in (GREATER_THAN, LESS_THAN):
        errors.extend(_comparison_value_errors(values, values_path))
    for index, value in enumerate(values):
        problems = is_label_value(value)
        if problems:
            where = f"{values_path}[{index}][{key}]"
            errors.append(fe.invalid(where, value, "; ".join(problems)))
    return _unique(errors)


def _comparison_value_errors(values: tuple[str, ...], values_path: str) -> list[fe.FieldError]:
    errors: list[fe.FieldError] = []
    if len(values) != 1:
        detail = "for 'Gt', 'Lt' operators, exactly one value is required"
        errors.append(fe.invalid(values_path, list(values), detail))
    for index, value in enumerate(values):
        if parse_int64(value) is None:
            detail = "for 'Gt', 'Lt' operators, the value must be an integer"
            errors.append(fe.invalid(f"{values_path}[{index}]", value, detail))
    return errors


class Selector:
    """A parsed label selector: requirements that must all match (upstream ``labels.Selector``)."""

    __slots__ = ("_nothing", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False):
        self.requirements: tuple[Requirement, ...] = tuple(
            sorted(requirements, key=lambda r: r.key)
        )
        self._nothing = nothing

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self._nothing:
            return False
        # A plain loop beats all() over a generator, and selectors match every pod every cycle.
        for requirement in self.requirements:  # noqa: SIM110
            if not requirement.matches(labels):
                return False
        return True

    def empty(self) -> bool:
        """True for the select-everything selector (upstream ``Empty()``)."""
        return not self._nothing and not self.requirements

    def matches_nothing(self) -> bool:
        return self._nothing

    def add(self, *requirements: Requirement) -> Selector:
        if self._nothing:
            return self
        return Selector((*self.requirements, *requirements))

    def requires_exact_match(self, key: str) -> str | None:
        """The single value the selector demands for ``key``, if it demands exactly one."""
        for requirement in self.requirements:
            if requirement.key == key:
                exact = requirement.operator in (EQUALS, DOUBLE_EQUALS, IN)
                return requirement.values[0] if exact and len(requirement.values) == 1 else None
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        return self._nothing == other._nothing and self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash((self._nothing, self.requirements))

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "Selector(<nothing>)" if self._nothing else f"Selector({str(self)!r})"


_EVERYTHING = Selector()
_NOTHING = Selector(nothing=True)


def everything() -> Selector:
    return _EVERYTHING


def nothing() -> Selector:
    return _NOTHING


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """A selector matching exactly these labels, unvalidated; empty matches everything."""
    if not labels:
        return _EVERYTHING
    return Selector(Requirement(k, EQUALS, (v,)) for k, v in labels.items())


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def parse(cls, f: Fields) -> LabelSelectorRequirement:
        return cls(f.string("key"), f.string("operator"), tuple(f.string_list("values")))

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"key": self.key, "operator": self.operator}
        if self.values:
            data["values"] = list(self.values)
        return data


@dataclass(slots=True)
class LabelSelector:
    """A selector as written in a manifest; matching parses it once and caches the result."""

    match_labels: dict[str, str] = field(default_factory=dict)
    match_expressions: list[LabelSelectorRequirement] = field(default_factory=list)
    _parsed: Selector | SelectorError | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def parse(cls, f: Fields) -> LabelSelector:
        return cls(
            match_labels=f.string_map("matchLabels"),
            match_expressions=f.parse_list("matchExpressions", LabelSelectorRequirement.parse),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> LabelSelector:
        return cls.parse(Fields.of(data, "LabelSelector"))

    def as_selector(self) -> Selector:
        """The parsed selector; raises :class:`SelectorError` for invalid content."""
        if self._parsed is None:
            try:
                self._parsed = _convert(self)
            except SelectorError as exc:
                self._parsed = exc
        if isinstance(self._parsed, SelectorError):
            raise self._parsed
        return self._parsed

    def matches(self, labels: Mapping[str, str]) -> bool:
        return self.as_selector().matches(labels)

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {}
        if self.match_labels:
            data["matchLabels"] = dict(self.match_labels)
        if self.match_expressions:
            data["matchExpressions"] = [e.to_dict() for e in self.match_expressions]
        return data


def label_selector_as_selector(selector: LabelSelector | None) -> Selector:
    """Upstream ``metav1.LabelSelectorAsSelector``: ``None`` matches nothing, empty everything."""
    if selector is None:
        return _NOTHING
    return selector.as_selector()


def _convert(selector: LabelSelector) -> Selector:
    if not selector.match_labels and not selector.match_expressions:
        return _EVERYTHING
    requirements = [new_requirement(k, EQUALS, (v,)) for k, v in selector.match_labels.items()]
    for expression in selector.match_expressions:
        operator = LABEL_SELECTOR_OPERATORS.get(expression.operator)
        if operator is None:
            message = f"{fe.go_quote(expression.operator)} is not a valid label selector operator"
            raise SelectorError([message])
        requirements.append(new_requirement(expression.key, operator, expression.values))
    return Selector(requirements)


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _unique(errors: list[fe.FieldError]) -> list[fe.FieldError]:
    seen: set[str] = set()
    result = []
    for error in errors:
        text = str(error)
        if text not in seen:
            seen.add(text)
            result.append(error)
    return result
