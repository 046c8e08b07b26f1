"""What NodeResourcesFit finds missing on a node, per resource, in the words people use.

The shortfalls come from the plugin's own check (``fits_request`` with the pod's requests as
its PreFilter computed them and the plugin's ignored resources), so they are exactly what the
filter rejected. Amounts are printed as kubectl prints them: CPU in cores, memory and storage
as Kubernetes quantities (``1536Mi``), the pod count and extended resources as numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.api.quantity import BINARY_SI, Quantity
from framework.api.resource_names import RESOURCE_CPU, RESOURCE_MEMORY
from framework.plugins.noderesources.fit import (
    PRE_FILTER_STATE_KEY,
    InsufficientResource,
    fits_request,
)

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo

RESOURCE_PODS = "pods"
BYTE_RESOURCES = frozenset({RESOURCE_MEMORY, "ephemeral-storage"})


@dataclass(frozen=True)
class Shortfall:
    """One resource the node lacks: amounts in scheduler units (``unit`` says which)."""

    name: str
    requested: int
    used: int
    allocatable: int

    @property
    def free(self) -> int:
        return self.allocatable - self.used

    @property
    def unit(self) -> str:
        if self.name == RESOURCE_CPU:
            return "m"
        return "bytes" if self.name in BYTE_RESOURCES else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "requested": self.requested,
            "used": self.used,
            "free": self.free,
            "allocatable": self.allocatable,
            "unit": self.unit,
        }

    def describe(self) -> str:
        if self.name == RESOURCE_PODS:
            return f"no room for another pod: {self.used} of {self.allocatable} pods"
        short = self.requested - self.free
        text = (
            f"needs {amount(self.name, short)} {label(self.name)} more: "
            f"{amount(self.name, max(self.free, 0))} free of {amount(self.name, self.allocatable)}"
        )
        if self.requested > self.allocatable:
            text += " (more than the node has at all)"
        return text


def resource_shortfalls(run: FilterRun, node: NodeInfo) -> list[Shortfall]:
    """What the node lacks for the pod, as NodeResourcesFit's Filter judged it."""
    plugin = run.framework.plugins_map["NodeResourcesFit"]
    state = run.state_for(node).read(PRE_FILTER_STATE_KEY)
    insufficient = fits_request(
        state.request,
        node,
        plugin.ignored_resources,
        plugin.ignored_resource_groups,
        state.dra_backed,
    )
    return [_shortfall(item) for item in insufficient]


def _shortfall(item: InsufficientResource) -> Shortfall:
    return Shortfall(item.resource_name, item.requested, item.used, item.capacity)


def amount(name: str, value: int) -> str:
    """``value`` (scheduler units of resource ``name``) as kubectl would print it."""
    if name == RESOURCE_CPU:
        cores = f"{value / 1000:.3f}".rstrip("0").rstrip(".")
        return cores
    if name in BYTE_RESOURCES:
        return str(Quantity.from_value(value, BINARY_SI))
    return str(value)


def label(name: str) -> str:
    return "CPU" if name == RESOURCE_CPU else name
