"""Upstream's ``ValidatePodCreate`` for every field the scheduler reads
(``pkg/apis/core/validation``): the same field paths, messages and order, so a pod refused by
kube-apiserver is refused here with the same list.

It checks the manifest as the API server sees it after defaulting and after the pod strategy's
mutations (``matchLabelKeys`` merged into pod affinity and topology spread selectors); fields
the API server always defaults (``restartPolicy``, a port's ``protocol``) are checked only
when given. Resource maps are walked in key order, where upstream's Go maps have none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from framework.api.quantity import Quantity
from framework.api.resources import (
    RESOURCE_CPU,
    RESOURCE_MEMORY,
    SUPPORTED_POD_LEVEL_RESOURCES,
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_native_resource,
    is_overcommit_allowed,
    is_supported_pod_level_resource,
)
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)
from framework.api.validation.meta import (
    validate_label_name,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
)

Manifest = Mapping[str, Any]

IS_NEGATIVE = "must be greater than or equal to 0"
IS_NOT_INTEGER = "must be an integer"
IS_NOT_POSITIVE = "must be greater than zero"
_STANDARD_CONTAINER_RESOURCES = {RESOURCE_CPU, RESOURCE_MEMORY, "ephemeral-storage"}
_STANDARD_RESOURCES = _STANDARD_CONTAINER_RESOURCES | {
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
}
_PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
_NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")


def validate_pod(manifest: Manifest) -> list[FieldError]:
    """Every problem kube-apiserver would report creating this pod, in upstream's order."""
    metadata = manifest.get("metadata") or {}
    spec = manifest.get("spec") or {}
    errors = validate_object_meta(metadata, True, is_dns1123_subdomain)
    errors += validate_pod_spec(spec, metadata.get("labels") or {}, "spec")
    for key in ("containers", "initContainers"):
        for index, container in enumerate(spec.get(key) or []):
            image = container.get("image") or ""
            if image != image.strip():
                path = f"spec.{key}[{index}].image"
                errors.append(invalid(path, image, "must not have leading or trailing whitespace"))
    return errors


def validate_pod_spec(spec: Manifest, labels: Mapping[str, str], path: str) -> list[FieldError]:
    """``ValidatePodSpec``, for the fields the scheduler reads."""
    errors = _volumes(spec.get("volumes") or [], f"{path}.volumes")
    errors += _containers(spec.get("containers") or [], f"{path}.containers")
    errors += _init_containers(spec, f"{path}.initContainers")
    errors += _pod_resources(spec, path)
    errors += _one_of(spec.get("restartPolicy"), _RESTART_POLICIES, f"{path}.restartPolicy")
    errors += validate_labels(spec.get("nodeSelector") or {}, f"{path}.nodeSelector")
    errors += _affinity(spec.get("affinity"), labels, f"{path}.affinity")
    errors += _scheduling_gates(spec.get("schedulingGates") or [], f"{path}.schedulingGates")
    errors += _topology_spread(spec.get("topologySpreadConstraints") or [], labels, path)
    errors += _names(spec, "nodeName", path)
    errors += _tolerations(spec.get("tolerations") or [], f"{path}.tolerations")
    errors += _names(spec, "priorityClassName", path)
    errors += _names(spec, "runtimeClassName", path)
    if spec.get("preemptionPolicy") is not None:
        errors += _preemption_policy(spec["preemptionPolicy"], f"{path}.preemptionPolicy")
    if spec.get("overhead") is not None:
        errors += _resource_requirements({"limits": spec["overhead"]}, f"{path}.overhead")
    return errors


# -- containers ----------------------------------------------------------------------------------


def _containers(containers: list[Manifest], path: str) -> list[FieldError]:
    if not containers:
        return [required(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, container in enumerate(containers):
        where = f"{path}[{index}]"
        errors += _container_common(container, where)
        name = container.get("name") or ""
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        names.add(name)
    errors += _host_port_conflicts(containers, path, set())
    return errors


def _init_containers(spec: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    names = {c.get("name") or "" for c in spec.get("containers") or []}
    host_ports: set[str] = set()
    for index, container in enumerate(spec.get("initContainers") or []):
        where = f"{path}[{index}]"
        errors += _container_common(container, where)
        name = container.get("name") or ""
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        names.add(name)
        errors += _host_port_conflicts([container], path, host_ports)
    return errors


def _container_common(container: Manifest, path: str) -> list[FieldError]:
    errors = _required_dns_label(container.get("name") or "", f"{path}.name")
    if not container.get("image"):
        errors.append(required(f"{path}.image"))
    errors += _container_ports(container.get("ports") or [], f"{path}.ports")
    errors += _resource_requirements(container.get("resources") or {}, f"{path}.resources")
    return errors


def _container_ports(ports: list[Manifest], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, port in enumerate(ports):
        where = f"{path}[{index}]"
        name = port.get("name") or ""
        if name:
            problems = _port_name_problems(name)
            errors += [invalid(f"{where}.name", name, msg) for msg in problems]
            if not problems and name in names:
                errors.append(duplicate(f"{where}.name", name))
            names.add(name)
        container_port = port.get("containerPort") or 0
        if container_port == 0:
            errors.append(required(f"{where}.containerPort"))
        elif not 1 <= container_port <= 65535:
            errors.append(invalid(f"{where}.containerPort", container_port, _PORT_RANGE))
        host_port = port.get("hostPort") or 0
        if host_port and not 1 <= host_port <= 65535:
            errors.append(invalid(f"{where}.hostPort", host_port, _PORT_RANGE))
        protocol = port.get("protocol")
        if protocol is not None and protocol not in _PORT_PROTOCOLS:
            errors.append(not_supported(f"{where}.protocol", protocol, _PORT_PROTOCOLS))
    return errors


_PORT_RANGE = "must be between 1 and 65535, inclusive"


def _port_name_problems(name: str) -> list[str]:
    problems: list[str] = []
    if len(name) > 15:
        problems.append("must be no more than 15 characters")
    if not name or any(c not in "-abcdefghijklmnopqrstuvwxyz0123456789" for c in name):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= c <= "z" for c in name):
        problems.append("must contain at least one letter (a-z)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def _host_port_conflicts(containers: list[Manifest], path: str, seen: set[str]) -> list[FieldError]:
    """``AccumulateUniqueHostPorts``: one protocol, host IP and host port per pod."""
    errors: list[FieldError] = []
    for index, container in enumerate(containers):
        for port_index, port in enumerate(container.get("ports") or []):
            host_port = port.get("hostPort") or 0
            if not host_port:
                continue
            key = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{host_port}"
            if key in seen:
                where = f"{path}[{index}].ports[{port_index}].hostPort"
                errors.append(duplicate(where, key))
            seen.add(key)
    return errors


# -- resources -----------------------------------------------------------------------------------


def _resource_requirements(
    requirements: Manifest, path: str, *, pod_level: bool = False
) -> list[FieldError]:
    """``validateResourceRequirements``: names, quantities, and requests within limits."""
    errors: list[FieldError] = []
    limits = _quantities(requirements.get("limits"))
    requests = _quantities(requirements.get("requests"))
    check_name = _pod_resource_name if pod_level else _container_resource_name
    for name, quantity in limits.items():
        where = f"{path}.limits[{name}]"
        errors += check_name(name, where)
        errors += _quantity_value(name, quantity, where)
    for name, quantity in requests.items():
        where = f"{path}.requests[{name}]"
        errors += check_name(name, where)
        errors += _quantity_value(name, quantity, where)
        limit = limits.get(name)
        if limit is not None:
            if quantity.cmp(limit) != 0 and not is_overcommit_allowed(name):
                detail = f"must be equal to {name} limit of {limit}"
                errors.append(invalid(f"{path}.requests", str(quantity), detail))
            elif quantity.cmp(limit) > 0:
                detail = f"must be less than or equal to {name} limit of {limit}"
                errors.append(invalid(f"{path}.requests", str(quantity), detail))
        elif not is_overcommit_allowed(name):
            detail = "Limit must be set for non overcommitable resources"
            errors.append(required(f"{path}.limits", detail))
    names = set(limits) | set(requests)
    if any(is_hugepage_resource_name(n) for n in names) and not names & {
        RESOURCE_CPU,
        RESOURCE_MEMORY,
    }:
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors


def _quantities(values: Any) -> dict[str, Quantity]:
    """A resource list in key order, already known to parse (the parser read it first)."""
    if not isinstance(values, Mapping):
        return {}
    return {
        str(name): Quantity() if value is None else Quantity.parse(_trimmed(value))
        for name, value in sorted(values.items(), key=lambda item: str(item[0]))
    }


def _trimmed(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _quantity_value(name: str, quantity: Quantity, path: str) -> list[FieldError]:
    """``ValidateResourceQuantityValue``."""
    errors: list[FieldError] = []
    if quantity.sign() < 0:
        errors.append(invalid(path, str(quantity), IS_NEGATIVE))
    if _is_integer_resource(name) and quantity.milli_value() % 1000 != 0:
        errors.append(invalid(path, str(quantity), IS_NOT_INTEGER))
    return errors


def _is_integer_resource(name: str) -> bool:
    return (
        is_extended_resource_name(name)
        or name in {"pods", "storage"}
        or name.startswith("attachable-volumes-")
    )


def _resource_name(name: str, path: str) -> list[FieldError]:
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if errors:
        return errors
    if "/" not in name and name not in _STANDARD_RESOURCES and not _is_quota_hugepages(name):
        errors.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    return errors


def _is_quota_hugepages(name: str) -> bool:
    prefixes = ("hugepages-", "requests.hugepages-", "limits.hugepages-")
    return name.startswith(prefixes)


def _container_resource_name(name: str, path: str) -> list[FieldError]:
    errors = _resource_name(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepage_resource_name(name):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def _pod_resource_name(name: str, path: str) -> list[FieldError]:
    errors = _resource_name(name, path)
    if errors:
        return errors
    if not is_supported_pod_level_resource(name):
        supported = sorted(SUPPORTED_POD_LEVEL_RESOURCES)
        return [not_supported(path, name, supported)]
    return []


def _pod_resources(spec: Manifest, path: str) -> list[FieldError]:
    """Pod-level ``resources`` (PodLevelResources, on by default in v1.36)."""
    resources = spec.get("resources")
    if resources is None:
        return []
    where = f"{path}.resources"
    if (spec.get("os") or {}).get("name") == "windows":
        return [forbidden(where, "may not be set for a windows pod")]
    errors: list[FieldError] = []
    if resources.get("claims") is not None:
        detail = "claims may not be set for Resources at pod-level"
        errors.append(forbidden(f"{where}.claims", detail))
    errors += _resource_requirements(resources, where, pod_level=True)
    return errors


# -- scheduling constraints ----------------------------------------------------------------------


def _tolerations(tolerations: list[Manifest], path: str) -> list[FieldError]:
    """``ValidateTolerations`` with the alpha comparison operators (Lt, Gt) off, as in v1.36."""
    errors: list[FieldError] = []
    for index, toleration in enumerate(tolerations):
        where = f"{path}[{index}]"
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or ""
        value = toleration.get("value") or ""
        effect = toleration.get("effect") or ""
        if key:
            errors += validate_label_name(key, f"{where}.key")
        if not key and operator != "Exists":
            errors.append(invalid(f"{where}.operator", operator, _EMPTY_KEY))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(invalid(f"{where}.effect", effect, _SECONDS_NEED_NO_EXECUTE))
        if operator in ("Equal", ""):
            problems = is_label_value(value)
            if problems:
                errors.append(invalid(f"{where}.operator", value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                errors.append(invalid(f"{where}.operator", value, _EXISTS_WITH_VALUE))
        elif operator in ("Lt", "Gt"):
            supported = ("Equal", "Exists", "Lt", "Gt")
            errors.append(not_supported(f"{where}.operator", operator, supported))
        else:
            errors.append(not_supported(f"{where}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            errors.append(not_supported(f"{where}.effect", effect, _TAINT_EFFECTS))
    return errors


_EMPTY_KEY = (
    'operator must be Exists when `key` is empty, which means "match all values and all keys"'
)
_SECONDS_NEED_NO_EXECUTE = "effect must be 'NoExecute' when `tolerationSeconds` is set"
_EXISTS_WITH_VALUE = "value must be empty when `operator` is 'Exists'"


def _affinity(affinity: Manifest | None, labels: Mapping[str, str], path: str) -> list[FieldError]:
    if not affinity:
        return []
    errors: list[FieldError] = []
    node_affinity = affinity.get("nodeAffinity")
    if node_affinity is not None:
        errors += _node_affinity(node_affinity, f"{path}.nodeAffinity")
    for section in ("podAffinity", "podAntiAffinity"):
        if affinity.get(section) is not None:
            errors += _pod_affinity(affinity[section], labels, f"{path}.{section}")
    return errors


def _node_affinity(node_affinity: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    required_terms = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required_terms is not None:
        where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = required_terms.get("nodeSelectorTerms") or []
        if not terms:
            errors.append(required(where, "must have at least one node selector term"))
        for index, term in enumerate(terms):
            errors += _node_selector_term(term or {}, f"{where}[{index}]", check_values=True)
    preferred = node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    for index, term in enumerate(preferred):
        where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{index}]"
        errors += _weight(term.get("weight") or 0, f"{where}.weight")
        # Preferred terms may hold invalid label values: they can still match (upstream).
        preference = term.get("preference") or {}
        errors += _node_selector_term(preference, f"{where}.preference", check_values=False)
    return errors


def _node_selector_term(term: Manifest, path: str, *, check_values: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, requirement in enumerate(term.get("matchExpressions") or []):
        where = f"{path}.matchExpressions[{index}]"
        errors += _node_selector_requirement(requirement, where, check_values)
    for index, requirement in enumerate(term.get("matchFields") or []):
        errors += _node_field_requirement(requirement, f"{path}.matchFields[{index}]")
    return errors


def _node_selector_requirement(rq: Manifest, path: str, check_values: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = rq.get("operator") or ""
    values = rq.get("values") or []
    if operator in ("In", "NotIn"):
        if not values:
            detail = "must be specified when `operator` is 'In' or 'NotIn'"
            errors.append(required(f"{path}.values", detail))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errors.append(forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            errors.append(required(f"{path}.values", detail))
    else:
        errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    errors += validate_label_name(rq.get("key") or "", f"{path}.key")
    if check_values:
        for index, value in enumerate(values):
            where = f"{path}.values[{index}]"
            errors += [invalid(where, value, msg) for msg in is_label_value(str(value))]
    return errors


def _node_field_requirement(rq: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = rq.get("operator") or ""
    values = rq.get("values") or []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            detail = (
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            )
            errors.append(required(f"{path}.values", detail))
    else:
        errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    key = rq.get("key") or ""
    if key != "metadata.name":
        errors.append(invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for index, value in enumerate(values):
            where = f"{path}.values[{index}]"
            errors += [invalid(where, value, msg) for msg in is_dns1123_subdomain(str(value))]
    return errors


def _weight(weight: int, path: str) -> list[FieldError]:
    if weight <= 0 or weight > 100:
        return [invalid(path, weight, "must be in the range 1-100")]
    return []


def _pod_affinity(section: Manifest, labels: Mapping[str, str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(
        section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    ):
        errors += _pod_affinity_term(term or {}, labels, f"{where}[{index}]")
    where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, weighted in enumerate(
        section.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    ):
        errors += _weight(weighted.get("weight") or 0, f"{where}[{index}].weight")
        term = weighted.get("podAffinityTerm") or {}
        errors += _pod_affinity_term(term, labels, f"{where}[{index}].podAffinityTerm")
    return errors


def _pod_affinity_term(term: Manifest, labels: Mapping[str, str], path: str) -> list[FieldError]:
    match_keys = term.get("matchLabelKeys") or []
    mismatch_keys = term.get("mismatchLabelKeys") or []
    selector = _merged_selector(term.get("labelSelector"), labels, match_keys, mismatch_keys)
    errors = validate_label_selector(selector, f"{path}.labelSelector")
    errors += validate_label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for name in term.get("namespaces") or []:
        errors += [invalid(f"{path}.namespace", name, msg) for msg in is_dns1123_label(name)]
    errors += _label_keys(path, match_keys, mismatch_keys, selector)
    topology_key = term.get("topologyKey") or ""
    if not topology_key:
        errors.append(required(f"{path}.topologyKey", "can not be empty"))
    errors += validate_label_name(topology_key, f"{path}.topologyKey")
    return errors


def _merged_selector(
    selector: Manifest | None, labels: Mapping[str, str], match_keys: list[str], mismatch: list[str]
) -> Manifest | None:
    """The selector after the pod strategy merged the label keys into it, as validated."""
    if selector is None or not (match_keys or mismatch):
        return selector
    expressions = list(selector.get("matchExpressions") or [])
    for keys, operator in ((match_keys, "In"), (mismatch, "NotIn")):
        expressions += [
            {"key": key, "operator": operator, "values": [labels[key]]}
            for key in keys
            if key in labels
        ]
    return {**selector, "matchExpressions": expressions}


def _label_keys(
    path: str, match_keys: list[str], mismatch_keys: list[str], selector: Manifest | None
) -> list[FieldError]:
    """``ValidateMatchLabelKeysAndMismatchLabelKeys`` (its index paths are upstream's)."""
    errors: list[FieldError] = []
    for name, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if not keys:
            continue
        if selector is None:
            detail = "must not be specified when labelSelector is not set"
            errors.append(forbidden(f"{path}.{name}", detail))
            continue
        for index, key in enumerate(keys):
            errors += validate_label_name(key, f"{path}.{name}[{index}]")
    if selector is not None:
        positions = {key: index for index, key in enumerate(match_keys)}
        seen = set((selector.get("matchLabels") or {}).keys())
        for expression in selector.get("matchExpressions") or []:
            key = expression.get("key") or ""
            if key in positions and key in seen:
                detail = "exists in both matchLabelKeys and labelSelector"
                errors.append(invalid(f"{path}[{positions[key]}]", key, detail))
            seen.add(key)
    mismatched = set(mismatch_keys)
    for index, key in enumerate(match_keys):
        if key in mismatched:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errors.append(invalid(f"{path}.matchLabelKeys[{index}]", key, detail))
    return errors


def _topology_spread(
    constraints: list[Manifest], labels: Mapping[str, str], spec_path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, constraint in enumerate(constraints):
        path = f"{spec_path}.topologySpreadConstraints[{index}]"
        max_skew = constraint.get("maxSkew") or 0
        if max_skew <= 0:
            errors.append(invalid(f"{path}.maxSkew", max_skew, IS_NOT_POSITIVE))
        if not constraint.get("topologyKey"):
            errors.append(required(f"{path}.topologyKey", "can not be empty"))
        action = constraint.get("whenUnsatisfiable") or ""
        if action not in _SCHEDULE_ACTIONS:
            errors.append(not_supported(f"{path}.whenUnsatisfiable", action, _SCHEDULE_ACTIONS))
        errors += _repeated_constraint(constraint, constraints[index + 1 :], path)
        errors += _min_domains(constraint.get("minDomains"), action, f"{path}.minDomains")
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            value = constraint.get(policy)
            if value is not None and value not in _NODE_INCLUSION_POLICIES:
                errors.append(not_supported(f"{path}.{policy}", value, _NODE_INCLUSION_POLICIES))
        match_keys = constraint.get("matchLabelKeys") or []
        selector = _merged_selector(constraint.get("labelSelector"), labels, match_keys, [])
        errors += _label_keys(path, match_keys, [], selector)
        errors += validate_label_selector(selector, f"{path}.labelSelector")
    return errors


def _repeated_constraint(constraint: Manifest, rest: list[Manifest], path: str) -> list[FieldError]:
    pair = (constraint.get("topologyKey") or "", constraint.get("whenUnsatisfiable") or "")
    for other in rest:
        if (other.get("topologyKey") or "", other.get("whenUnsatisfiable") or "") == pair:
            where = f"{path}.{{topologyKey, whenUnsatisfiable}}"
            return [duplicate(where, f"{{{pair[0]}, {pair[1]}}}")]
    return []


def _min_domains(min_domains: int | None, action: str, path: str) -> list[FieldError]:
    if min_domains is None:
        return []
    errors: list[FieldError] = []
    if min_domains <= 0:
        errors.append(invalid(path, min_domains, IS_NOT_POSITIVE))
    if action != "DoNotSchedule":
        detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
        errors.append(invalid(path, min_domains, detail))
    return errors


def _scheduling_gates(gates: list[Manifest], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, gate in enumerate(gates):
        name = gate.get("name") or ""
        errors += validate_label_name(name, f"{path}[{index}]")
        if name in seen:
            errors.append(duplicate(f"{path}[{index}]", name))
        seen.add(name)
    return errors


# -- the rest ------------------------------------------------------------------------------------


def _volumes(volumes: list[Manifest], path: str) -> list[FieldError]:
    """Volume names (unique DNS labels) and the claim a ``persistentVolumeClaim`` names."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, volume in enumerate(volumes):
        where = f"{path}[{index}]"
        found: list[FieldError] = []
        claim = volume.get("persistentVolumeClaim")
        if claim is not None and not claim.get("claimName"):
            found.append(required(f"{where}.persistentVolumeClaim.claimName"))
        name = volume.get("name") or ""
        found += _required_dns_label(name, f"{where}.name")
        if name in names:
            found.append(duplicate(f"{where}.name", name))
        if not found:
            names.add(name)
        errors += found
    return errors


def _required_dns_label(name: str, path: str) -> list[FieldError]:
    if not name:
        return [required(path)]
    return [invalid(path, name, msg) for msg in is_dns1123_label(name)]


def _names(spec: Manifest, key: str, path: str) -> list[FieldError]:
    """A node, PriorityClass or RuntimeClass name: a DNS subdomain when given."""
    value = spec.get(key)
    if not value:
        return []
    return [invalid(f"{path}.{key}", value, msg) for msg in is_dns1123_subdomain(value)]


def _one_of(value: str | None, allowed: tuple[str, ...], path: str) -> list[FieldError]:
    if value is None or value in allowed:
        return []
    return [not_supported(path, value, allowed)]


def _preemption_policy(policy: str, path: str) -> list[FieldError]:
    if policy == "":
        return [required(path)]
    return _one_of(policy, _PREEMPTION_POLICIES, path)
