"""NodeInfo: a node plus everything the scheduler aggregates about the pods on it.

Port of ``pkg/scheduler/framework/types.go`` (and the public parts in
``staging/src/k8s.io/kube-scheduler/framework/types.go``). Requests are kept as integers in
scheduler units (milli-CPU, bytes, counts) so filters and scores never touch quantities.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from framework.api.affinity import PodAffinityTerm, WeightedPodAffinityTerm
from framework.api.labels import Selector, SelectorError, label_selector_as_selector
from framework.api.node import Node
from framework.api.pod import ContainerPort, Pod
from framework.api.quantity import Quantity
from framework.api.resource_names import RESOURCE_CPU, RESOURCE_MEMORY
from framework.api.resources import (
    RESOURCE_EPHEMERAL_STORAGE,
    RESOURCE_PODS,
    is_scalar_resource_name,
    non_zero_requests,
    pod_request_list,
)
from framework.api.taints import Taint

T = TypeVar("T")
U = TypeVar("U")

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
PROTOCOL_TCP = "TCP"

# Every change to any NodeInfo takes the next number, so a generation never repeats, even
# for a node deleted and added back under the same name (upstream nextGeneration).
_generations = itertools.count(1)


def next_generation() -> int:
    return next(_generations)


# -- resources -------------------------------------------------------------------------------


@dataclass(slots=True)
class Resource:
    """Amounts in scheduler units: milli-CPU, bytes, pod count, and scalar resources."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_resource_list(cls, resources: Mapping[str, Quantity]) -> Resource:
        """Upstream ``NewResource``."""
        result = cls()
        result.add(resources)
        return result

    def add(self, resources: Mapping[str, Quantity]) -> None:
        """Add a resource list; names that are neither native nor scalar are ignored."""
        for name, quantity in resources.items():
            if name == RESOURCE_CPU:
                self.milli_cpu += quantity.milli_value()
            elif name == RESOURCE_MEMORY:
                self.memory += quantity.value()
            elif name == RESOURCE_PODS:
                self.allowed_pod_number += quantity.value()
            elif name == RESOURCE_EPHEMERAL_STORAGE:
                self.ephemeral_storage += quantity.value()
            elif is_scalar_resource_name(name):
                self.add_scalar(name, quantity.value())

    def sub(self, other: Resource) -> None:
        """Take away another Resource, field by field (scalars the other lacks stay)."""
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pod_number -= other.allowed_pod_number
        for name, amount in other.scalar_resources.items():
            self.scalar_resources[name] = self.scalar_resources.get(name, 0) - amount

    def add_scalar(self, name: str, amount: int) -> None:
        self.scalar_resources[name] = self.scalar_resources.get(name, 0) + amount

    def set_scalar(self, name: str, amount: int) -> None:
        self.scalar_resources[name] = amount

    def set_max_resource(self, resources: Mapping[str, Quantity]) -> None:
        """Raise each amount to at least the one in the list (pods are not compared)."""
        for name, quantity in resources.items():
            if name == RESOURCE_MEMORY:
                self.memory = max(self.memory, quantity.value())
            elif name == RESOURCE_CPU:
                self.milli_cpu = max(self.milli_cpu, quantity.milli_value())
            elif name == RESOURCE_EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, quantity.value())
            elif is_scalar_resource_name(name):
                self.set_scalar(name, max(self.scalar_resources.get(name, 0), quantity.value()))

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar_resources),
        )


@dataclass(frozen=True, slots=True)
class PodResource:
    """A pod's requests as counted on a node, and its CPU/memory with scoring defaults."""

    resource: Resource
    non0_cpu: int
    non0_mem: int


# -- pod info --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A parsed pod (anti-)affinity term: which namespaces, which pods, over which topology."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, pod: Pod, namespace_labels: Mapping[str, str] | None) -> bool:
        """The pod is in a listed or selected namespace and carries matching labels."""
        metadata = pod.metadata
        in_namespace = metadata.namespace in self.namespaces or self.namespace_selector.matches(
            namespace_labels or {}
        )
        return in_namespace and self.selector.matches(metadata.labels)


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm(AffinityTerm):
    weight: int = 0


def get_affinity_terms(pod: Pod, terms: Iterable[PodAffinityTerm]) -> list[AffinityTerm]:
    """Parse terms; raises :class:`SelectorError` for the first bad selector."""
    return [_new_affinity_term(pod, term) for term in terms]


def get_weighted_affinity_terms(
    pod: Pod, terms: Iterable[WeightedPodAffinityTerm]
) -> list[WeightedAffinityTerm]:
    result = []
    for weighted in terms:
        term = _new_affinity_term(pod, weighted.pod_affinity_term)
        result.append(
            WeightedAffinityTerm(
                term.namespaces,
                term.selector,
                term.topology_key,
                term.namespace_selector,
                weighted.weight,
            )
        )
    return result


def _new_affinity_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    selector = label_selector_as_selector(term.label_selector)
    namespace_selector = label_selector_as_selector(term.namespace_selector)
    return AffinityTerm(
        namespaces_from_pod_affinity_term(pod, term),
        selector,
        term.topology_key,
        namespace_selector,
    )


def namespaces_from_pod_affinity_term(pod: Pod, term: PodAffinityTerm) -> frozenset[str]:
    """The listed namespaces, or the pod's own when neither names nor a selector are given."""
    if not term.namespaces and term.namespace_selector is None:
        return frozenset({pod.namespace})
    return frozenset(term.namespaces)


class PodInfo:
    """A pod with its affinity terms parsed once, and its requests and host ports computed once.

    A term whose selector does not parse leaves that whole group of terms empty and the
    error in ``parse_error``, as upstream (the API server does not fully validate them).
    """

    __slots__ = (
        "_cached_host_ports",
        "_cached_resource",
        "parse_error",
        "pod",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "required_affinity_terms",
        "required_anti_affinity_terms",
    )

    def __init__(self, pod: Pod) -> None:
        self._parse(pod)

    def update(self, pod: Pod) -> SelectorError | None:
        """Point at a new version of the pod; returns (and keeps) any selector parse error.

        The same pod (same uid) keeps its parsed terms and requests: they cannot change.
        """
        if self.pod.uid == pod.uid:
            self.pod = pod
            return None
        return self._parse(pod)

    def _parse(self, pod: Pod) -> SelectorError | None:
        affinity = pod.spec.affinity
        pod_affinity = affinity.pod_affinity if affinity else None
        anti_affinity = affinity.pod_anti_affinity if affinity else None
        errors: list[str] = []
        self.required_affinity_terms = _parse_group(
            errors,
            "requiredAffinityTerms",
            get_affinity_terms,
            pod,
            pod_affinity.required if pod_affinity else [],
        )
        self.required_anti_affinity_terms = _parse_group(
            errors,
            "requiredAntiAffinityTerms",
            get_affinity_terms,
            pod,
            anti_affinity.required if anti_affinity else [],
        )
        self.preferred_affinity_terms = _parse_group(
            errors,
            "preferredAffinityTerms",
            get_weighted_affinity_terms,
            pod,
            pod_affinity.preferred if pod_affinity else [],
        )
        self.preferred_anti_affinity_terms = _parse_group(
            errors,
            "preferredAntiAffinityTerms",
            get_weighted_affinity_terms,
            pod,
            anti_affinity.preferred if anti_affinity else [],
        )
        self.pod = pod
        self._cached_resource: PodResource | None = None
        self._cached_host_ports: list[ContainerPort] | None = None
        self.parse_error = SelectorError(errors) if errors else None
        return self.parse_error

    def calculate_resource(self) -> PodResource:
        """The pod's requests as ``NodeInfo`` counts them (computed once, then cached)."""
        if self._cached_resource is None:
            requests = pod_request_list(self.pod)
            non0_cpu, non0_mem = non_zero_requests(self.pod, requests)
            resource = Resource.from_resource_list(requests)
            self._cached_resource = PodResource(resource, non0_cpu, non0_mem)
        return self._cached_resource

    def host_ports(self) -> list[ContainerPort]:
        """``get_host_ports`` of the pod, computed once: preemption's dry run adds and removes
        the same pods over and over."""
        if self._cached_host_ports is None:
            self._cached_host_ports = get_host_ports(self.pod)
        return self._cached_host_ports

    def __repr__(self) -> str:
        return f"PodInfo({self.pod!r})"


_NO_TERMS: tuple[Any, ...] = ()


def _parse_group(
    errors: list[str],
    label: str,
    parse: Callable[[Pod, list[U]], list[T]],
    pod: Pod,
    terms: list[U],
) -> Sequence[T]:
    """Parse one group of terms; on failure record ``label: error`` and keep none of them.

    No terms at all (most pods) share one empty tuple rather than each holding empty lists.
    """
    if not terms:
        return _NO_TERMS
    try:
        return parse(pod, terms)
    except SelectorError as exc:
        errors.append(f"{label}: {exc}")
        return []


# -- images and ports ------------------------------------------------------------------------


@dataclass(slots=True)
class ImageStateSummary:
    """An image's size and on how many nodes it is; ``nodes`` is kept by the cache only."""

    size: int
    num_nodes: int = 0
    nodes: set[str] = field(default_factory=set)

    def snapshot(self) -> ImageStateSummary:
        """A copy for a NodeInfo copy, without the node set. The cache's summaries count their
        nodes; a copy of a copy (preemption's dry run copies the snapshot's NodeInfos) keeps
        the count it was given, as upstream's copy keeps NumNodes."""
        return ImageStateSummary(self.size, len(self.nodes) if self.nodes else self.num_nodes)


class HostPortInfo:
    """Host ports in use, by host IP, as ``(protocol, port)`` pairs.

    An empty IP means ``0.0.0.0`` and an empty protocol means TCP; a port on ``0.0.0.0``
    conflicts with the same port on every IP.
    """

    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, set[tuple[str, int]]] = {}

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = _sanitize(ip, protocol)
        self._ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = _sanitize(ip, protocol)
        ports = self._ports.get(ip)
        if ports is not None:
            ports.discard((protocol, port))
            if not ports:
                del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = _sanitize(ip, protocol)
        wanted = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(wanted in ports for ports in self._ports.values())
        return any(wanted in self._ports.get(key, ()) for key in (DEFAULT_BIND_ALL_HOST_IP, ip))

    def clone(self) -> HostPortInfo:
        copy = HostPortInfo()
        if self._ports:
            copy._ports = {ip: set(ports) for ip, ports in self._ports.items()}
        return copy

    def as_dict(self) -> dict[str, set[tuple[str, int]]]:
        return {ip: set(ports) for ip, ports in self._ports.items()}

    def __len__(self) -> int:
        return sum(len(ports) for ports in self._ports.values())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HostPortInfo):
            return NotImplemented
        return self._ports == other._ports

    def __repr__(self) -> str:
        return f"HostPortInfo({self._ports!r})"


def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
    return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or PROTOCOL_TCP


def get_host_ports(pod: Pod) -> list[ContainerPort]:
    """Ports with a host port, of sidecars (which run all along) and of app containers."""
    containers = [c for c in pod.spec.init_containers if c.is_restartable_init_container]
    containers.extend(pod.spec.containers)
    return [port for c in containers for port in c.ports if port.host_port > 0]


# Positions in ``NodeInfo.resource_amounts``.
AMOUNT_ALLOCATABLE_CPU = 0
AMOUNT_ALLOCATABLE_MEMORY = 1
AMOUNT_ALLOCATABLE_EPHEMERAL_STORAGE = 2
AMOUNT_ALLOWED_PODS = 3
AMOUNT_REQUESTED_CPU = 4
AMOUNT_REQUESTED_MEMORY = 5
AMOUNT_REQUESTED_EPHEMERAL_STORAGE = 6
AMOUNT_NON_ZERO_REQUESTED_CPU = 7
AMOUNT_NON_ZERO_REQUESTED_MEMORY = 8
AMOUNT_PODS = 9


_INTERNED_AMOUNTS: dict[tuple[int, ...], tuple[int, ...]] = {}
"""Each distinct ``resource_amounts`` tuple once. Emptied when full: a tuple made after that
is a new object, which only means alike nodes are scored once more, never a wrong score."""
_INTERNED_AMOUNTS_LIMIT = 65_536


# -- node info -------------------------------------------------------------------------------


class PodNotFoundError(LookupError):
    """Removing a pod that the NodeInfo does not hold."""


class NodeInfo:
    """A node and the aggregate of its pods: requests, ports, volumes claims and images.

    Pods are identified by uid. ``generation`` changes on every modification, so caches
    can tell whether a snapshot is stale.
    """

    __slots__ = (
        "allocatable",
        "declared_features",
        "generation",
        "image_states",
        "node",
        "node_name",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "pvc_ref_counts",
        "requested",
        "resource_amounts",
        "taints",
        "unschedulable",
        "used_ports",
    )

    def __init__(self, *pods: Pod) -> None:
        self.node: Node | None = None
        """The node object; None when it is not (or no longer) known. Set with ``set_node``."""
        self.node_name = ""
        """The node's name, or ``""`` without a node (kept with ``node``: read on hot paths)."""
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.declared_features: frozenset[str] = frozenset()
        self.resource_amounts: tuple[int, ...] = ()
        """Every native amount in one tuple (``AMOUNT_*`` positions), kept up to date."""
        self.unschedulable = False
        """``node.spec.unschedulable``, kept here (see ``set_node``)."""
        self.taints: tuple[Taint, ...] = ()
        """``node.spec.taints``, kept here (see ``set_node``)."""
        self._refresh_amounts()
        self.generation = next_generation()
        for pod in pods:
            self.add_pod(pod)

    # -- the node -----------------------------------------------------------------------------

    def set_node(self, node: Node) -> None:
        """Takes the node. Its cordon and taints are kept on the NodeInfo too: the batch filters
        check them on hundreds of nodes a cycle, nodes no longer in the processor's cache, and
        one read of the NodeInfo (an untainted node's taints are the shared empty tuple) costs
        a third of walking to the node's spec. A Node is replaced, never changed, on update."""
        self.node = node
        self.node_name = node.name
        self.unschedulable = bool(node.spec.unschedulable)
        self.taints = tuple(node.spec.taints)
        self.allocatable = Resource.from_resource_list(node.status.allocatable)
        self.declared_features = frozenset(node.status.declared_features)
        self._refresh_amounts()
        self.generation = next_generation()

    def remove_node(self) -> None:
        """Forget the node object but keep the pods (they may still be terminating)."""
        self.node = None
        self.node_name = ""
        self.unschedulable = False
        self.taints = ()
        self.generation = next_generation()

    # -- pods ---------------------------------------------------------------------------------

    def add_pod(self, pod: Pod) -> None:
        """Add a pod; selector parse errors are ignored here, as upstream does."""
        self.add_pod_info(PodInfo(pod))

    def add_pod_info(self, pod_info: PodInfo) -> None:
        pod = pod_info.pod
        self.pods.append(pod_info)
        if _has_pod_affinity(pod):
            self.pods_with_affinity.append(pod_info)
        if _has_required_anti_affinity(pod):
            self.pods_with_required_anti_affinity.append(pod_info)
        self._update(pod_info, 1)

    def remove_pod(self, pod: Pod) -> None:
        """Remove the pod with this uid; raises :class:`PodNotFoundError` if absent."""
        self._count(self._take_out(pod), -1)
        self._refresh_amounts()
        self.generation = next_generation()

    def remove_pods(self, pods: Iterable[Pod]) -> None:
        """``remove_pod`` for each pod in turn, the amounts summed up once at the end:
        preemption's dry run takes every lower-priority pod off each node it checks."""
        try:
            for pod in pods:
                self._count(self._take_out(pod), -1)
        finally:
            self._refresh_amounts()
            self.generation = next_generation()

    def _take_out(self, pod: Pod) -> PodInfo:
        """Drops the pod with this uid from the lists; the counts are left to the caller."""
        if not pod.uid:
            raise ValueError("cannot get cache key for pod with empty UID")
        if _has_pod_affinity(pod):
            _remove_by_uid(self.pods_with_affinity, pod.uid)
        if _has_required_anti_affinity(pod):
            _remove_by_uid(self.pods_with_required_anti_affinity, pod.uid)
        removed = _remove_by_uid(self.pods, pod.uid)
        if removed is None:
            raise PodNotFoundError(
                f"no corresponding pod {pod.name} in pods of node {self.node_name}"
            )
        return removed

    def _update(self, pod_info: PodInfo, sign: int) -> None:
        self._count(pod_info, sign)
        self._refresh_amounts()
        self.generation = next_generation()

    def _count(self, pod_info: PodInfo, sign: int) -> None:
        """Adds (``sign`` 1) or takes away (-1) the pod's requests, ports and claims."""
        usage = pod_info.calculate_resource()
        resource = usage.resource
        requested = self.requested
        requested.milli_cpu += sign * resource.milli_cpu
        requested.memory += sign * resource.memory
        requested.ephemeral_storage += sign * resource.ephemeral_storage
        if resource.scalar_resources:
            scalars = requested.scalar_resources
            for name, amount in resource.scalar_resources.items():
                scalars[name] = scalars.get(name, 0) + sign * amount
        non_zero = self.non_zero_requested
        non_zero.milli_cpu += sign * usage.non0_cpu
        non_zero.memory += sign * usage.non0_mem
        host_ports = pod_info.host_ports()
        if host_ports:
            self._update_used_ports(host_ports, sign > 0)
        pod = pod_info.pod
        if pod.spec.volumes:
            self._update_pvc_ref_counts(pod, sign > 0)

    def _refresh_amounts(self) -> None:
        """NodeResourcesFit's filter and the resource scores read a node's amounts for hundreds
        of nodes a cycle, nodes whose objects are no longer in the processor's cache: one
        tuple read replaces several attribute walks, each a cache miss. Equal tuples are one
        object, which stays cached, and lets alike nodes (most of a cluster) be told apart by
        identity, without hashing."""
        allocatable, requested, non_zero = self.allocatable, self.requested, self.non_zero_requested
        amounts = (
            allocatable.milli_cpu,
            allocatable.memory,
            allocatable.ephemeral_storage,
            allocatable.allowed_pod_number,
            requested.milli_cpu,
            requested.memory,
            requested.ephemeral_storage,
            non_zero.milli_cpu,
            non_zero.memory,
            len(self.pods),
        )
        if len(_INTERNED_AMOUNTS) >= _INTERNED_AMOUNTS_LIMIT:
            _INTERNED_AMOUNTS.clear()
        self.resource_amounts = _INTERNED_AMOUNTS.setdefault(amounts, amounts)

    def _update_used_ports(self, host_ports: list[ContainerPort], add: bool) -> None:
        for port in host_ports:
            if add:
                self.used_ports.add(port.host_ip, port.protocol, port.host_port)
            else:
                self.used_ports.remove(port.host_ip, port.protocol, port.host_port)

    def _update_pvc_ref_counts(self, pod: Pod, add: bool) -> None:
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is None:
                continue
            key = f"{pod.namespace}/{volume.persistent_volume_claim.claim_name}"
            if add:
                self.pvc_ref_counts[key] = self.pvc_ref_counts.get(key, 0) + 1
            else:
                count = self.pvc_ref_counts.get(key, 0) - 1
                if count <= 0:
                    self.pvc_ref_counts.pop(key, None)
                else:
                    self.pvc_ref_counts[key] = count

    # -- copies -------------------------------------------------------------------------------

    def clone(self) -> NodeInfo:
        """A snapshot (upstream ``Snapshot()``): lists and counters are copied, the node,
        allocatable and the PodInfos are shared, image states lose their node sets."""
        copy = NodeInfo.__new__(NodeInfo)
        copy.node = self.node
        copy.node_name = self.node_name
        copy.pods = list(self.pods)
        copy.pods_with_affinity = list(self.pods_with_affinity)
        copy.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        copy.used_ports = self.used_ports.clone()
        copy.requested = self.requested.clone()
        copy.non_zero_requested = self.non_zero_requested.clone()
        # Shared: allocatable is replaced by set_node, never changed in place.
        copy.allocatable = self.allocatable
        image_states = self.image_states
        copy.image_states = (
            {name: state.snapshot() for name, state in image_states.items()} if image_states else {}
        )
        copy.pvc_ref_counts = dict(self.pvc_ref_counts)
        copy.declared_features = self.declared_features
        copy.resource_amounts = self.resource_amounts
        copy.unschedulable = self.unschedulable
        copy.taints = self.taints
        copy.generation = self.generation
        return copy

    def __repr__(self) -> str:
        names = [p.pod.name for p in self.pods]
        return (
            f"NodeInfo(node={self.node_name!r}, pods={names}, requested={self.requested}, "
            f"non_zero_requested={self.non_zero_requested}, used_ports={self.used_ports}, "
            f"allocatable={self.allocatable})"
        )


def _has_pod_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    return affinity is not None and (
        affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None
    )


def _has_required_anti_affinity(pod: Pod) -> bool:
    affinity = pod.spec.affinity
    return (
        affinity is not None
        and affinity.pod_anti_affinity is not None
        and bool(affinity.pod_anti_affinity.required)
    )


def _remove_by_uid(pod_infos: list[PodInfo], uid: str) -> PodInfo | None:
    """Remove by swapping in the last element, as upstream does (the order matters later)."""
    for index, pod_info in enumerate(pod_infos):
        if pod_info.pod.uid == uid:
            pod_infos[index] = pod_infos[-1]
            pod_infos.pop()
            return pod_info
    return None
