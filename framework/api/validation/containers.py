"""Upstream's checks of a container's fields beside its name, ports and resources
(``pkg/apis/core/validation``): environment (``ValidateEnv``, ``ValidateEnvFrom``), volume
mounts (``ValidateVolumeMounts``), image pull and termination message policies, probes
(``validateProbe``) and lifecycle handlers (``validateLifecycle``).

Each is checked as the API server sees it after defaulting: a probe's zero timeout, period
and thresholds are defaulted (to 1, 10, 1 and 3), an HTTP probe's path and scheme (``/``,
``HTTP``), a field reference's ``apiVersion`` (``v1``), the pull policy (from the image's
tag) and the termination message policy (``File``); so only values given are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    FieldError,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)
from framework.api.quantity import Quantity, QuantityError
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_port_name,
    is_valid_port_num,
)
from framework.api.validation.resources import QuantityDecodeError

Manifest = Mapping[str, Any]

PULL_POLICIES = ("Always", "IfNotPresent", "Never")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_ENV_FIELD_PATHS = (
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
)
# The labels the downward API converts (``ConvertDownwardAPIFieldLabel``), spec.host aside.
_DOWNWARD_API_LABELS = {
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
}
_RESOURCE_FIELD_PATHS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
_HUGEPAGES_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
_SIZE_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
_SIZE_DIVISORS_SHOWN = ", ".join(_SIZE_DIVISORS)
_NO_VALUE_SOURCE = (
    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or "
    "`fileKeyRef`"
)
_ONE_SOURCE = "may not have more than one field specified at a time"
_MOUNT_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")
_HTTP_SCHEMES = ("HTTP", "HTTPS")
_ONE_HANDLER = "may not specify more than 1 handler type"
DEFAULT_TERMINATION_GRACE_PERIOD = 30


def validate_termination_message_policy(policy: str | None, path: str) -> list[FieldError]:
    if not policy or policy in TERMINATION_MESSAGE_POLICIES:
        return []
    return [not_supported(path, policy, TERMINATION_MESSAGE_POLICIES)]


def validate_pull_policy(policy: str | None, path: str) -> list[FieldError]:
    if not policy or policy in PULL_POLICIES:
        return []
    return [not_supported(path, policy, PULL_POLICIES)]


# -- environment ---------------------------------------------------------------------------------


def is_env_var_name(name: str) -> list[str]:
    """``IsRelaxedEnvVarName`` (RelaxedEnvironmentVariableValidation, GA in v1.36): printable
    ASCII but '='."""
    if not name:
        return ["environment variable name must be non-empty"]
    if any(not " " <= c <= "~" or c == "=" for c in name):
        return [
            "a valid environment variable name must consist only of printable ASCII characters "
            "other than '='"
        ]
    return []


def validate_env(variables: list[Manifest], path: str) -> list[FieldError]:
    """``ValidateEnv``: named variables, each with a value or exactly one source."""
    errors: list[FieldError] = []
    for index, variable in enumerate(variables):
        where = f"{path}[{index}]"
        name = variable.get("name") or ""
        if not name:
            errors.append(required(f"{where}.name"))
        else:
            errors += [invalid(f"{where}.name", name, msg) for msg in is_env_var_name(name)]
        errors += _env_value_from(variable, f"{where}.valueFrom")
    return errors


def _env_value_from(variable: Manifest, path: str) -> list[FieldError]:
    source = variable.get("valueFrom")
    if source is None:
        return []
    checks = {
        "fieldRef": _field_ref,
        "resourceFieldRef": _resource_field_ref,
        "configMapKeyRef": _key_ref,
        "secretKeyRef": _key_ref,
        "fileKeyRef": _file_key_ref,
    }
    errors: list[FieldError] = []
    sources = 0
    for key, check in checks.items():
        if source.get(key) is not None:
            sources += 1
            errors += check(source[key], f"{path}.{key}")
    if sources == 0:
        errors.append(invalid(path, "", _NO_VALUE_SOURCE))
    elif variable.get("value"):
        errors.append(invalid(path, "", "may not be specified when `value` is not empty"))
    elif sources > 1:
        errors.append(invalid(path, "", _ONE_SOURCE))
    return errors


def _field_ref(selector: Manifest, path: str) -> list[FieldError]:
    """``validateObjectFieldSelector`` with the paths environment variables may read."""
    version = selector.get("apiVersion") or "v1"
    field_path = selector.get("fieldPath") or ""
    if not field_path:
        return [required(f"{path}.fieldPath")]
    if version != "v1":
        detail = f"error converting fieldPath: unsupported pod version: {version}"
        return [invalid(f"{path}.fieldPath", field_path, detail)]
    subscripted = _split_subscripted(field_path)
    if subscripted is not None:
        base, key = subscripted
        if base == "metadata.annotations":
            return [invalid(path, key.lower(), msg) for msg in is_qualified_name(key.lower())]
        if base == "metadata.labels":
            return [invalid(path, key, msg) for msg in is_qualified_name(key)]
        detail = f"error converting fieldPath: field label does not support subscript: {field_path}"
        return [invalid(f"{path}.fieldPath", field_path, detail)]
    if field_path == "spec.host":
        field_path = "spec.nodeName"
    if field_path not in _DOWNWARD_API_LABELS:
        detail = f"error converting fieldPath: field label not supported: {field_path}"
        return [invalid(f"{path}.fieldPath", field_path, detail)]
    if field_path not in _ENV_FIELD_PATHS:
        return [not_supported(f"{path}.fieldPath", field_path, _ENV_FIELD_PATHS)]
    return []


def _split_subscripted(field_path: str) -> tuple[str, str] | None:
    """``fieldpath.SplitMaybeSubscriptedPath``: ``metadata.labels['app']``."""
    if not field_path.endswith("']"):
        return None
    base, found, key = field_path[: -len("']")].partition("['")
    if not found or not base:
        return None
    return base, key


def _resource_field_ref(selector: Manifest, path: str) -> list[FieldError]:
    """``validateContainerResourceFieldSelector`` for an environment variable."""
    errors: list[FieldError] = []
    resource = selector.get("resource") or ""
    if not resource:
        errors.append(required(f"{path}.resource"))
    elif resource not in _RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGES_PREFIXES):
        errors.append(not_supported(f"{path}.resource", resource, _RESOURCE_FIELD_PATHS))
    divisor = selector.get("divisor")
    if divisor is not None:
        errors += _divisor(resource, _quantity(divisor, f"{path}.divisor"), f"{path}.divisor")
    return errors


def _quantity(value: Any, path: str) -> Quantity:
    try:
        return Quantity.parse(value.strip() if isinstance(value, str) else value)
    except QuantityError as err:
        raise QuantityDecodeError(path, str(err)) from None


def _divisor(resource: str, divisor: Quantity, path: str) -> list[FieldError]:
    """``validateContainerResourceDivisor``: units the downward API can divide by."""
    if divisor.is_zero():
        return []
    shown = str(divisor)
    errors: list[FieldError] = []
    if resource in ("limits.cpu", "requests.cpu") and shown not in ("1m", "1"):
        detail = "only divisor's values 1m and 1 are supported with the cpu resource"
        errors.append(invalid(path, resource, detail))
    kinds = {
        "limits.memory": "memory",
        "requests.memory": "memory",
        "limits.ephemeral-storage": "local ephemeral storage",
        "requests.ephemeral-storage": "local ephemeral storage",
    }
    kind = kinds.get(resource) or ("hugepages" if resource.startswith(_HUGEPAGES_PREFIXES) else "")
    if kind and shown not in _SIZE_DIVISORS:
        detail = (
            f"only divisor's values {_SIZE_DIVISORS_SHOWN} are supported with the {kind} resource"
        )
        errors.append(invalid(path, resource, detail))
    return errors


def _key_ref(selector: Manifest, path: str) -> list[FieldError]:
    """A ConfigMap's or Secret's key: the object's name a DNS subdomain, the key a config key."""
    name = selector.get("name") or ""
    errors = [invalid(f"{path}.name", name, msg) for msg in is_dns1123_subdomain(name)]
    key = selector.get("key") or ""
    if not key:
        errors.append(required(f"{path}.key"))
    else:
        errors += [invalid(f"{path}.key", key, msg) for msg in is_config_map_key(key)]
    return errors


def is_config_map_key(key: str) -> list[str]:
    problems: list[str] = []
    if len(key) > 253:
        problems.append("must be no more than 253 characters")
    if not key or any(not (c.isascii() and (c.isalnum() or c in "-._")) for c in key):
        problems.append(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
            "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
            "'[-._a-zA-Z0-9]+')"
        )
    return problems + _chdir_prefix(key)


def _chdir_prefix(value: str) -> list[str]:
    if value in (".", ".."):
        return [f"must not be '{value}'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def _file_key_ref(selector: Manifest, path: str) -> list[FieldError]:
    """``validateFileKeySelector`` (EnvFiles, beta in v1.36)."""
    errors: list[FieldError] = []
    key = selector.get("key") or ""
    if not key:
        errors.append(required(f"{path}.key"))
    else:
        errors += [invalid(f"{path}.key", key, msg) for msg in is_env_var_name(key)]
    volume = selector.get("volumeName") or ""
    if not volume:
        errors.append(required(f"{path}.volumeName"))
    else:
        errors += [invalid(f"{path}.volumeName", volume, m) for m in is_dns1123_label(volume)]
    file_path = selector.get("path") or ""
    if not file_path:
        errors.append(required(f"{path}.path"))
    else:
        errors += _no_backsteps(file_path, f"{path}.path")
    return errors


def validate_env_from(sources: list[Manifest], path: str) -> list[FieldError]:
    """``ValidateEnvFrom``: exactly one ConfigMap or Secret, named, per entry."""
    errors: list[FieldError] = []
    for index, source in enumerate(sources):
        where = f"{path}[{index}]"
        prefix = source.get("prefix") or ""
        if prefix:
            errors += [invalid(f"{where}.prefix", prefix, msg) for msg in is_env_var_name(prefix)]
        count = 0
        for key in ("configMapRef", "secretRef"):
            reference = source.get(key)
            if reference is None:
                continue
            count += 1
            name = reference.get("name") or ""
            if not name:
                errors.append(required(f"{where}.{key}.name"))
            else:
                problems = is_dns1123_subdomain(name)
                errors += [invalid(f"{where}.{key}.name", name, msg) for msg in problems]
        if count == 0:
            errors.append(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errors.append(invalid(path, "", _ONE_SOURCE))
    return errors


# -- volume mounts -------------------------------------------------------------------------------


def validate_volume_mounts(container: Manifest, volumes: set[str], path: str) -> list[FieldError]:
    """``ValidateVolumeMounts``: each mount names one of the pod's volumes, at a path of its
    own. Its sub-path and propagation problems are reported at the list's path, as upstream
    reports them (``volumeMounts.subPath``)."""
    mounts = container.get("volumeMounts") or []
    devices = container.get("volumeDevices") or []
    device_names = {device.get("name") for device in devices}
    device_paths = {device.get("devicePath") for device in devices}
    privileged = bool((container.get("securityContext") or {}).get("privileged"))
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, mount in enumerate(mounts):
        where = f"{path}[{index}]"
        name = mount.get("name") or ""
        mount_path = mount.get("mountPath") or ""
        if not name:
            errors.append(required(f"{where}.name"))
        if name not in volumes:
            errors.append(not_found(f"{where}.name", name))
        if not mount_path:
            errors.append(required(f"{where}.mountPath"))
        if mount_path in seen:
            errors.append(invalid(f"{where}.mountPath", mount_path, "must be unique"))
        seen.add(mount_path)
        if name in device_names:
            detail = "must not already exist in volumeDevices"
            errors.append(invalid(f"{where}.name", name, detail))
        if mount_path in device_paths:
            detail = "must not already exist as a path in volumeDevices"
            errors.append(invalid(f"{where}.mountPath", mount_path, detail))
        errors += _sub_paths(mount, path)
        errors += _mount_propagation(mount.get("mountPropagation"), privileged, path)
        errors += _recursive_read_only(mount, f"{path}.recursiveReadOnly")
    return errors


def _sub_paths(mount: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    sub_path = mount.get("subPath") or ""
    if sub_path:
        errors += validate_local_descending_path(sub_path, f"{path}.subPath")
    expression = mount.get("subPathExpr") or ""
    if expression:
        if sub_path:
            where = f"{path}.subPathExpr"
            errors.append(
                invalid(where, expression, "subPathExpr and subPath are mutually exclusive")
            )
        errors += validate_local_descending_path(expression, f"{path}.subPathExpr")
    return errors


def validate_local_descending_path(target: str, path: str) -> list[FieldError]:
    """A relative path that does not climb out of its directory."""
    errors: list[FieldError] = []
    if target.startswith("/"):
        errors.append(invalid(path, target, "must be a relative path"))
    return errors + _no_backsteps(target, path)


def _no_backsteps(target: str, path: str) -> list[FieldError]:
    if ".." in target.split("/"):
        return [invalid(path, target, "must not contain '..'")]
    return []


def _mount_propagation(mode: str | None, privileged: bool, path: str) -> list[FieldError]:
    if mode is None:
        return []
    where = f"{path}.mountPropagation"
    errors: list[FieldError] = []
    if mode not in _MOUNT_PROPAGATIONS:
        errors.append(not_supported(where, mode, _MOUNT_PROPAGATIONS))
    if mode == "Bidirectional" and not privileged:
        detail = "Bidirectional mount propagation is available only to privileged containers"
        errors.append(forbidden(where, detail))
    return errors


def _recursive_read_only(mount: Manifest, path: str) -> list[FieldError]:
    mode = mount.get("recursiveReadOnly")
    if mode is None or mode == "Disabled":
        return []
    if mode not in _RECURSIVE_READ_ONLY:
        return [not_supported(path, mode, _RECURSIVE_READ_ONLY)]
    errors: list[FieldError] = []
    if not mount.get("readOnly"):
        errors.append(forbidden(path, "may only be specified when readOnly is true"))
    if mount.get("mountPropagation") not in (None, "None"):
        detail = "may only be specified when mountPropagation is None or not specified"
        errors.append(forbidden(path, detail))
    return errors


# -- probes and lifecycle handlers ---------------------------------------------------------------


def validate_lifecycle_and_probes(
    container: Manifest, grace_period: int, path: str
) -> list[FieldError]:
    """What a regular container or a sidecar may have: lifecycle handlers and probes."""
    errors: list[FieldError] = []
    lifecycle = container.get("lifecycle")
    if lifecycle is not None:
        for hook in ("postStart", "preStop"):
            if lifecycle.get(hook) is not None:
                errors += _handler(lifecycle[hook], grace_period, f"{path}.lifecycle.{hook}")
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(kind)
        if probe is not None:
            errors += _probe(kind, probe, grace_period, f"{path}.{kind}")
    return errors


def _probe(kind: str, probe: Manifest, grace_period: int, path: str) -> list[FieldError]:
    """``validateProbe`` and the rules of each kind of probe."""
    errors = _handler(probe, grace_period, path)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds"):
        value = probe.get(key) or 0
        if value < 0:
            errors.append(invalid(f"{path}.{key}", value, "must be greater than or equal to 0"))
    success = probe.get("successThreshold") or 1
    failure = probe.get("failureThreshold") or 3
    for key, value in (("successThreshold", success), ("failureThreshold", failure)):
        if value < 0:
            errors.append(invalid(f"{path}.{key}", value, "must be greater than or equal to 0"))
    grace = probe.get("terminationGracePeriodSeconds")
    if grace is not None and grace <= 0:
        detail = "must be greater than 0"
        errors.append(invalid(f"{path}.terminationGracePeriodSeconds", grace, detail))
    if kind in ("livenessProbe", "startupProbe") and success != 1:
        errors.append(invalid(f"{path}.successThreshold", success, "must be 1"))
    if kind == "readinessProbe" and grace is not None:
        detail = "must not be set for readinessProbes"
        errors.append(invalid(f"{path}.terminationGracePeriodSeconds", grace, detail))
    return errors


def _handler(handler: Manifest, grace_period: int, path: str) -> list[FieldError]:
    """``validateHandler``: exactly one action; probes have no ``sleep``, hooks no ``grpc``
    (strict decoding refuses those first)."""
    actions = {
        "exec": _exec,
        "httpGet": _http_get,
        "tcpSocket": lambda action, where: _port(action.get("port"), f"{where}.port"),
        "grpc": lambda action, where: _port(action.get("port") or 0, f"{where}.port"),
        "sleep": lambda action, where: _sleep(action, grace_period, where),
    }
    errors: list[FieldError] = []
    found = 0
    for key, check in actions.items():
        action = handler.get(key)
        if action is None:
            continue
        if found:
            errors.append(forbidden(f"{path}.{key}", _ONE_HANDLER))
            continue
        found += 1
        errors += check(action, f"{path}.{key}")
    if not found:
        errors.append(required(path, "must specify a handler type"))
    return errors


def _exec(action: Manifest, path: str) -> list[FieldError]:
    if not action.get("command"):
        return [required(f"{path}.command")]
    return []


def _http_get(action: Manifest, path: str) -> list[FieldError]:
    errors = _port(action.get("port"), f"{path}.port")
    scheme = action.get("scheme") or "HTTP"
    if scheme not in _HTTP_SCHEMES:
        errors.append(not_supported(f"{path}.scheme", scheme, _HTTP_SCHEMES))
    for header in action.get("httpHeaders") or []:
        name = header.get("name") or ""
        if not name or any(not (c.isascii() and (c.isalnum() or c == "-")) for c in name):
            detail = (
                "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. "
                "'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"
            )
            errors.append(invalid(f"{path}.httpHeaders", name, detail))
    return errors


def _port(port: int | str | None, path: str) -> list[FieldError]:
    """``ValidatePortNumOrName``."""
    if isinstance(port, str):
        return [invalid(path, port, msg) for msg in is_valid_port_name(port)]
    number = port or 0
    return [invalid(path, number, msg) for msg in is_valid_port_num(number)]


def _sleep(action: Manifest, grace_period: int, path: str) -> list[FieldError]:
    """PodLifecycleSleepActionAllowZero is GA in v1.36: zero seconds is allowed."""
    seconds = action.get("seconds") or 0
    if 0 <= seconds <= grace_period:
        return []
    detail = f"must be non-negative and less than terminationGracePeriodSeconds ({grace_period})"
    return [invalid(path, seconds, detail)]
