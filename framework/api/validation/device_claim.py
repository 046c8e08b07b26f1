"""Upstream's ``ValidateResourceClaim``, ``ValidateResourceClaimTemplate`` and
``ValidateDeviceClass`` on create (``pkg/apis/resource/validation``), for the v1.36 default
feature gates: prioritized lists, admin access, device taints, consumable capacity, binding
conditions and extended resources on; list-type attributes off.

Requests are checked as the API server sees them after defaulting: ``allocationMode``
defaults to ``ExactCount``, and then ``count`` to 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from framework.api.resources import is_extended_resource_name
from framework.api.validation.content import is_dns1123_subdomain, is_qualified_name
from framework.api.validation.device_selector import validate_selector
from framework.api.validation.dra_common import (
    too_long,
    validate_device_toleration,
    validate_dns_label,
    validate_dns_subdomain,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_set,
    validate_slice,
)
from framework.api.validation.meta import validate_labels, validate_object_meta

Manifest = Mapping[str, Any]
RequestNames = dict[str, set[str] | None]

DEVICE_REQUESTS_MAX_SIZE = 32
DEVICE_CONSTRAINTS_MAX_SIZE = 32
DEVICE_CONFIG_MAX_SIZE = 32
DEVICE_SELECTORS_MAX_SIZE = 32
FIRST_AVAILABLE_MAX_SIZE = 8
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
_ALLOCATION_MODES = ("All", "ExactCount")
_ONE_ATTRIBUTE = (
    'exactly one of "matchAttribute" or "distinctAttribute" is required, '
    "but multiple fields are set"
)
_NOT_A_REQUEST = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)


def validate_resource_claim(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_subdomain)
    spec = manifest.get("spec") or {}
    return errors + validate_claim_spec(spec, "spec", stored=False)


def validate_resource_claim_template(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_subdomain)
    spec = manifest.get("spec") or {}
    errors += _template_metadata(spec.get("metadata") or {}, "spec.metadata")
    return errors + validate_claim_spec(spec.get("spec") or {}, "spec.spec", stored=False)


def validate_device_class(manifest: Manifest, old: Manifest | None = None) -> list[FieldError]:
    """A class's selectors and configuration; on update, those unchanged count as stored
    (their CEL and parameters were accepted before)."""
    metadata = manifest.get("metadata") or {}
    errors = validate_object_meta(metadata, False, _long_name)
    spec = manifest.get("spec") or {}
    old_spec = None if old is None else old.get("spec") or {}
    selectors = spec.get("selectors") or []
    errors += validate_slice(
        selectors, DEVICE_SELECTORS_MAX_SIZE, validate_selector, "spec.selectors"
    )
    configs = spec.get("config") or []
    stored = old_spec is not None and (old_spec.get("config") or []) == configs
    errors += validate_slice(
        configs,
        DEVICE_CONFIG_MAX_SIZE,
        lambda config, path: _device_configuration(config, path, stored),
        "spec.config",
    )
    extended = spec.get("extendedResourceName")
    if extended is not None and not is_extended_resource_name(extended):
        detail = "must be a valid extended resource name"
        errors.append(invalid("spec.extendedResourceName", extended, detail))
    return errors


def _long_name(name: str) -> list[str]:
    # validate.LongName uses the content package, which counts bytes.
    return is_dns1123_subdomain(name, length_unit="bytes")


# ObjectMeta's fields in the order of upstream's struct, which its allow-list check walks.
_OBJECT_META_FIELDS = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)


def _template_metadata(metadata: Manifest, path: str) -> list[FieldError]:
    """``ValidateTemplateObjectMeta``: labels and annotations, and nothing else set."""
    annotations = metadata.get("annotations") or {}
    errors = [
        invalid(f"{path}.annotations", key, msg)
        for key in annotations
        for msg in is_qualified_name(key.lower())
    ]
    errors += validate_labels(metadata.get("labels") or {}, f"{path}.labels")
    for key in _OBJECT_META_FIELDS:
        if key not in ("labels", "annotations") and metadata.get(key):
            errors.append(forbidden(f"{path}.{key}", "cannot be set"))
    return errors


# -- the claim's devices ---------------------------------------------------------------------


def validate_claim_spec(spec: Manifest, path: str, *, stored: bool) -> list[FieldError]:
    """``validateDeviceClaim``: requests, constraints and configuration."""
    devices = spec.get("devices") or {}
    where = f"{path}.devices"
    requests = devices.get("requests") or []
    names = gather_request_names(requests)
    errors = validate_set(
        requests,
        DEVICE_REQUESTS_MAX_SIZE,
        lambda request, p: _device_request(request, p, stored),
        lambda request: request.get("name") or "",
        f"{where}.requests",
    )
    errors += validate_slice(
        devices.get("constraints") or [],
        DEVICE_CONSTRAINTS_MAX_SIZE,
        lambda constraint, p: _constraint(constraint, p, names),
        f"{where}.constraints",
    )
    errors += validate_slice(
        devices.get("config") or [],
        DEVICE_CONFIG_MAX_SIZE,
        lambda config, p: _claim_configuration(config, p, names, stored),
        f"{where}.config",
    )
    return errors


def gather_request_names(requests: list[Manifest]) -> RequestNames:
    """Each request's name, with the names of its subrequests (None without any)."""
    names: RequestNames = {}
    for request in requests:
        alternatives = request.get("firstAvailable") or []
        subrequests = {s.get("name") or "" for s in alternatives} if alternatives else None
        names[request.get("name") or ""] = subrequests
    return names


def _has_request(names: RequestNames, reference: str) -> bool:
    segments = reference.split("/")
    if len(segments) > 2 or segments[0] not in names:
        return False
    if len(segments) == 1:
        return True
    return segments[1] in (names[segments[0]] or set())


def _device_request(request: Manifest, path: str, stored: bool) -> list[FieldError]:
    errors = validate_dns_label(request.get("name") or "", f"{path}.name")
    alternatives = request.get("firstAvailable") or []
    exactly = request.get("exactly")
    if not alternatives and exactly is None:
        detail = "exactly one of `exactly` or `firstAvailable` is required"
        errors.append(required(path, detail))
    elif alternatives and exactly is not None:
        detail = (
            "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"
        )
        errors.append(invalid(path, None, detail))
    elif alternatives:
        errors += validate_set(
            alternatives,
            FIRST_AVAILABLE_MAX_SIZE,
            lambda sub, p: _device_subrequest(sub, p, stored),
            lambda sub: sub.get("name") or "",
            f"{path}.firstAvailable",
        )
    else:
        errors += _exact_request(exactly, f"{path}.exactly", stored)
    return errors


def _device_subrequest(request: Manifest, path: str, stored: bool) -> list[FieldError]:
    errors = validate_dns_label(request.get("name") or "", f"{path}.name")
    return errors + _exact_request(request, path, stored)


def _exact_request(request: Manifest, path: str, stored: bool) -> list[FieldError]:
    """Class, selectors, allocation mode and count, tolerations: what an ``exactly``
    request and a subrequest share."""
    errors = _device_class_name(request.get("deviceClassName") or "", f"{path}.deviceClassName")
    errors += validate_slice(
        request.get("selectors") or [],
        DEVICE_SELECTORS_MAX_SIZE,
        validate_selector,
        f"{path}.selectors",
    )
    errors += _allocation_mode(request, path)
    for index, toleration in enumerate(request.get("tolerations") or []):
        errors += validate_device_toleration(toleration, f"{path}.tolerations[{index}]")
    return errors


def _device_class_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [required(path)]
    return validate_dns_subdomain(name, path)


def _allocation_mode(request: Manifest, path: str) -> list[FieldError]:
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count") or 0
    if mode == "All":
        if count != 0:
            detail = f"must not be specified when allocationMode is '{mode}'"
            return [invalid(f"{path}.count", count, detail)]
        return []
    if mode == "ExactCount":
        count = count or 1  # the default
        if count <= 0:
            return [invalid(f"{path}.count", count, "must be greater than zero")]
        return []
    return [not_supported(f"{path}.allocationMode", mode, _ALLOCATION_MODES)]


def _constraint(constraint: Manifest, path: str, names: RequestNames) -> list[FieldError]:
    errors = validate_set(
        constraint.get("requests") or [],
        DEVICE_REQUESTS_MAX_SIZE,
        lambda name, p: _request_reference(name, p, names),
        lambda name: name,
        f"{path}.requests",
    )
    match = constraint.get("matchAttribute")
    distinct = constraint.get("distinctAttribute")
    if match is not None:
        errors += validate_fully_qualified_name(match, f"{path}.matchAttribute")
    elif distinct is not None:
        errors += validate_fully_qualified_name(distinct, f"{path}.distinctAttribute")
    else:
        # Upstream's wording, with DRAConsumableCapacity on, whatever is missing.
        errors.append(required(path, _ONE_ATTRIBUTE))
    return errors


def _claim_configuration(
    config: Manifest, path: str, names: RequestNames, stored: bool
) -> list[FieldError]:
    errors = validate_set(
        config.get("requests") or [],
        DEVICE_REQUESTS_MAX_SIZE,
        lambda name, p: _request_reference(name, p, names),
        lambda name: name,
        f"{path}.requests",
    )
    return errors + _device_configuration(config, path, stored)


def _request_reference(name: str, path: str, names: RequestNames) -> list[FieldError]:
    """A request named by a constraint or a configuration: ``request`` or
    ``request/subrequest``, each part a DNS label."""
    segments = name.split("/")
    if len(segments) > 2:
        return [invalid(path, name, _NOT_A_REQUEST)]
    errors: list[FieldError] = []
    for segment in segments:
        errors += validate_dns_label(segment, path)
    if not _has_request(names, name):
        errors.append(invalid(path, name, _NOT_A_REQUEST))
    return errors


def _device_configuration(config: Manifest, path: str, stored: bool) -> list[FieldError]:
    opaque = config.get("opaque")
    if opaque is None:
        return [required(f"{path}.opaque")]
    where = f"{path}.opaque"
    errors = validate_driver_name(opaque.get("driver") or "", f"{where}.driver")
    errors += _opaque_parameters(opaque.get("parameters"), f"{where}.parameters", stored)
    return errors


def _opaque_parameters(parameters: Any, path: str, stored: bool) -> list[FieldError]:
    """``validateRawExtension``: a JSON object of at most 10 KiB (when new). A manifest
    holds the parameters decoded; their size is that of their compact JSON."""
    if parameters is None:
        return [required(path)]
    raw = json.dumps(parameters, separators=(",", ":"), ensure_ascii=False)
    if not stored and len(raw.encode()) > OPAQUE_PARAMETERS_MAX_LENGTH:
        return [too_long(path, OPAQUE_PARAMETERS_MAX_LENGTH)]
    if not isinstance(parameters, Mapping):
        return [invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []
