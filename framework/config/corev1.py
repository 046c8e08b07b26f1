"""The core/v1 and meta/v1 types that plugin args embed, as the configuration decodes them.

PodTopologySpreadArgs carries TopologySpreadConstraints and NodeAffinityArgs a NodeAffinity.
They are decoded strictly like the rest of the file; plugins turn them into
``framework.api`` objects with ``framework.config.encode.to_json_value`` and the usual
``from_dict`` parsers, so there is still one implementation of their semantics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, ClassVar

from framework.config.schema import OMITEMPTY, GoType, Int32

NodeSelectorOperator = Annotated[str, GoType("v1.NodeSelectorOperator")]
LabelSelectorOperator = Annotated[str, GoType("v1.LabelSelectorOperator")]
UnsatisfiableConstraintAction = Annotated[str, GoType("v1.UnsatisfiableConstraintAction")]
NodeInclusionPolicy = Annotated[str, GoType("v1.NodeInclusionPolicy")]

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"


@dataclass(slots=True)
class LabelSelectorRequirement:
    GO_JSON_TAGS: ClassVar[bool] = True

    key: str = ""
    operator: LabelSelectorOperator = ""
    values: list[str] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class LabelSelector:
    GO_JSON_TAGS: ClassVar[bool] = True

    match_labels: dict[str, str] = field(default_factory=dict, metadata=OMITEMPTY)
    match_expressions: list[LabelSelectorRequirement] = field(
        default_factory=list, metadata=OMITEMPTY
    )


@dataclass(slots=True)
class TopologySpreadConstraint:
    GO_JSON_TAGS: ClassVar[bool] = True

    max_skew: Int32 = 0
    topology_key: str = ""
    when_unsatisfiable: UnsatisfiableConstraintAction = ""
    label_selector: LabelSelector | None = field(default=None, metadata=OMITEMPTY)
    min_domains: Int32 | None = field(default=None, metadata=OMITEMPTY)
    node_affinity_policy: NodeInclusionPolicy | None = field(default=None, metadata=OMITEMPTY)
    node_taints_policy: NodeInclusionPolicy | None = field(default=None, metadata=OMITEMPTY)
    match_label_keys: list[str] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class NodeSelectorRequirement:
    GO_JSON_TAGS: ClassVar[bool] = True

    key: str = ""
    operator: NodeSelectorOperator = ""
    values: list[str] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class NodeSelectorTerm:
    GO_JSON_TAGS: ClassVar[bool] = True

    match_expressions: list[NodeSelectorRequirement] = field(
        default_factory=list, metadata=OMITEMPTY
    )
    match_fields: list[NodeSelectorRequirement] = field(default_factory=list, metadata=OMITEMPTY)


@dataclass(slots=True)
class NodeSelector:
    GO_JSON_TAGS: ClassVar[bool] = True

    node_selector_terms: list[NodeSelectorTerm] = field(default_factory=list)


@dataclass(slots=True)
class PreferredSchedulingTerm:
    GO_JSON_TAGS: ClassVar[bool] = True

    weight: Int32 = 0
    preference: NodeSelectorTerm = field(default_factory=NodeSelectorTerm)


@dataclass(slots=True)
class NodeAffinity:
    GO_JSON_TAGS: ClassVar[bool] = True

    required_during_scheduling_ignored_during_execution: NodeSelector | None = field(
        default=None, metadata=OMITEMPTY
    )
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] = field(
        default_factory=list, metadata=OMITEMPTY
    )
