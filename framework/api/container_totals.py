"""Adding up containers' resources as the kubelet runs them, for requests and limits alike.

App containers and sidecars (restartable init containers) run together, so they add up; an
ordinary init container runs alone beside the sidecars started before it, so the pod needs
at least the largest of those moments (upstream's ``AggregateContainerRequests`` /
``AggregateContainerLimits``). Containers are read by duck type so that both the pod model
and its defaulting can use this without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from framework.api.quantity import Quantity

ResourceList = dict[str, Quantity]


def aggregate(
    containers: Iterable[Any],
    init_containers: Iterable[Any],
    amounts: Callable[[Any], Mapping[str, Quantity]],
    init_amounts: Callable[[Any], Mapping[str, Quantity]] | None = None,
) -> ResourceList:
    """The pod's total of ``amounts(container)`` over its containers, sidecars included
    (``init_amounts``, if given, for the ordinary init containers instead)."""
    init_amounts = init_amounts or amounts
    total: ResourceList = {}
    for container in containers:
        add_into(total, amounts(container))
    sidecars: ResourceList = {}
    init_peak: ResourceList = {}
    for container in init_containers:
        sidecar = container.is_restartable_init_container
        container_amounts = amounts(container) if sidecar else init_amounts(container)
        if sidecar:
            # A sidecar keeps running beside the app containers and every later init container.
            add_into(total, container_amounts)
            add_into(sidecars, container_amounts)
            in_use = sidecars
        else:
            in_use = dict(container_amounts)
            add_into(in_use, sidecars)
        max_into(init_peak, in_use)
    max_into(total, init_peak)
    return total


def add_into(total: ResourceList, more: Mapping[str, Quantity]) -> None:
    for name, quantity in more.items():
        total[name] = total[name] + quantity if name in total else quantity


def max_into(peak: ResourceList, other: Mapping[str, Quantity]) -> None:
    for name, quantity in other.items():
        if name not in peak or quantity > peak[name]:
            peak[name] = quantity
