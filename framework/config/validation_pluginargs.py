"""Validation of in-tree plugin args, with upstream's rules and messages.

Each ``validate_<kind>`` takes the path of the args (``None`` when validated on their own, as
plugins do when they are built) and returns the errors found, in upstream's order and with
its duplicates removed where upstream removes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from framework.api.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from framework.api.validation.content import is_label_key, is_label_value, is_qualified_name
from framework.config.corev1 import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    TopologySpreadConstraint,
)
from framework.config.field import Path, go_value
from framework.config.types import (
    LEAST_ALLOCATED,
    LIST_DEFAULTING,
    MAX_CUSTOM_PRIORITY_SCORE,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    SYSTEM_DEFAULTING,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    ResourceSpec,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates

SUPPORTED_SCORING_STRATEGY_TYPES = sorted(
    (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
)
VALID_SELECTOR_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
VALID_FIELD_SELECTOR_OPERATORS = ["In", "NotIn"]
_GO_INT = re.compile(r"[+-]?[0-9]+")


def validate_default_preemption_args(
    path: Path | None, args: DefaultPreemptionArgs
) -> list[FieldError]:
    path = path or Path()
    percentage_path = path.child("minCandidateNodesPercentage")
    absolute_path = path.child("minCandidateNodesAbsolute")
    percentage = args.min_candidate_nodes_percentage or 0
    absolute = args.min_candidate_nodes_absolute or 0
    errors = []
    if not 0 <= percentage <= 100:
        errors.append(invalid(str(percentage_path), percentage, "not in valid range [0, 100]"))
    if absolute < 0:
        errors.append(invalid(str(absolute_path), absolute, "not in valid range [0, inf)"))
    if percentage == 0 and absolute == 0:
        errors.append(
            invalid(
                str(percentage_path),
                percentage,
                "cannot be zero at the same time as minCandidateNodesAbsolute",
            )
        )
        errors.append(
            invalid(
                str(absolute_path),
                absolute,
                "cannot be zero at the same time as minCandidateNodesPercentage",
            )
        )
    return unique(errors)


def validate_inter_pod_affinity_args(
    path: Path | None, args: InterPodAffinityArgs
) -> list[FieldError]:
    weight = args.hard_pod_affinity_weight or 0
    if not 0 <= weight <= 100:
        weight_path = (path or Path()).child("hardPodAffinityWeight")
        return [invalid(str(weight_path), weight, "not in valid range [0, 100]")]
    return []


def validate_pod_topology_spread_args(
    path: Path | None, args: PodTopologySpreadArgs
) -> list[FieldError]:
    """Upstream's pod topology spread constraint rules, plus: no label selectors."""
    path = path or Path()
    errors = _defaulting_type_errors(path.child("defaultingType"), args)
    constraints_path = path.child("defaultConstraints")
    for i in range(len(args.default_constraints)):
        errors.extend(_constraint_errors(constraints_path, args.default_constraints, i))
    return unique(errors)


def _defaulting_type_errors(path: Path, args: PodTopologySpreadArgs) -> list[FieldError]:
    value = args.defaulting_type
    if value not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        return [not_supported(str(path), value, [SYSTEM_DEFAULTING, LIST_DEFAULTING])]
    if value == SYSTEM_DEFAULTING and args.default_constraints:
        return [invalid(str(path), value, "when .defaultConstraints are not empty")]
    return []


def _constraint_errors(
    constraints_path: Path, constraints: list[TopologySpreadConstraint], index: int
) -> list[FieldError]:
    constraint = constraints[index]
    path = constraints_path.index(index)
    errors = []
    if constraint.max_skew <= 0:
        errors.append(
            invalid(str(path.child("maxSkew")), constraint.max_skew, "not in valid range (0, inf)")
        )
    errors.extend(_topology_key_errors(path.child("topologyKey"), constraint.topology_key))
    errors.extend(_when_unsatisfiable_errors(path.child("whenUnsatisfiable"), constraint))
    if constraint.label_selector is not None:
        errors.append(
            forbidden(
                str(path.child("labelSelector")),
                "constraint must not define a selector, as they deduced for each pod",
            )
        )
    for other in constraints[:index]:
        if (other.topology_key, other.when_unsatisfiable) == (
            constraint.topology_key,
            constraint.when_unsatisfiable,
        ):
            pair = f"{{{constraint.topology_key}, {constraint.when_unsatisfiable}}}"
            errors.append(duplicate(str(path), pair))
            break
    return errors


def _topology_key_errors(path: Path, key: str) -> list[FieldError]:
    if not key:
        return [required(str(path), "can not be empty")]
    return label_name_errors(path, key)


def _when_unsatisfiable_errors(
    path: Path, constraint: TopologySpreadConstraint
) -> list[FieldError]:
    value = constraint.when_unsatisfiable
    if not value:
        return [required(str(path), "can not be empty")]
    supported = sorted((DO_NOT_SCHEDULE, SCHEDULE_ANYWAY))
    if value not in supported:
        return [not_supported(str(path), value, supported)]
    return []


def validate_node_resources_balanced_allocation_args(
    path: Path | None, args: NodeResourcesBalancedAllocationArgs
) -> list[FieldError]:
    resources_path = (path or Path()).child("resources")
    errors = []
    seen: set[str] = set()
    for i, resource in enumerate(args.resources):
        if resource.name in seen:
            errors.append(duplicate(str(resources_path.index(i).child("name")), resource.name))
        seen.add(resource.name)
        if resource.weight != 1:
            errors.append(
                invalid(str(resources_path.index(i).child("weight")), resource.weight, "must be 1")
            )
    return unique(errors)


def validate_volume_binding_args(
    path: Path | None, args: VolumeBindingArgs, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> list[FieldError]:
    path = path or Path()
    errors = []
    timeout = args.bind_timeout_seconds or 0
    if timeout < 0:
        errors.append(
            invalid(
                str(path.child("bindTimeoutSeconds")),
                timeout,
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if features.enabled("StorageCapacityScoring"):
        errors.extend(_function_shape_errors(args.shape or [], path.child("shape")))
    elif args.shape is not None:
        # Refused while the feature is off, so it cannot take effect unnoticed later.
        errors.append(
            invalid(
                str(path.child("shape")),
                go_value(args.shape),
                "unexpected field `shape`, remove it or turn on the feature gate "
                "StorageCapacityScoring",
            )
        )
    return unique(errors)


def validate_node_resources_fit_args(
    path: Path | None, args: NodeResourcesFitArgs
) -> list[FieldError]:
    """Also what the NodeResourcesFit plugin checks when it is built (with ``path=None``)."""
    path = path or Path()
    errors = []
    for i, resource in enumerate(args.ignored_resources):
        errors.extend(label_name_errors(path.child("ignoredResources").index(i), resource))
    for i, group in enumerate(args.ignored_resource_groups):
        group_path = path.child("ignoredResourceGroups").index(i)
        if "/" in group:
            errors.append(invalid(str(group_path), group, "resource group name can't contain '/'"))
        errors.extend(label_name_errors(group_path, group))
    errors.extend(_scoring_strategy_errors(path.child("scoringStrategy"), args))
    return unique(errors)


def _scoring_strategy_errors(path: Path, args: NodeResourcesFitArgs) -> list[FieldError]:
    strategy = args.scoring_strategy
    if strategy is None:
        return [required(str(path), "ScoringStrategy field is required")]
    errors = []
    if strategy.type not in SUPPORTED_SCORING_STRATEGY_TYPES:
        errors.append(
            not_supported(str(path.child("type")), strategy.type, SUPPORTED_SCORING_STRATEGY_TYPES)
        )
    errors.extend(_resources_errors(strategy.resources, path.child("resources")))
    ratio_path = path.child("requestedToCapacityRatio")
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        if strategy.requested_to_capacity_ratio is None:
            errors.append(
                required(str(ratio_path), "must be specified when type is RequestedToCapacityRatio")
            )
        else:
            shape = strategy.requested_to_capacity_ratio.shape
            errors.extend(_function_shape_errors(shape, ratio_path.child("shape")))
    elif strategy.requested_to_capacity_ratio is not None:
        errors.append(
            forbidden(str(ratio_path), "must be nil when type is not RequestedToCapacityRatio")
        )
    return errors


def _resources_errors(resources: list[ResourceSpec], path: Path) -> list[FieldError]:
    errors = []
    for i, resource in enumerate(resources):
        if not 0 < resource.weight <= 100:
            errors.append(
                invalid(
                    str(path.index(i).child("weight")),
                    resource.weight,
                    f"resource weight of {resource.name} not in valid range (0, 100]",
                )
            )
    return errors


def _function_shape_errors(shape: list[UtilizationShapePoint], path: Path) -> list[FieldError]:
    if not shape:
        return [required(str(path), "at least one point must be specified")]
    errors = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errors.append(
                invalid(
                    str(path.index(i).child("utilization")),
                    shape[i].utilization,
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            errors.append(
                invalid(
                    str(path.index(i).child("utilization")),
                    point.utilization,
                    "not in valid range [0, 100]",
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errors.append(
                invalid(
                    str(path.index(i).child("score")),
                    point.score,
                    f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                )
            )
    return errors


def validate_dynamic_resources_args(
    path: Path | None, args: DynamicResourcesArgs, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> list[FieldError]:
    """Unlike the REST API, setting a field whose feature is off is an error here."""
    path = path or Path()
    errors = []
    filter_path = str(path.child("filterTimeout"))
    if features.enabled("DRASchedulerFilterTimeout"):
        if args.filter_timeout is not None and args.filter_timeout.total_seconds() < 0:
            errors.append(
                invalid(filter_path, go_value(args.filter_timeout), "must be zero or positive")
            )
    elif args.filter_timeout is not None:
        errors.append(forbidden(filter_path, "DRASchedulingFilterTimeout feature gate is disabled"))

    binding_path = str(path.child("bindingTimeout"))
    if features.enabled("DRADeviceBindingConditions") and features.enabled(
        "DRAResourceClaimDeviceStatus"
    ):
        if args.binding_timeout is not None and args.binding_timeout.total_seconds() < 1:
            errors.append(
                invalid(binding_path, go_value(args.binding_timeout), "must be at least 1 second")
            )
    elif args.binding_timeout is not None:
        errors.append(
            forbidden(
                binding_path,
                "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is "
                "disabled",
            )
        )
    return unique(errors)


# --------------------------------------------------------------------------------------------
# NodeAffinity: the parse errors of upstream's node selector (component-helpers nodeaffinity)


def validate_node_affinity_args(path: Path | None, args: NodeAffinityArgs) -> list[FieldError]:
    affinity = args.added_affinity
    if affinity is None:
        return []
    path = (path or Path()).child("addedAffinity")
    errors = []
    selector = affinity.required_during_scheduling_ignored_during_execution
    if selector is not None:
        terms_path = path.child(
            "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"
        )
        for i, term in enumerate(selector.node_selector_terms):
            if not _is_empty_term(term):
                errors.extend(_node_selector_term_errors(term, terms_path.index(i)))
    preferred_path = path.child("preferredDuringSchedulingIgnoredDuringExecution")
    for i, preferred in enumerate(affinity.preferred_during_scheduling_ignored_during_execution):
        # Terms with weight 0 are never used, so upstream does not parse them.
        if preferred.weight != 0 and not _is_empty_term(preferred.preference):
            errors.extend(_node_selector_term_errors(preferred.preference, preferred_path.index(i)))
    return errors


def _is_empty_term(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


def _node_selector_term_errors(term: NodeSelectorTerm, path: Path) -> list[FieldError]:
    errors = []
    expressions_path = path.child("matchExpressions")
    for i, requirement in enumerate(term.match_expressions):
        errors.extend(_label_requirement_errors(requirement, expressions_path.index(i)))
    fields_path = path.child("matchFields")
    for i, requirement in enumerate(term.match_fields):
        errors.extend(_field_requirement_errors(requirement, fields_path.index(i)))
    return errors


def _label_requirement_errors(requirement: NodeSelectorRequirement, path: Path) -> list[FieldError]:
    """labels.NewRequirement's checks for one node selector requirement."""
    operator, key, values = requirement.operator, requirement.key, requirement.values
    if operator not in VALID_SELECTOR_OPERATORS:
        return [not_supported(str(path.child("operator")), operator, VALID_SELECTOR_OPERATORS)]
    errors = []
    key_problems = is_label_key(key)
    if key_problems:
        errors.append(invalid(str(path.child("key")), key, "; ".join(key_problems)))
    values_path = path.child("values")
    if operator in ("In", "NotIn") and not values:
        errors.append(
            invalid(
                str(values_path),
                go_value(values),
                "for 'in', 'notin' operators, values set can't be empty",
            )
        )
    elif operator in ("Exists", "DoesNotExist") and values:
        errors.append(
            invalid(
                str(values_path),
                go_value(values),
                "values set must be empty for exists and does not exist",
            )
        )
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errors.append(
                invalid(
                    str(values_path),
                    go_value(values),
                    "for 'Gt', 'Lt' operators, exactly one value is required",
                )
            )
        for i, value in enumerate(values):
            if not _is_go_int64(value):
                errors.append(
                    invalid(
                        str(values_path.index(i)),
                        value,
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    )
                )
    for i, value in enumerate(values):
        value_problems = is_label_value(value)
        if value_problems:
            errors.append(
                invalid(str(values_path.index(i).key(key)), value, "; ".join(value_problems))
            )
    return unique(errors)


def _field_requirement_errors(requirement: NodeSelectorRequirement, path: Path) -> list[FieldError]:
    if requirement.operator not in VALID_FIELD_SELECTOR_OPERATORS:
        return [
            not_supported(
                str(path.child("operator")), requirement.operator, VALID_FIELD_SELECTOR_OPERATORS
            )
        ]
    if len(requirement.values) != 1:
        return [
            invalid(
                str(path.child("values")), go_value(requirement.values), "must have one element"
            )
        ]
    return []


def _is_go_int64(text: str) -> bool:
    return bool(_GO_INT.fullmatch(text)) and -(2**63) <= int(text) <= 2**63 - 1


# --------------------------------------------------------------------------------------------
# Shared helpers


def label_name_errors(path: Path, name: str) -> list[FieldError]:
    """metav1 ValidateLabelName: one error per problem with the name."""
    return [invalid(str(path), name, problem) for problem in is_qualified_name(name)]


def unique(errors: Iterable[FieldError]) -> list[FieldError]:
    """Drops repeated messages, as upstream's error lists do when they are aggregated."""
    seen: set[str] = set()
    result = []
    for error in errors:
        text = str(error)
        if text not in seen:
            seen.add(text)
            result.append(error)
    return result
