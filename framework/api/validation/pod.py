"""Upstream's ``ValidatePodCreate`` (``pkg/apis/core/validation``) for every field the
scheduler reads and the container fields ``kubectl apply`` checks most (environment, probes,
mounts, security contexts: ``env.py``, ``probes.py``, ``mounts.py``, ``security.py``,
``dns.py``): the same field paths, messages and order, so a pod refused by kube-apiserver is
refused here with the same list.

It checks the manifest as the API server sees it after defaulting and after the pod strategy's
mutations (``matchLabelKeys`` merged into pod affinity and topology spread selectors); fields
the API server always defaults (``restartPolicy``, a port's ``protocol``, the DNS, pull and
termination message policies) are checked only when given. Resource maps are walked in key
order, where upstream's Go maps have none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.api.errors import ObjectError
from framework.api.field_errors import (
    TOO_LONG,
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)
from framework.api.fields import Fields
from framework.api.meta import ObjectMeta
from framework.api.pod import Pod, PodSpec, ResourceRequirements
from framework.api.resource_names import is_hugepage_resource_name
from framework.api.resources import aggregate_container_limits, aggregate_container_requests
from framework.api.validation.affinity import (
    merged_selector,
    validate_affinity,
    validate_label_keys,
)
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_port_name,
    is_valid_port_num,
)
from framework.api.validation.dns import (
    validate_dns_config,
    validate_dns_policy,
    validate_host_aliases,
)
from framework.api.validation.env import validate_env, validate_env_from
from framework.api.validation.meta import (
    validate_label_name,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
)
from framework.api.validation.mounts import validate_volume_devices, validate_volume_mounts
from framework.api.validation.pod_annotations import (
    validate_pod_specific_annotations,
    validate_profiles_match_annotations,
)
from framework.api.validation.pod_claims import (
    pod_claim_names,
    validate_container_claims,
    validate_pod_resource_claims,
)
from framework.api.validation.pod_group import validate_scheduling_group
from framework.api.validation.pod_volumes import is_empty_dir, validate_volumes
from framework.api.validation.probes import (
    DEFAULT_TERMINATION_GRACE_PERIOD,
    validate_lifecycle_and_probes,
)
from framework.api.validation.resources import validate_resource_requirements
from framework.api.validation.security import (
    host_users,
    validate_os_specific,
    validate_pod_security_context,
    validate_security_context,
)
from framework.api.validation.taints import validate_tolerations

Manifest = Mapping[str, Any]

IS_NOT_POSITIVE = "must be greater than zero"
_PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")
_SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
_NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")


def validate_pod(manifest: Manifest) -> list[FieldError]:
    """Every problem kube-apiserver would report creating this pod, in upstream's order."""
    metadata = manifest.get("metadata") or {}
    spec = manifest.get("spec") or {}
    errors = validate_object_meta(metadata, True, is_dns1123_subdomain)
    annotations = metadata.get("annotations") or {}
    errors += validate_pod_specific_annotations(annotations, spec, "metadata.annotations")
    labels = metadata.get("labels") or {}
    errors += validate_pod_spec(spec, labels, "spec", metadata.get("name") or "", metadata)
    for key in ("containers", "initContainers"):
        for index, container in enumerate(spec.get(key) or []):
            image = container.get("image") or ""
            if image != image.strip():
                path = f"spec.{key}[{index}].image"
                errors.append(invalid(path, image, "must not have leading or trailing whitespace"))
    # Ephemeral containers are added later, through their own subresource.
    if spec.get("ephemeralContainers"):
        errors.append(forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        detail = "cannot be set until all schedulingGates have been cleared"
        errors.append(forbidden("spec.nodeName", detail))
    errors += validate_profiles_match_annotations(annotations, spec, "spec", is_pod=True)
    return errors


def validate_pod_spec(
    spec: Manifest,
    labels: Mapping[str, str],
    path: str,
    pod_name: str = "",
    metadata: Manifest | None = None,
) -> list[FieldError]:
    """``ValidatePodSpec``, for the fields the scheduler reads and those ``kubectl apply``
    users most often get wrong (containers' environment, probes, mounts, security).
    ``metadata`` is the pod's own (none for a template)."""
    spec = _with_host_network_ports(spec)
    volume_errors, volumes = validate_volumes(
        spec.get("volumes") or [], pod_name, f"{path}.volumes"
    )
    errors = volume_errors
    claims = spec.get("resourceClaims") or []
    errors += validate_pod_resource_claims(claims, metadata or {}, f"{path}.resourceClaims")
    context = _ContainerContext(
        volumes=volumes,
        grace_period=_grace_period(spec),
        shares_host_users=host_users(spec),
        restart_policy=spec.get("restartPolicy") or "Always",
        claims=pod_claim_names(spec),
    )
    errors += _containers(spec.get("containers") or [], context, f"{path}.containers")
    errors += _init_containers(spec, context, f"{path}.initContainers")
    errors += _pod_resources(spec, path)
    errors += _host_network_ports(spec, f"{path}.containers")
    errors += _one_of(spec.get("restartPolicy"), _RESTART_POLICIES, f"{path}.restartPolicy")
    errors += validate_dns_policy(spec.get("dnsPolicy"), f"{path}.dnsPolicy")
    errors += validate_labels(spec.get("nodeSelector") or {}, f"{path}.nodeSelector")
    errors += validate_pod_security_context(spec, path)
    errors += validate_affinity(spec.get("affinity"), labels, f"{path}.affinity")
    errors += validate_dns_config(spec.get("dnsConfig"), spec.get("dnsPolicy"), f"{path}.dnsConfig")
    errors += _readiness_gates(spec.get("readinessGates") or [], f"{path}.readinessGates")
    errors += _scheduling_gates(spec.get("schedulingGates") or [], f"{path}.schedulingGates")
    errors += _topology_spread(spec.get("topologySpreadConstraints") or [], labels, path)
    errors += _host_users(spec, path)
    errors += _hostname_override(spec, path)
    errors += _names(spec, "serviceAccountName", path)
    errors += _names(spec, "nodeName", path)
    errors += _active_deadline(spec.get("activeDeadlineSeconds"), f"{path}.activeDeadlineSeconds")
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            errors += [invalid(f"{path}.{key}", spec[key], m) for m in is_dns1123_label(spec[key])]
    errors += validate_tolerations(spec.get("tolerations") or [], f"{path}.tolerations")
    errors += validate_host_aliases(spec.get("hostAliases") or [], f"{path}.hostAliases")
    errors += _names(spec, "priorityClassName", path)
    errors += _names(spec, "runtimeClassName", path)
    if spec.get("preemptionPolicy") is not None:
        errors += validate_preemption_policy(spec["preemptionPolicy"], f"{path}.preemptionPolicy")
    if spec.get("overhead") is not None:
        errors += validate_resource_requirements({"limits": spec["overhead"]}, f"{path}.overhead")
    if spec.get("os") is not None:
        os_errors = _os(spec["os"], f"{path}.os")
        errors += os_errors or validate_os_specific(spec, path)
    if spec.get("schedulingGroup") is not None:
        errors += validate_scheduling_group(spec["schedulingGroup"], f"{path}.schedulingGroup")
    errors += _file_key_ref_volumes(spec, path)
    return errors


def _grace_period(spec: Manifest) -> int:
    """The pod's termination grace period, defaulted to 30 seconds."""
    period = spec.get("terminationGracePeriodSeconds")
    return DEFAULT_TERMINATION_GRACE_PERIOD if period is None else period


def _with_host_network_ports(spec: Manifest) -> Manifest:
    """The spec as defaulting leaves it: with ``hostNetwork``, every container port is also
    a host port (``hostPort`` defaults to ``containerPort``)."""
    if not spec.get("hostNetwork"):
        return spec
    defaulted = dict(spec)
    for key in ("containers", "initContainers"):
        defaulted[key] = [
            {
                **container,
                "ports": [
                    {**port, "hostPort": port.get("hostPort") or port.get("containerPort")}
                    for port in container.get("ports") or []
                ],
            }
            for container in spec.get(key) or []
        ]
    return defaulted


# -- containers ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ContainerContext:
    """What checking one container needs from its pod."""

    volumes: Mapping[str, Manifest]
    grace_period: int
    shares_host_users: bool
    restart_policy: str
    claims: set[str]


def _containers(
    containers: list[Manifest], context: _ContainerContext, path: str
) -> list[FieldError]:
    if not containers:
        return [required(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, container in enumerate(containers):
        where = f"{path}[{index}]"
        errors += _container_common(container, context, where)
        name = container.get("name") or ""
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        names.add(name)
        errors += validate_lifecycle_and_probes(container, context.grace_period, where)
        errors += _container_restart_policy(container, where)
    errors += _host_port_conflicts(containers, path, set())
    return errors


def _init_containers(spec: Manifest, context: _ContainerContext, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    names = {c.get("name") or "" for c in spec.get("containers") or []}
    for index, container in enumerate(spec.get("initContainers") or []):
        where = f"{path}[{index}]"
        errors += _container_common(container, context, where)
        errors += _init_container_restart_policy(container, where)
        name = container.get("name") or ""
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        elif name:
            names.add(name)
        # Init containers run one after another: each only conflicts with itself.
        errors += _host_port_conflicts([container], path, set())
        if container.get("restartPolicy") == "Always":
            errors += validate_lifecycle_and_probes(container, context.grace_period, where)
        else:
            for probe in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if container.get(probe) is not None:
                    errors.append(forbidden(f"{where}.{probe}", _NOT_A_SIDECAR))
            errors += _init_container_resize(container, where)
    return errors


def _init_container_resize(container: Manifest, path: str) -> list[FieldError]:
    """An init container that is not a sidecar has ended before any resize: restarting it
    to resize makes no sense."""
    errors: list[FieldError] = []
    for index, policy in enumerate(container.get("resizePolicy") or []):
        if policy.get("restartPolicy") == "RestartContainer":
            where = f"{path}.resizePolicy[{index}].restartPolicy"
            detail = "must not be set to 'RestartContainer' for non-sidecar initContainers"
            errors.append(invalid(where, "RestartContainer", detail))
    return errors


_NOT_A_SIDECAR = "may not be set for init containers without restartPolicy=Always"
_CONTAINER_RESTART_POLICIES = ("Always", "Never", "OnFailure")


def _init_container_restart_policy(container: Manifest, path: str) -> list[FieldError]:
    """``validateInitContainerRestartPolicy`` with ContainerRestartRules on (beta in v1.36):
    a sidecar (``Always``) takes no restart rules."""
    policy = container.get("restartPolicy")
    rules = container.get("restartPolicyRules") or []
    if policy is None:
        if rules:
            detail = "must specify restartPolicy when restart rules are used"
            return [required(f"{path}.restartPolicy", detail)]
        return []
    if policy == "Always":
        if rules:
            detail = (
                "restartPolicyRules are not allowed for init containers with restart policy Always"
            )
            return [forbidden(f"{path}.restartPolicyRules", detail)]
        return []
    return _container_restart_policy(container, path)


def _container_restart_policy(container: Manifest, path: str) -> list[FieldError]:
    """``validateContainerRestartPolicy``: the policy's value (its rules are not checked)."""
    policy = container.get("restartPolicy")
    if policy is None:
        if container.get("restartPolicyRules"):
            detail = "must specify restartPolicy when restart rules are used"
            return [required(f"{path}.restartPolicy", detail)]
        return []
    return _one_of(policy, _CONTAINER_RESTART_POLICIES, f"{path}.restartPolicy")


_RESIZE_RESOURCES = ("cpu", "memory")
_RESIZE_RESTART_POLICIES = ("NotRequired", "RestartContainer")


def _resize_policy(
    policies: list[Manifest], pod_restart_policy: str, path: str
) -> list[FieldError]:
    """``validateResizePolicy``: one policy per resizable resource; a pod that never
    restarts cannot restart a container to resize it. Problems are reported at the list's
    path, as upstream reports them."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, policy in enumerate(policies):
        resource = policy.get("resourceName") or ""
        restart = policy.get("restartPolicy") or ""
        if resource in seen:
            errors.append(duplicate(f"{path}[{index}]", resource))
        seen.add(resource)
        for value, allowed in ((resource, _RESIZE_RESOURCES), (restart, _RESIZE_RESTART_POLICIES)):
            if not value:
                errors.append(required(path))
            elif value not in allowed:
                errors.append(not_supported(path, value, allowed))
        if pod_restart_policy == "Never" and restart != "NotRequired":
            detail = "must be 'NotRequired' when pod `restartPolicy` is 'Never'"
            errors.append(invalid(path, restart, detail))
    return errors


def _host_network_ports(spec: Manifest, path: str) -> list[FieldError]:
    """``validatePodHostNetworkDeps``: on the host's network a port is its host port."""
    if not spec.get("hostNetwork"):
        return []
    errors: list[FieldError] = []
    for index, container in enumerate(spec.get("containers") or []):
        for port_index, port in enumerate(container.get("ports") or []):
            host_port = port.get("hostPort") or 0
            if host_port != (port.get("containerPort") or 0):
                where = f"{path}[{index}].ports[{port_index}].hostPort"
                detail = "must match `containerPort` when `hostNetwork` is true"
                errors.append(invalid(where, host_port, detail))
    return errors


def _container_common(
    container: Manifest, context: _ContainerContext, path: str
) -> list[FieldError]:
    """``validateContainerCommon``, in upstream's order."""
    errors = _required_dns_label(container.get("name") or "", f"{path}.name")
    if not container.get("image"):
        errors.append(required(f"{path}.image"))
    # Both policies are defaulted when not given (the pull policy from the image's tag).
    policy = container.get("terminationMessagePolicy") or None
    errors += _one_of(policy, TERMINATION_MESSAGE_POLICIES, f"{path}.terminationMessagePolicy")
    errors += _container_ports(container.get("ports") or [], f"{path}.ports")
    errors += validate_env(container.get("env") or [], f"{path}.env")
    errors += validate_env_from(container.get("envFrom") or [], f"{path}.envFrom")
    errors += validate_volume_mounts(container, context.volumes, f"{path}.volumeMounts")
    errors += validate_volume_devices(container, context.volumes, f"{path}.volumeDevices")
    pull_policy = container.get("imagePullPolicy") or None
    errors += _one_of(pull_policy, PULL_POLICIES, f"{path}.imagePullPolicy")
    resources = container.get("resources") or {}
    errors += validate_resource_requirements(resources, f"{path}.resources")
    where = f"{path}.resources.claims"
    errors += validate_container_claims(resources.get("claims") or [], context.claims, where)
    policies = container.get("resizePolicy") or []
    errors += _resize_policy(policies, context.restart_policy, f"{path}.resizePolicy")
    security = container.get("securityContext")
    errors += validate_security_context(
        security, f"{path}.securityContext", context.shares_host_users
    )
    return errors


def _container_ports(ports: list[Manifest], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, port in enumerate(ports):
        where = f"{path}[{index}]"
        name = port.get("name") or ""
        if name:
            problems = is_valid_port_name(name)
            errors += [invalid(f"{where}.name", name, msg) for msg in problems]
            if not problems and name in names:
                errors.append(duplicate(f"{where}.name", name))
            names.add(name)
        container_port = port.get("containerPort") or 0
        if container_port == 0:
            errors.append(required(f"{where}.containerPort"))
        else:
            problems = is_valid_port_num(container_port)
            errors += [invalid(f"{where}.containerPort", container_port, m) for m in problems]
        host_port = port.get("hostPort") or 0
        if host_port:
            problems = is_valid_port_num(host_port)
            errors += [invalid(f"{where}.hostPort", host_port, m) for m in problems]
        protocol = port.get("protocol")
        if protocol is not None and protocol not in _PORT_PROTOCOLS:
            errors.append(not_supported(f"{where}.protocol", protocol, _PORT_PROTOCOLS))
    return errors


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
    errors += validate_resource_requirements(_with_defaults(spec, resources), where, pod_level=True)
    errors += _pod_resource_consistency(spec, where)
    return errors


def _with_defaults(spec: Manifest, resources: Manifest) -> Manifest:
    """Pod-level requests and limits with what the API server defaults before validating
    (``defaultPodRequests``: a pod-level limit, or the containers' total, stands for a request
    left out), so a defaulted request above its limit is refused as upstream refuses it."""
    try:
        parsed = PodSpec.parse(Fields(spec, "pod", "spec")).resources
    except (ObjectError, ValueError):
        return resources  # the quantities' own errors are reported as they are given
    if parsed is None:
        return resources
    defaulted = dict(resources)
    for key, quantities in (("requests", parsed.requests), ("limits", parsed.limits)):
        given = dict(resources.get(key) or {})
        for name, quantity in quantities.items():
            given.setdefault(name, str(quantity))
        if given:
            defaulted[key] = given
    return defaulted


def _pod_resource_consistency(spec: Manifest, path: str) -> list[FieldError]:
    """``validatePodResourceConsistency``: pod-level requests cover what the containers ask
    for together (sidecars and init containers counted as the scheduler counts them), so do
    pod-level hugepage limits, and no container's limit exceeds the pod's. Containers'
    requests default to their limits first."""
    pod = Pod(ObjectMeta(name="validated"), PodSpec.parse(Fields(spec, "pod", "spec")))
    pod_resources = pod.spec.resources or ResourceRequirements()
    errors: list[FieldError] = []
    aggregate = aggregate_container_requests(pod, {}, use_status_resources=False)
    for name, total in sorted(aggregate.items()):
        asked = pod_resources.requests.get(name)
        if asked is not None and total.cmp(asked) > 0:
            detail = f"must be greater than or equal to aggregate container requests of {total}"
            errors.append(invalid(f"{path}.requests[{name}]", str(asked), detail))
    for name, total in sorted(aggregate_container_limits(pod).items()):
        pod_limit = pod_resources.limits.get(name)
        if is_hugepage_resource_name(name) and pod_limit is not None and total.cmp(pod_limit) > 0:
            detail = f"must be greater than or equal to aggregate container limits of {total}"
            errors.append(invalid(f"{path}.limits[{name}]", str(pod_limit), detail))
    for index, container in enumerate(pod.spec.containers):
        for name, limit in sorted(container.resources.limits.items()):
            pod_limit = pod_resources.limits.get(name)
            if pod_limit is not None and limit.cmp(pod_limit) > 0:
                where = f"{path}.containers[{index}][{name}].limits"
                detail = f"must be less than or equal to pod limits of {pod_limit}"
                errors.append(invalid(where, str(limit), detail))
    return errors


# -- scheduling constraints ----------------------------------------------------------------------


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
        selector = merged_selector(constraint.get("labelSelector"), labels, match_keys, [])
        errors += validate_label_keys(path, match_keys, [], selector)
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


def _readiness_gates(gates: list[Manifest], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, gate in enumerate(gates):
        condition = gate.get("conditionType") or ""
        where = f"{path}[{index}].conditionType"
        errors += [invalid(where, condition, msg) for msg in is_qualified_name(condition)]
    return errors


def _host_users(spec: Manifest, path: str) -> list[FieldError]:
    """``validateHostUsers``: a pod in its own user namespace shares no other namespace with
    the host. The host's network is allowed, as with UserNamespacesHostNetworkSupport on
    (alpha, off by default in v1.36): NodeDeclaredFeatures places such pods on the nodes that
    declare that feature, and a cluster where they exist has it on (docs/fidelity.md)."""
    if host_users(spec):
        return []
    errors: list[FieldError] = []
    detail = "when `hostUsers` is false"
    # Upstream names these two by their Go field names.
    if spec.get("hostPID"):
        errors.append(forbidden(f"{path}.HostPID", detail))
    if spec.get("hostIPC"):
        errors.append(forbidden(f"{path}.HostIPC", detail))
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in enumerate(spec.get(key) or []):
            if container.get("volumeDevices"):
                errors.append(forbidden(f"{path}.{key}[{index}].volumeDevices", detail))
    return errors


def _hostname_override(spec: Manifest, path: str) -> list[FieldError]:
    """``validatePodHostName`` (HostnameOverride, beta in v1.36)."""
    override = spec.get("hostnameOverride")
    if override is None:
        return []
    where = f"{path}.hostnameOverride"
    errors: list[FieldError] = []
    if spec.get("setHostnameAsFQDN"):
        errors.append(forbidden(where, "may not be specified when setHostnameAsFQDN is true"))
    if spec.get("hostNetwork"):
        errors.append(forbidden(where, "may not be specified when hostNetwork is true"))
    if len(override) > 64:
        errors.append(FieldError(TOO_LONG, where, detail="may not be more than 64 bytes"))
    return errors + [invalid(where, override, msg) for msg in is_dns1123_subdomain(override)]


_MAX_INT32 = 2**31 - 1


def _active_deadline(seconds: int | None, path: str) -> list[FieldError]:
    if seconds is None or 1 <= seconds <= _MAX_INT32:
        return []
    return [invalid(path, seconds, f"must be between 1 and {_MAX_INT32}, inclusive")]


def _file_key_ref_volumes(spec: Manifest, path: str) -> list[FieldError]:
    """``validateFileKeyRefVolumes``: a variable read from a file reads it from an emptyDir
    volume of the pod (a volume without a source is an emptyDir)."""
    volumes = {volume.get("name") or "": volume for volume in spec.get("volumes") or []}
    errors: list[FieldError] = []
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in enumerate(spec.get(key) or []):
            for env_index, variable in enumerate(container.get("env") or []):
                reference = (variable.get("valueFrom") or {}).get("fileKeyRef")
                if reference is None:
                    continue
                name = reference.get("volumeName") or ""
                where = f"{path}.{key}[{index}].env[{env_index}].valueFrom.fileKeyRef.volumeName"
                volume = volumes.get(name)
                if volume is None:
                    errors.append(not_found(where, name))
                elif not is_empty_dir(volume):
                    detail = "referenced volume must be of type emptyDir"
                    errors.append(invalid(where, name, detail))
    return errors


def _required_dns_label(name: str, path: str) -> list[FieldError]:
    if not name:
        return [required(path)]
    return [invalid(path, name, msg) for msg in is_dns1123_label(name)]


def _names(spec: Manifest, key: str, path: str) -> list[FieldError]:
    """A ServiceAccount, node, PriorityClass or RuntimeClass name: a DNS subdomain when given."""
    value = spec.get(key)
    if not value:
        return []
    return [invalid(f"{path}.{key}", value, msg) for msg in is_dns1123_subdomain(value)]


def _one_of(value: str | None, allowed: tuple[str, ...], path: str) -> list[FieldError]:
    if value is None or value in allowed:
        return []
    return [not_supported(path, value, allowed)]


def _os(os: Manifest, path: str) -> list[FieldError]:
    name = os.get("name") or ""
    if not name:
        return [required(f"{path}.name")]
    return _one_of(name, ("linux", "windows"), path)


def validate_preemption_policy(policy: str, path: str) -> list[FieldError]:
    if policy == "":
        return [required(path)]
    return _one_of(policy, _PREEMPTION_POLICIES, path)
