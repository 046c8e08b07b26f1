"""Upstream's checks of a container's probes and lifecycle handlers (``validateProbe``,
``validateHandler``, ``validateLifecycle``).

A probe's zero timeout, period and thresholds are defaulted (to 1, 10, 1 and 3) and an HTTP
action's path and scheme (``/``, ``HTTP``), so only values defaulting would not fix are
refused. ContainerStopSignals is off in v1.36: ``stopSignal`` is dropped, not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from framework.api.validation.content import is_valid_port_name, is_valid_port_num

Manifest = Mapping[str, Any]

_HTTP_SCHEMES = ("HTTP", "HTTPS")
_ONE_HANDLER = "may not specify more than 1 handler type"
DEFAULT_TERMINATION_GRACE_PERIOD = 30


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
