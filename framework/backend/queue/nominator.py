"""Pods nominated to nodes by preemption, waiting for the victims to leave.

The scheduler records a nomination here before the pod's status says so, and filtering
other pods counts the nominated ones as if they already ran there, so the room that
preemption freed is not taken by someone else. Pods are held by reference (name,
namespace, uid); the queue turns references back into its current PodInfos.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from framework.api.meta import ObjectMeta
from framework.api.pod import Pod
from framework.backend.queue.keys import pod_full_name_of, pod_key_of
from framework.interface.node_info import PodInfo
from framework.interface.types import NominatingInfo, NominatingMode, nominating_mode

PodLister = Callable[[str, str], Pod | None]
"""``(namespace, name) -> Pod | None``: the cluster's current version of a pod."""


@dataclass(frozen=True, slots=True)
class PodRef:
    name: str
    namespace: str
    uid: str
    key: str = field(init=False, repr=False, compare=False)
    """``pod_key``: the active and backoff queues' index (filtering looks pods up by it)."""
    full_name: str = field(init=False, repr=False, compare=False)
    """``pod_full_name``: the unschedulable pods' index."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", pod_key_of(self.namespace, self.name))
        object.__setattr__(self, "full_name", pod_full_name_of(self.name, self.namespace))

    @classmethod
    def of(cls, pod: Pod) -> PodRef:
        return cls(pod.name, pod.namespace, pod.uid)

    def to_pod(self) -> Pod:
        """A pod carrying only the identity (what upstream hands out for unqueued pods)."""
        return Pod(ObjectMeta(name=self.name, namespace=self.namespace, uid=self.uid))


class Nominator:
    """Nominated pods by node, in nomination order, and each pod's node."""

    __slots__ = ("_node_names", "_pod_lister", "nominated_pod_to_node", "nominated_pods")

    def __init__(self, pod_lister: PodLister | None = None) -> None:
        self._pod_lister = pod_lister
        self.nominated_pods: dict[str, list[PodRef]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}
        self._node_names: frozenset[str] | None = frozenset()

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        """Nominates the pod to the node ``nominating_info`` names, or to its status's node.

        With no override, a pod without ``status.nominatedNodeName`` is not nominated. A pod
        the cluster no longer has, or that is already bound, is not nominated either.
        """
        pod = pod_info.pod
        self.delete_nominated_pod_if_exists(pod)
        if nominating_mode(nominating_info) == NominatingMode.OVERRIDE:
            node_name = nominating_info.nominated_node_name  # type: ignore[union-attr]
        else:
            node_name = pod.status.nominated_node_name
            if not node_name:
                return
        if not self._is_pending_in_cluster(pod):
            return
        self.nominated_pod_to_node[pod.uid] = node_name
        if node_name not in self.nominated_pods:
            self._node_names = None
        refs = self.nominated_pods.setdefault(node_name, [])
        if all(ref.uid != pod.uid for ref in refs):
            refs.append(PodRef.of(pod))

    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None:
        """Re-nominates the new version of the pod.

        An update that neither sets nor clears ``nominatedNodeName`` keeps the nomination the
        scheduler made in memory: the status write may simply not have arrived yet.
        """
        nominating_info = None
        if (
            not old_pod.status.nominated_node_name
            and not new_pod_info.pod.status.nominated_node_name
        ):
            node_name = self.nominated_pod_to_node.get(old_pod.uid)
            if node_name is not None:
                nominating_info = NominatingInfo(node_name, NominatingMode.OVERRIDE)
        self.delete_nominated_pod_if_exists(old_pod)
        self.add_nominated_pod(new_pod_info, nominating_info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        node_name = self.nominated_pod_to_node.pop(pod.uid, None)
        if node_name is None:
            return
        refs = self.nominated_pods.get(node_name, [])
        for index, ref in enumerate(refs):
            if ref.uid == pod.uid:
                del refs[index]
                break
        if not refs:
            self.nominated_pods.pop(node_name, None)
            self._node_names = None

    def node_names(self) -> frozenset[str]:
        """The nodes that have nominated pods. Kept until a node gains its first nominated pod
        or loses its last: filtering and every step of preemption's dry run ask for it, and
        late in a preemption wave there are as many such nodes as nodes."""
        if self._node_names is None:
            self._node_names = frozenset(self.nominated_pods)
        return self._node_names

    def nominated_pods_for_node(self, node_name: str) -> list[PodRef]:
        """References to the pods nominated to the node, in nomination order."""
        return list(self.nominated_pods.get(node_name, ()))

    def _is_pending_in_cluster(self, pod: Pod) -> bool:
        if self._pod_lister is None:
            return True
        current = self._pod_lister(pod.namespace, pod.name)
        return current is not None and not current.spec.node_name
