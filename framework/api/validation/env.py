"""Upstream's checks of a container's environment (``ValidateEnv``, ``ValidateEnvFrom``):
named variables, each with a value or exactly one source, and the ConfigMap, Secret and file
keys those sources name (the downward API's fields and resources: ``downward_api.py``).
RelaxedEnvironmentVariableValidation (GA) and EnvFiles (beta) are on, as in v1.36."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, invalid, required
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
)
from framework.api.validation.downward_api import (
    validate_object_field_selector,
    validate_resource_field_selector,
)
from framework.api.validation.mounts import validate_path_no_backsteps

Manifest = Mapping[str, Any]

# The pod fields an environment variable may read.
ENV_FIELD_PATHS = (
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
_NO_VALUE_SOURCE = (
    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or "
    "`fileKeyRef`"
)
_ONE_SOURCE = "may not have more than one field specified at a time"


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
    return validate_object_field_selector(selector, ENV_FIELD_PATHS, path)


def _resource_field_ref(selector: Manifest, path: str) -> list[FieldError]:
    return validate_resource_field_selector(selector, path, in_volume=False)


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
        errors += validate_path_no_backsteps(file_path, f"{path}.path")
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
