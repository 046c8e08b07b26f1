"""Validation of a defaulted configuration with upstream's rules, paths and messages.

Upstream validates the internal configuration, i.e. after defaulting and conversion; run
:func:`framework.config.set_defaults` first. Unset values read as Go's zero values here.
"""

from __future__ import annotations

from framework.api.field_errors import FieldError, duplicate, invalid, required
from framework.api.validation.content import is_qualified_name
from framework.config.field import Path, go_value
from framework.config.types import (
    API_VERSION,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    Extender,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    LeaderElectionConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    PluginSet,
    PodTopologySpreadArgs,
    VolumeBindingArgs,
)
from framework.config.validation_pluginargs import (
    unique,
    validate_default_preemption_args,
    validate_dynamic_resources_args,
    validate_inter_pod_affinity_args,
    validate_node_affinity_args,
    validate_node_resources_balanced_allocation_args,
    validate_pod_topology_spread_args,
    validate_volume_binding_args,
)
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates

REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
"""Plugins removed by ``kubescheduler.config.k8s.io/v1`` (or earlier): naming them is an error."""

# The extension points checked for removed plugins (multiPoint and the placement points are
# not, upstream).
_CHECKED_POINTS = (
    ("pre_enqueue", "preEnqueue"),
    ("queue_sort", "queueSort"),
    ("pre_filter", "preFilter"),
    ("filter", "filter"),
    ("post_filter", "postFilter"),
    ("pre_score", "preScore"),
    ("score", "score"),
    ("reserve", "reserve"),
    ("permit", "permit"),
    ("pre_bind", "preBind"),
    ("bind", "bind"),
    ("post_bind", "postBind"),
)

# Args validated per plugin name, with the args type they require. NodeResourcesFit is
# missing on purpose: upstream keys it as "NodeResourcesFitArgs", so its args are only
# checked when the plugin is built.
_ARGS_VALIDATORS = {
    "DefaultPreemption": (DefaultPreemptionArgs, validate_default_preemption_args),
    "InterPodAffinity": (InterPodAffinityArgs, validate_inter_pod_affinity_args),
    "NodeAffinity": (NodeAffinityArgs, validate_node_affinity_args),
    "NodeResourcesBalancedAllocation": (
        NodeResourcesBalancedAllocationArgs,
        validate_node_resources_balanced_allocation_args,
    ),
    "PodTopologySpread": (PodTopologySpreadArgs, validate_pod_topology_spread_args),
}
_FEATURE_AWARE_ARGS_VALIDATORS = {
    "VolumeBinding": (VolumeBindingArgs, validate_volume_binding_args),
    "DynamicResources": (DynamicResourcesArgs, validate_dynamic_resources_args),
}


def validate(
    cfg: KubeSchedulerConfiguration, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> list[FieldError]:
    """Every problem with the configuration, each message once (empty when it is valid)."""
    errors: list[FieldError] = []
    burst = cfg.client_connection.burst
    if burst < 0:
        errors.append(invalid("clientConnection.burst", burst, "must be non-negative"))
    errors.extend(_leader_election_errors(cfg.leader_election, Path("leaderElection")))

    parallelism = cfg.parallelism or 0
    if parallelism <= 0:
        errors.append(
            invalid("parallelism", parallelism, "should be an integer value greater than zero")
        )
    errors.extend(_profiles_errors(cfg.profiles, features))
    errors.extend(
        _percentage_errors(Path("percentageOfNodesToScore"), cfg.percentage_of_nodes_to_score)
    )
    initial = cfg.pod_initial_backoff_seconds or 0
    maximum = cfg.pod_max_backoff_seconds or 0
    if initial <= 0:
        errors.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if maximum < initial:
        errors.append(
            invalid(
                "podMaxBackoffSeconds",
                maximum,
                "must be greater than or equal to PodInitialBackoffSeconds",
            )
        )
    errors.extend(_extenders_errors(Path("extenders"), cfg.extenders))
    return unique(errors)


# --------------------------------------------------------------------------------------------
# Leader election


def _leader_election_errors(election: LeaderElectionConfiguration, path: Path) -> list[FieldError]:
    if not election.leader_elect:
        return []
    errors = []
    for name, value in (
        ("leaseDuration", election.lease_duration),
        ("renewDeadline", election.renew_deadline),
        ("retryPeriod", election.retry_period),
    ):
        if value.total_seconds() <= 0:
            errors.append(
                invalid(str(path.child(name)), go_value(value), "must be greater than zero")
            )
    if election.lease_duration <= election.renew_deadline:
        errors.append(
            invalid(
                str(path.child("leaseDuration")),
                go_value(election.renew_deadline),
                "must be greater than `RenewDeadline`",
            )
        )
    for name, value in (
        ("resourceLock", election.resource_lock),
        ("resourceNamespace", election.resource_namespace),
        ("resourceName", election.resource_name),
    ):
        if not value:
            errors.append(required(str(path.child(name)), ""))
    # Only lease-based locks remain supported.
    if election.resource_lock != "leases":
        errors.append(
            invalid(
                str(path.child("resourceLock")),
                election.resource_lock,
                'resourceLock value must be "leases"',
            )
        )
    return errors


# --------------------------------------------------------------------------------------------
# Profiles


def _profiles_errors(
    profiles: list[KubeSchedulerProfile], features: FeatureGates
) -> list[FieldError]:
    path = Path("profiles")
    if not profiles:
        return [required(str(path), "")]
    errors = []
    first_index_by_name: dict[str, int] = {}
    for i, profile in enumerate(profiles):
        profile_path = path.index(i)
        errors.extend(_profile_errors(profile_path, profile, features))
        name = profile.scheduler_name or ""
        if name in first_index_by_name:
            # Upstream's bad value here is a field.Path, which Go's JSON prints as {}.
            errors.append(duplicate(str(profile_path.child("schedulerName")), {}))
        first_index_by_name[name] = i
    errors.extend(_common_queue_sort_errors(path, profiles))
    return errors


def _profile_errors(
    path: Path, profile: KubeSchedulerProfile, features: FeatureGates
) -> list[FieldError]:
    errors = []
    if not profile.scheduler_name:
        errors.append(required(str(path.child("schedulerName")), ""))
    errors.extend(
        _percentage_errors(
            path.child("percentageOfNodesToScore"), profile.percentage_of_nodes_to_score
        )
    )
    errors.extend(_removed_plugins_errors(path.child("plugins"), profile))
    errors.extend(_plugin_config_errors(path, profile, features))
    return errors


def _percentage_errors(path: Path, value: int | None) -> list[FieldError]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(str(path), value, "not in valid range [0-100]")]
    return []


def _removed_plugins_errors(path: Path, profile: KubeSchedulerProfile) -> list[FieldError]:
    if profile.plugins is None:
        return []
    errors = []
    for attr, key in _CHECKED_POINTS:
        plugin_set: PluginSet = getattr(profile.plugins, attr)
        for i, plugin in enumerate(plugin_set.enabled):
            if plugin.name in REMOVED_PLUGINS:
                errors.append(
                    invalid(str(path.child(key, "enabled").index(i)), plugin.name, _REMOVED_DETAIL)
                )
    return errors


_REMOVED_DETAIL = (
    f'was invalid in version "{API_VERSION}" '
    f'(KubeSchedulerConfiguration is version "{API_VERSION}")'
)


def _plugin_config_errors(
    path: Path, profile: KubeSchedulerProfile, features: FeatureGates
) -> list[FieldError]:
    errors = []
    seen: set[str] = set()
    for i, plugin_config in enumerate(profile.plugin_config):
        config_path = path.child("pluginConfig").index(i)
        name, args = plugin_config.name, plugin_config.args
        if name in seen:
            errors.append(duplicate(str(config_path), name))
        seen.add(name)
        if name in REMOVED_PLUGINS:
            errors.append(invalid(str(config_path), name, _REMOVED_DETAIL))
            continue
        errors.extend(_args_errors(config_path.child("args"), name, args, features))
    return errors


def _args_errors(path: Path, name: str, args: object, features: FeatureGates) -> list[FieldError]:
    if name in _ARGS_VALIDATORS:
        args_type, validator = _ARGS_VALIDATORS[name]
        if not isinstance(args, args_type):
            return [_args_type_mismatch(path, args)]
        return validator(path, args)
    if name in _FEATURE_AWARE_ARGS_VALIDATORS:
        args_type, feature_validator = _FEATURE_AWARE_ARGS_VALIDATORS[name]
        if not isinstance(args, args_type):
            return [_args_type_mismatch(path, args)]
        return feature_validator(path, args, features)
    return []


def _args_type_mismatch(path: Path, args: object) -> FieldError:
    return invalid(str(path), go_value(args), "has to match plugin args")


def _common_queue_sort_errors(path: Path, profiles: list[KubeSchedulerProfile]) -> list[FieldError]:
    """Every profile must sort the one scheduling queue the same way, with the same args."""
    errors = []
    first = profiles[0]
    canon = first.plugins.queue_sort if first.plugins is not None else PluginSet()
    queue_sort_name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errors.append(
            invalid(
                str(path.index(0).child("plugins", "queueSort", "Enabled")),
                len(canon.enabled),
                "only one queue sort plugin can be enabled",
            )
        )
    queue_sort_args = None
    for plugin_config in first.plugin_config:
        if queue_sort_name and plugin_config.name == queue_sort_name:
            queue_sort_args = plugin_config.args
    for i, profile in enumerate(profiles[1:], start=1):
        current = profile.plugins.queue_sort if profile.plugins is not None else PluginSet()
        if current != canon:
            errors.append(
                invalid(
                    str(path.index(i).child("plugins", "queueSort")),
                    go_value(current),
                    "must be the same for all profiles",
                )
            )
        for plugin_config in profile.plugin_config:
            if plugin_config.name == queue_sort_name and plugin_config.args != queue_sort_args:
                errors.append(
                    invalid(
                        str(path.index(i).child("pluginConfig", "args")),
                        go_value(plugin_config.args),
                        "queueSort must be the same for all profiles",
                    )
                )
    return errors


# --------------------------------------------------------------------------------------------
# Extenders


def _extenders_errors(path: Path, extenders: list[Extender]) -> list[FieldError]:
    errors = []
    binders = 0
    managed_names: set[str] = set()
    for i, extender in enumerate(extenders):
        extender_path = path.index(i)
        if extender.prioritize_verb and extender.weight <= 0:
            errors.append(
                invalid(
                    str(extender_path.child("weight")),
                    extender.weight,
                    "must have a positive weight applied to it",
                )
            )
        if extender.bind_verb:
            binders += 1
        for j, resource in enumerate(extender.managed_resources):
            name_path = extender_path.child("managedResources").index(j).child("name")
            errors.extend(_extended_resource_name_errors(name_path, resource.name))
            if resource.name in managed_names:
                errors.append(
                    invalid(
                        str(name_path), resource.name, "duplicate extender managed resource name"
                    )
                )
            managed_names.add(resource.name)
    if binders > 1:
        errors.append(
            invalid(
                str(path),
                f"found {binders} extenders implementing bind",
                "only one extender can implement bind",
            )
        )
    return errors


def _extended_resource_name_errors(path: Path, name: str) -> list[FieldError]:
    problems = is_qualified_name(name)
    if problems:
        return [invalid(str(path), name, problem) for problem in problems]
    if not is_extended_resource_name(name):
        return [invalid(str(path), name, "is an invalid extended resource name")]
    return []


def is_extended_resource_name(name: str) -> bool:
    """A resource outside the ``kubernetes.io`` namespace, valid as ``requests.<name>``."""
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)
