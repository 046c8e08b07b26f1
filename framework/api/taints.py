"""Node taints, pod tolerations and whether the one tolerates the other.

Follows ``v1.Toleration.ToleratesTaint`` and the helpers in
``component-helpers/scheduling/corev1``. The ``Gt``/``Lt`` toleration operators belong to the
``TaintTolerationComparisonOperators`` feature, alpha and off by default in v1.36; callers
pass ``enable_comparison_operators`` to turn them on.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from framework.api.fields import Fields
from framework.api.validation.content import is_decimal_integer, parse_int64

TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
TAINT_EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
TAINT_EFFECT_NO_EXECUTE = "NoExecute"

TOLERATION_OP_EQUAL = "Equal"
TOLERATION_OP_EXISTS = "Exists"
TOLERATION_OP_GT = "Gt"
TOLERATION_OP_LT = "Lt"

# The taint the node lifecycle controller puts on nodes with spec.unschedulable.
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""
    time_added: _dt.datetime | None = None

    @classmethod
    def parse(cls, f: Fields) -> Taint:
        return cls(
            key=f.string("key"),
            value=f.string("value"),
            effect=f.string("effect"),
            time_added=f.time("timeAdded"),
        )

    def match_taint(self, other: Taint) -> bool:
        """Taints are unique by key and effect (upstream ``MatchTaint``)."""
        return self.key == other.key and self.effect == other.effect

    def to_string(self) -> str:
        """``key=value:effect`` with empty parts left out, as upstream's ``ToString``."""
        if not self.effect:
            return self.key if not self.value else f"{self.key}={self.value}:"
        if not self.value:
            return f"{self.key}:{self.effect}"
        return f"{self.key}={self.value}:{self.effect}"

    def __str__(self) -> str:
        return self.to_string()


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    @classmethod
    def parse(cls, f: Fields) -> Toleration:
        return cls(
            key=f.string("key"),
            operator=f.string("operator"),
            value=f.string("value"),
            effect=f.string("effect"),
            toleration_seconds=f.optional_integer("tolerationSeconds"),
        )

    def tolerates(self, taint: Taint, *, enable_comparison_operators: bool = False) -> bool:
        """Upstream ``ToleratesTaint``: empty effect matches every effect, empty key with
        ``Exists`` matches every taint, an empty operator means ``Equal``."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        operator = self.operator
        if operator in ("", TOLERATION_OP_EQUAL):
            return self.value == taint.value
        if operator == TOLERATION_OP_EXISTS:
            return True
        if operator in (TOLERATION_OP_GT, TOLERATION_OP_LT):
            return enable_comparison_operators and _compare(self.value, taint.value, operator)
        return False

    def match_toleration(self, other: Toleration) -> bool:
        """Tolerations are unique by key, effect, operator and value."""
        return (
            self.key == other.key
            and self.effect == other.effect
            and self.operator == other.operator
            and self.value == other.value
        )


def _compare(toleration_value: str, taint_value: str, operator: str) -> bool:
    if is_decimal_integer(toleration_value) or is_decimal_integer(taint_value):
        return False
    wanted = parse_int64(toleration_value)
    have = parse_int64(taint_value)
    if wanted is None or have is None:
        return False
    return have < wanted if operator == TOLERATION_OP_LT else have > wanted


def tolerations_tolerate_taint(
    tolerations: Iterable[Toleration], taint: Taint, *, enable_comparison_operators: bool = False
) -> bool:
    """Whether any toleration tolerates the taint."""
    return any(
        t.tolerates(taint, enable_comparison_operators=enable_comparison_operators)
        for t in tolerations
    )


def find_matching_untolerated_taint(
    taints: Sequence[Taint],
    tolerations: Sequence[Toleration],
    inclusion_filter: Callable[[Taint], bool] | None = None,
    *,
    enable_comparison_operators: bool = False,
) -> Taint | None:
    """The first taint (among those the filter keeps) that no toleration tolerates."""
    for taint in taints:
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(
            tolerations, taint, enable_comparison_operators=enable_comparison_operators
        ):
            return taint
    return None


def do_not_schedule_taints_filter(taint: Taint) -> bool:
    """Keeps the taints that stop scheduling: ``NoSchedule`` and ``NoExecute``."""
    return taint.effect in (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE)
