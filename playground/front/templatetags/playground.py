"""Template filters for numbers people read (durations, CPU, memory), and the scheduler's state."""

from __future__ import annotations

from typing import Any

import yaml
from django import template
from django.utils.safestring import SafeString, mark_safe

from playground.clusters.mirroring import mirrored_by
from playground.front import live
from playground.front.pod_groups import offers_pod_groups
from playground.scheduling.scheduler_state import SchedulerState, scheduler_state

register = template.Library()

_BINARY_UNITS = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


@register.filter
def ms(seconds: float | None) -> str:
    """Seconds as milliseconds with two decimals (plugin calls take microseconds)."""
    return f"{(seconds or 0) * 1000:.2f}"


@register.filter
def cpu(millicores: int) -> str:
    """Millicores as Kubernetes writes CPU: whole cores when exact, else ``m``."""
    if millicores % 1000 == 0:
        return str(millicores // 1000)
    return f"{millicores}m"


@register.filter
def memory(amount: int) -> str:
    """Bytes in the largest binary unit that keeps one decimal readable (``1.5Gi``)."""
    for unit, size in _BINARY_UNITS:
        if amount >= size:
            value = amount / size
            return f"{value:.0f}{unit}" if value == int(value) else f"{value:.1f}{unit}"
    return str(amount)


@register.filter
def amount(value: int, resource: Any) -> str:
    """An amount of ``resource`` (anything with ``name`` and ``unit``): CPU in millicores
    written as cores with their decimals (``2.5``, as the explanations write it), memory in
    binary units, anything else as it is."""
    if resource.name == "cpu" or resource.unit == "m":
        return f"{value / 1000:g}"
    if resource.name in ("memory", "ephemeral-storage") or resource.name.startswith("hugepages-"):
        return memory(value)
    return str(value)


@register.filter
def as_yaml(value: Any) -> str:
    """A JSON value as block YAML, keys in their order (plugin args in the profile form)."""
    if value is None:
        return ""
    return yaml.safe_dump(value, sort_keys=False, default_flow_style=False)


@register.simple_tag
def service_state(workspace: Any) -> SafeString:
    """The top bar's scheduler badge as the page loads; the page's websocket keeps it current."""
    return mark_safe(live.service_state(workspace))  # rendered by a template, escaped there


@register.simple_tag
def scheduler_state_of(workspace: Any) -> SchedulerState:
    """The scheduler's state, for a template that is not handed it (``{% ... as scheduler %}``)."""
    return scheduler_state(workspace.pk)


@register.simple_tag
def pod_groups_offered(workspace: Any) -> bool:
    """Whether the navigation links to the workspace's pod groups (``pod_groups``)."""
    return offers_pod_groups(workspace)


@register.simple_tag
def mirror_of(workspace: Any) -> Any:
    """The connection whose cluster the workspace mirrors (its objects are read-only), or
    None."""
    return mirrored_by(workspace)
