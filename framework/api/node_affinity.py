"""Node selectors and node affinity: the manifest types and how they match nodes.

Matching follows ``component-helpers/scheduling/corev1/nodeaffinity``: terms are ORed, an
empty term or an empty selector matches nothing, and a term that fails to parse (unknown
operator, ``Gt`` with a non-integer, ...) never matches while the other terms still can.
Parse problems are kept with upstream's wording and field paths for whoever reports them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from framework.api import field_errors as fe
from framework.api.fields import Fields
from framework.api.labels import (
    DOES_NOT_EXIST,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_IN,
    Requirement,
    Selector,
    SelectorError,
    new_requirement,
    selector_from_set,
)

NODE_SELECTOR_OPERATORS = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
    "Gt": GREATER_THAN,
    "Lt": LESS_THAN,
}
FIELD_SELECTOR_OPERATORS = ("In", "NotIn")
NODE_NAME_FIELD = "metadata.name"


class AffinityLike(Protocol):
    """What ``RequiredNodeAffinity.from_pod`` reads of a pod's affinity."""

    @property
    def node_affinity(self) -> NodeAffinity | None: ...


class PodSpecLike(Protocol):
    """What ``RequiredNodeAffinity.from_pod`` reads of a pod's spec. A protocol rather than
    framework.api.pod's PodSpec: pod.py imports this module (no import circle)."""

    @property
    def node_selector(self) -> Mapping[str, str]: ...

    @property
    def affinity(self) -> AffinityLike | None: ...


class PodLike(Protocol):
    @property
    def spec(self) -> PodSpecLike: ...


class NodeLike(Protocol):
    """What matching reads from a node: its name and labels."""

    @property
    def name(self) -> str: ...

    @property
    def labels(self) -> Mapping[str, str]: ...


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def parse(cls, f: Fields) -> NodeSelectorRequirement:
        return cls(f.string("key"), f.string("operator"), tuple(f.string_list("values")))


@dataclass(slots=True)
class NodeSelectorTerm:
    """Expressions on labels and on fields, ANDed. An empty term matches nothing."""

    match_expressions: list[NodeSelectorRequirement] = field(default_factory=list)
    match_fields: list[NodeSelectorRequirement] = field(default_factory=list)
    _compiled: _CompiledTerm | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def parse(cls, f: Fields) -> NodeSelectorTerm:
        return cls(
            match_expressions=f.parse_list("matchExpressions", NodeSelectorRequirement.parse),
            match_fields=f.parse_list("matchFields", NodeSelectorRequirement.parse),
        )

    def is_empty(self) -> bool:
        return not self.match_expressions and not self.match_fields

    def matches(self, node: NodeLike) -> bool:
        """Whether the node satisfies this term; a term with parse errors never does."""
        if self._compiled is None:
            self._compiled = _CompiledTerm.build(self, "")
        return self._compiled.matches(node)


@dataclass(slots=True)
class NodeSelector:
    """Terms ORed together (``v1.NodeSelector``). Parsed once, on first match."""

    node_selector_terms: list[NodeSelectorTerm] = field(default_factory=list)
    _compiled: list[_CompiledTerm] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def parse(cls, f: Fields) -> NodeSelector:
        return cls(f.parse_list("nodeSelectorTerms", NodeSelectorTerm.parse))

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> NodeSelector:
        return cls.parse(Fields.of(data, "NodeSelector"))

    def match(self, node: NodeLike | None) -> bool:
        """Upstream's lazy-error match: terms with parse errors are skipped."""
        return self.match_with_error(node)[0]

    def match_with_error(self, node: NodeLike | None) -> tuple[bool, SelectorError | None]:
        """Whether a term matches; when none does, the parse errors met along the way."""
        if node is None:
            return False, None
        if self._compiled is None:
            self._compiled = self._compile("")
        errors: list[object] = []
        for compiled in self._compiled:
            if compiled.errors:
                errors.extend(compiled.errors)
            elif compiled.matches(node):
                return True, None
        return False, SelectorError(errors) if errors else None

    def parse_errors(self, path: str = "") -> list[object]:
        """Every parse problem, with field paths under ``path`` (upstream ``NewNodeSelector``)."""
        return [error for term in self._compile(path) for error in term.errors]

    def _compile(self, path: str) -> list[_CompiledTerm]:
        base = _child(path, "nodeSelectorTerms")
        return [
            _CompiledTerm.build(term, _index(base, index))
            for index, term in enumerate(self.node_selector_terms)
            if not term.is_empty()
        ]


@dataclass(slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm

    @classmethod
    def parse(cls, f: Fields) -> PreferredSchedulingTerm:
        return cls(f.integer("weight"), NodeSelectorTerm.parse(f.mapping("preference")))


@dataclass(slots=True)
class NodeAffinity:
    required: NodeSelector | None = None
    preferred: list[PreferredSchedulingTerm] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> NodeAffinity:
        return cls(
            required=f.parse_optional(
                "requiredDuringSchedulingIgnoredDuringExecution", NodeSelector.parse
            ),
            preferred=f.parse_list(
                "preferredDuringSchedulingIgnoredDuringExecution", PreferredSchedulingTerm.parse
            ),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> NodeAffinity:
        return cls.parse(Fields.of(data, "NodeAffinity"))


class PreferredSchedulingTerms:
    """Weighted preferences ready to score nodes (upstream ``NewPreferredSchedulingTerms``).

    Building fails with :class:`SelectorError` if any term does not parse; terms with weight
    0 or no expressions are skipped.
    """

    __slots__ = ("_terms",)

    def __init__(self, terms: Sequence[PreferredSchedulingTerm], path: str = "") -> None:
        errors: list[object] = []
        parsed: list[tuple[int, _CompiledTerm]] = []
        for index, term in enumerate(terms):
            if term.weight == 0 or term.preference.is_empty():
                continue
            compiled = _CompiledTerm.build(term.preference, _index(path, index))
            if compiled.errors:
                errors.extend(compiled.errors)
            else:
                parsed.append((term.weight, compiled))
        if errors:
            raise SelectorError(errors)
        self._terms = parsed

    def score(self, node: NodeLike) -> int:
        """The sum of the weights of the terms the node matches."""
        return sum(weight for weight, term in self._terms if term.matches(node))


class RequiredNodeAffinity:
    """A pod's ``spec.nodeSelector`` AND its required node affinity, ready to match nodes."""

    __slots__ = ("_label_selector", "_label_selector_source", "_node_selector")

    def __init__(self, node_selector: Mapping[str, str], affinity: NodeSelector | None) -> None:
        self._label_selector_source = node_selector
        self._label_selector: Selector | None = (
            selector_from_set(node_selector) if node_selector else None
        )
        self._node_selector = affinity

    @classmethod
    def from_pod(cls, pod: PodLike) -> RequiredNodeAffinity:
        """Upstream ``GetRequiredNodeAffinity``."""
        spec = pod.spec
        node_affinity = spec.affinity.node_affinity if spec.affinity else None
        required = node_affinity.required if node_affinity else None
        return cls(spec.node_selector, required)

    def match(self, node: NodeLike) -> bool:
        return self.match_with_error(node)[0]

    def key(self) -> Hashable:
        """A value equal for pods with the same node selector and required affinity: they
        match the same nodes, which lets a matcher remember its answers across pods."""
        selector = self._label_selector_source
        terms = self._node_selector.node_selector_terms if self._node_selector else None
        return (
            tuple(sorted(selector.items())),
            None
            if terms is None
            else tuple((tuple(t.match_expressions), tuple(t.match_fields)) for t in terms),
        )

    def is_empty(self) -> bool:
        """No node selector and no required affinity: every node matches."""
        return self._label_selector is None and self._node_selector is None

    def match_with_error(self, node: NodeLike) -> tuple[bool, SelectorError | None]:
        if self._label_selector is not None and not self._label_selector.matches(node.labels):
            return False, None
        if self._node_selector is not None:
            return self._node_selector.match_with_error(node)
        return True, None


class _CompiledTerm:
    """A parsed term: label requirements, field requirements, or the reasons it failed."""

    __slots__ = ("errors", "fields", "labels", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.labels: Selector | None = None
        self.fields: list[tuple[str, str, str]] | None = None
        self.errors: list[object] = []

    @classmethod
    def build(cls, term: NodeSelectorTerm, path: str) -> _CompiledTerm:
        compiled = cls(path)
        if term.match_expressions:
            compiled.labels = compiled._label_selector(term.match_expressions)
        if term.match_fields:
            compiled.fields = compiled._field_requirements(term.match_fields)
        return compiled

    def matches(self, node: NodeLike) -> bool:
        if self.errors:
            return False
        if self.labels is not None and not self.labels.matches(node.labels):
            return False
        # Field requirements only apply to nodes with a name, as upstream.
        if self.fields is not None and node.name:
            node_fields = {NODE_NAME_FIELD: node.name}
            for key, operator, value in self.fields:
                equal = node_fields.get(key, "") == value
                if equal != (operator == "In"):
                    return False
        return True

    def _label_selector(self, expressions: list[NodeSelectorRequirement]) -> Selector | None:
        requirements: list[Requirement] = []
        base = _child(self.path, "matchExpressions")
        for index, expression in enumerate(expressions):
            where = _index(base, index)
            operator = NODE_SELECTOR_OPERATORS.get(expression.operator)
            if operator is None:
                self.errors.append(
                    fe.not_supported(
                        _child(where, "operator"),
                        expression.operator,
                        list(NODE_SELECTOR_OPERATORS),
                    )
                )
                continue
            try:
                requirements.append(
                    new_requirement(expression.key, operator, expression.values, where)
                )
            except SelectorError as exc:
                self.errors.extend(exc.errors)
        return None if self.errors else Selector(requirements)

    def _field_requirements(
        self, expressions: list[NodeSelectorRequirement]
    ) -> list[tuple[str, str, str]] | None:
        result: list[tuple[str, str, str]] = []
        base = _child(self.path, "matchFields")
        errors_before = len(self.errors)
        for index, expression in enumerate(expressions):
            where = _index(base, index)
            if expression.operator not in FIELD_SELECTOR_OPERATORS:
                self.errors.append(
                    fe.not_supported(
                        _child(where, "operator"), expression.operator, FIELD_SELECTOR_OPERATORS
                    )
                )
            elif len(expression.values) != 1:
                self.errors.append(
                    fe.invalid(
                        _child(where, "values"), list(expression.values), "must have one element"
                    )
                )
            else:
                result.append((expression.key, expression.operator, expression.values[0]))
        return None if len(self.errors) > errors_before else result


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _index(path: str, index: int) -> str:
    return f"{path}[{index}]"
