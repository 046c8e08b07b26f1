"""The extender protocol's JSON types (``k8s.io/kube-scheduler/extender/v1``).

The Go structs carry no JSON tags, so on the wire every key is the Go field name (``Pod``,
``NodeNames``, ``FailedAndUnresolvableNodes`` …). Pods and Nodes travel as whole objects:
here, their manifests (``to_dict()``). Requests are encoded with ``to_json()``; answers are
decoded from the Go type descriptions below, with Go's rules and error texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.api.node import Node
from framework.extender.go_json import (
    GoInt64,
    GoMap,
    GoObject,
    GoPointer,
    GoSlice,
    GoString,
    GoStruct,
)

if TYPE_CHECKING:
    from framework.api.meta import KubeObject
    from framework.api.pod import Pod
    from framework.preemption.types import Victims

MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
"""The range an extender's scores are meant to use; the scheduler multiplies them by
``MaxNodeScore / MaxExtenderPriority`` (10) and the extender's weight, without clamping."""


def object_json(obj: KubeObject) -> dict[str, Any]:
    """An object as the API server would hold it: its manifest, with its uid always present
    (extenders name preemption victims by uid)."""
    data = obj.to_dict()
    metadata = data.setdefault("metadata", {})
    metadata.setdefault("uid", obj.uid)
    return data


# --------------------------------------------------------------------------------------------
# Filter and Prioritize


@dataclass(slots=True)
class ExtenderArgs:
    """Filter and Prioritize requests: the pod and either whole nodes or only their names."""

    pod: Pod
    nodes: list[Node] | None = None
    node_names: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "Pod": object_json(self.pod),
            "Nodes": None if self.nodes is None else _node_list(self.nodes),
            "NodeNames": self.node_names,
        }


def _node_list(nodes: list[Node]) -> dict[str, Any]:
    return {"metadata": {}, "items": [object_json(n) for n in nodes]}


@dataclass(slots=True)
class ExtenderFilterResult:
    """Filter's answer: the nodes that pass, why the others failed, or an error."""

    nodes: list[Node] | None = None
    node_names: list[str] | None = None
    failed_nodes: dict[str, str] | None = None
    failed_and_unresolvable_nodes: dict[str, str] | None = None
    error: str = ""


@dataclass(slots=True)
class HostPriority:
    """One node's score from an extender's Prioritize."""

    host: str = ""
    score: int = 0


# --------------------------------------------------------------------------------------------
# Bind


@dataclass(slots=True)
class ExtenderBindingArgs:
    pod_name: str
    pod_namespace: str
    pod_uid: str
    node: str

    def to_json(self) -> dict[str, Any]:
        return {
            "PodName": self.pod_name,
            "PodNamespace": self.pod_namespace,
            "PodUID": self.pod_uid,
            "Node": self.node,
        }


@dataclass(slots=True)
class ExtenderBindingResult:
    error: str = ""


# --------------------------------------------------------------------------------------------
# Preempt


@dataclass(slots=True)
class MetaPod:
    """A victim named by uid only (extenders with their own node cache)."""

    uid: str = ""

    def __str__(self) -> str:
        return f"&{{{self.uid}}}"  # how upstream's messages print a *MetaPod


@dataclass(slots=True)
class MetaVictims:
    pods: list[MetaPod] = field(default_factory=list)
    num_pdb_violations: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "Pods": [{"UID": p.uid} for p in self.pods],
            "NumPDBViolations": self.num_pdb_violations,
        }

    @classmethod
    def from_victims(cls, victims: Victims) -> MetaVictims:
        """Upstream ``convertToMetaVictims`` for one node."""
        return cls([MetaPod(p.uid) for p in victims.pods], victims.num_pdb_violations)


@dataclass(slots=True)
class ExtenderPreemptionArgs:
    """Preempt's request: victims per node, as whole pods or (node cache) as uids."""

    pod: Pod
    node_name_to_victims: dict[str, Victims] | None = None
    node_name_to_meta_victims: dict[str, MetaVictims] | None = None

    def to_json(self) -> dict[str, Any]:
        victims = meta = None
        if self.node_name_to_victims is not None:
            victims = {n: _victims_json(v) for n, v in self.node_name_to_victims.items()}
        if self.node_name_to_meta_victims is not None:
            meta = {n: v.to_json() for n, v in self.node_name_to_meta_victims.items()}
        return {
            "Pod": object_json(self.pod),
            "NodeNameToVictims": victims,
            "NodeNameToMetaVictims": meta,
        }


def _victims_json(victims: Victims) -> dict[str, Any]:
    return {
        "Pods": [object_json(p) for p in victims.pods],
        "NumPDBViolations": victims.num_pdb_violations,
    }


@dataclass(slots=True)
class ExtenderPreemptionResult:
    """Preempt's answer: always victims by uid, whatever the request carried."""

    node_name_to_meta_victims: dict[str, MetaVictims | None] | None = None


# --------------------------------------------------------------------------------------------
# How answers decode (the Go declarations, field by field)

_STRING_LIST = GoSlice(GoString())
_FAILED_NODES_MAP = GoMap(GoString(), name="v1.FailedNodesMap")

_NODE = GoObject("v1", "Node", Node.from_dict)
_NODE_LIST = GoStruct(
    "v1",
    "NodeList",
    (("items", "items", GoSlice(_NODE)),),  # v1.NodeList has JSON tags
    lambda items: items or [],
)

EXTENDER_FILTER_RESULT = GoStruct(
    "v1",
    "ExtenderFilterResult",
    (
        ("Nodes", "nodes", GoPointer(_NODE_LIST)),
        ("NodeNames", "node_names", GoPointer(_STRING_LIST)),
        ("FailedNodes", "failed_nodes", _FAILED_NODES_MAP),
        ("FailedAndUnresolvableNodes", "failed_and_unresolvable_nodes", _FAILED_NODES_MAP),
        ("Error", "error", GoString()),
    ),
    ExtenderFilterResult,
)

HOST_PRIORITY_LIST = GoSlice(
    GoStruct(
        "v1",
        "HostPriority",
        (("Host", "host", GoString()), ("Score", "score", GoInt64())),
        HostPriority,
    )
)

EXTENDER_BINDING_RESULT = GoStruct(
    "v1", "ExtenderBindingResult", (("Error", "error", GoString()),), ExtenderBindingResult
)

_META_POD = GoStruct("v1", "MetaPod", (("UID", "uid", GoString()),), MetaPod)
_META_VICTIMS = GoStruct(
    "v1",
    "MetaVictims",
    (
        ("Pods", "pods", GoSlice(GoPointer(_META_POD))),
        ("NumPDBViolations", "num_pdb_violations", GoInt64()),
    ),
    lambda pods, num_pdb_violations: MetaVictims(
        [p if p is not None else MetaPod() for p in pods or []], num_pdb_violations
    ),
)

EXTENDER_PREEMPTION_RESULT = GoStruct(
    "v1",
    "ExtenderPreemptionResult",
    (("NodeNameToMetaVictims", "node_name_to_meta_victims", GoMap(GoPointer(_META_VICTIMS))),),
    ExtenderPreemptionResult,
)
