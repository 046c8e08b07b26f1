"""What the scheduler knows of each pod group's members (upstream podgroupstate.go).

A member is in exactly one of three states: unscheduled (neither assumed nor bound), assumed
(past Reserve, typically waiting at Permit for the rest of its gang) or assigned (bound). The
cache keeps one live ``PodGroupState`` per group named by pending or bound pods (GenericWorkload
gate); a pod-group scheduling cycle works on a ``PodGroupStateSnapshot`` copied from it, so
what the cycle assumes never reaches the live state.

Every change takes a new generation from one counter shared by all groups, so a group deleted
and made again under the same name never repeats a generation a snapshot already holds.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

if TYPE_CHECKING:
    from framework.api.pod import Pod

_generations = itertools.count(1)
_generation_lock = threading.Lock()


def next_pod_group_generation() -> int:
    """A generation no pod group state has had yet."""
    with _generation_lock:
        return next(_generations)


@dataclass(frozen=True, slots=True)
class PodGroupKey:
    """One pod group: the namespace of its pods and ``spec.schedulingGroup.podGroupName``."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def pod_group_key(pod: Pod) -> PodGroupKey | None:
    """The group the pod names, or None for a pod outside any group."""
    name = pod.spec.pod_group_name
    return None if name is None else PodGroupKey(pod.namespace, name)


class PodGroupStateData:
    """The members of one group by state, each pod by uid (shared by the live state and its
    snapshots)."""

    __slots__ = ("all_pods", "assigned_pods", "assumed_pods", "generation", "unscheduled_pods")

    def __init__(self) -> None:
        self.generation = 0
        """Bumped on every change; a snapshot copies the state only when it moved on."""
        self.all_pods: dict[str, Pod] = {}
        self.unscheduled_pods: set[str] = set()
        self.assumed_pods: dict[str, Pod] = {}
        """The assumed version of each pod (it carries the node it was assumed on)."""
        self.assigned_pods: set[str] = set()

    def _bump(self) -> None:
        self.generation = next_pod_group_generation()

    def add_pod(self, pod: Pod) -> None:
        """A member the scheduler learnt of: assigned when it names a node, else unscheduled."""
        self._bump()
        self.all_pods[pod.uid] = pod
        if pod.spec.node_name:
            self.assigned_pods.add(pod.uid)
        else:
            self.unscheduled_pods.add(pod.uid)

    def update_pod(self, old_pod: Pod, new_pod: Pod) -> None:
        """A member changed; one that got its node (bound) is assigned from now on."""
        self._bump()
        self.all_pods[new_pod.uid] = new_pod
        if not old_pod.spec.node_name and new_pod.spec.node_name:
            self.assigned_pods.add(new_pod.uid)
            self.unscheduled_pods.discard(new_pod.uid)
            self.assumed_pods.pop(new_pod.uid, None)

    def delete_pod(self, uid: str) -> None:
        self._bump()
        self.all_pods.pop(uid, None)
        self.unscheduled_pods.discard(uid)
        self.assumed_pods.pop(uid, None)
        self.assigned_pods.discard(uid)

    def assume_pod(self, pod: Pod) -> None:
        """The pod passed Reserve. A pod no longer known (deleted meanwhile) is ignored; one
        already bound stays assigned."""
        stored = self.all_pods.get(pod.uid)
        if stored is None:
            return
        self._bump()
        if stored.spec.node_name:
            self.assigned_pods.add(pod.uid)
        else:
            self.assumed_pods[pod.uid] = pod
        self.unscheduled_pods.discard(pod.uid)

    def forget_pod(self, uid: str) -> None:
        """An assumed pod goes back to unscheduled (or stays assigned if it was bound)."""
        pod = self.all_pods.get(uid)
        if pod is None:
            return
        self._bump()
        self.assumed_pods.pop(uid, None)
        if pod.spec.node_name:
            self.assigned_pods.add(uid)
        else:
            self.unscheduled_pods.add(uid)

    def empty(self) -> bool:
        return not self.all_pods

    # Reads list members in the order the state learnt of them (sets would iterate in an
    # order that changes from run to run), so simulations stay deterministic.

    def all_pod_uids(self) -> list[str]:
        return list(self.all_pods)

    def all_pods_count(self) -> int:
        return len(self.all_pods)

    def unscheduled(self) -> dict[str, Pod]:
        """Members neither assumed nor bound, by pod name: the shape ``Handle.activate``
        takes (upstream UnscheduledPods)."""
        return {p.name: p for uid, p in self.all_pods.items() if uid in self.unscheduled_pods}

    def assumed_pod_uids(self) -> list[str]:
        return list(self.assumed_pods)

    def assigned_pod_uids(self) -> list[str]:
        return [uid for uid in self.all_pods if uid in self.assigned_pods]

    def scheduled_pods(self) -> list[Pod]:
        """Members assumed or bound: assigned pods first, then the assumed versions of the
        assumed ones."""
        assigned = (p for uid, p in self.all_pods.items() if uid in self.assigned_pods)
        return [*assigned, *self.assumed_pods.values()]

    def scheduled_pods_count(self) -> int:
        return len(self.assumed_pods) + len(self.assigned_pods)

    def _copy_into(self, other: PodGroupStateData) -> None:
        other.generation = self.generation
        other.all_pods = dict(self.all_pods)
        other.unscheduled_pods = set(self.unscheduled_pods)
        other.assumed_pods = dict(self.assumed_pods)
        other.assigned_pods = set(self.assigned_pods)


P = ParamSpec("P")
R = TypeVar("R")


def _locked(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """The data method, run under the live state's lock."""

    @wraps(method)
    def wrapper(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class PodGroupState(PodGroupStateData):
    """The live state of a group, in the cache. Binding cycles change it while plugins read it,
    so every access holds its lock; readers get copies."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.RLock()

    @_locked
    def snapshot(self) -> PodGroupStateSnapshot:
        """A copy for one pod-group scheduling cycle."""
        copy = PodGroupStateSnapshot()
        self._copy_into(copy)
        return copy


# Every read and change of the live state holds its lock.
for _method in (
    "add_pod",
    "update_pod",
    "delete_pod",
    "assume_pod",
    "forget_pod",
    "empty",
    "all_pod_uids",
    "all_pods_count",
    "unscheduled",
    "assumed_pod_uids",
    "assigned_pod_uids",
    "scheduled_pods",
    "scheduled_pods_count",
):
    setattr(PodGroupState, _method, _locked(getattr(PodGroupStateData, _method)))


class PodGroupStateSnapshot(PodGroupStateData):
    """A group's state as a pod-group cycle began; the cycle assumes and forgets in it alone."""

    __slots__ = ()


class PodGroupStateNotFoundError(LookupError):
    """No member of the group is known (upstream's error, word for word)."""

    def __init__(self, key: PodGroupKey) -> None:
        super().__init__(f"pod group state not found for pod group {key}")


class PodGroupStateLister:
    """Finds a group's state by namespace and name (upstream PodGroupStateLister): the
    cache's live states, or a snapshot's copies."""

    __slots__ = ("_lock", "_states")

    def __init__(self, states: Mapping[PodGroupKey, PodGroupStateData], lock: Any = None) -> None:
        self._states = states
        self._lock = lock if lock is not None else contextlib.nullcontext()

    def get(self, namespace: str, name: str) -> PodGroupStateData:
        """The group's state; PodGroupStateNotFoundError when no member of it is known."""
        key = PodGroupKey(namespace, name)
        with self._lock:
            state = self._states.get(key)
        if state is None:
            raise PodGroupStateNotFoundError(key)
        return state
