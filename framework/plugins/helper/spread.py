"""The selector default spreading uses: the labels of the pod's Services and its controller.

Upstream ``helper.DefaultSelector``. The objects come from the cluster (upstream's listers):
Services in the pod's namespace that select the pod, and the ReplicationController, ReplicaSet
or StatefulSet that controls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.api.labels import (
    Selector,
    SelectorError,
    label_selector_as_selector,
    selector_from_set,
)

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.cluster.interface import Cluster

_REPLICATION_CONTROLLER = ("", "v1", "ReplicationController")
_REPLICA_SET = ("apps", "v1", "ReplicaSet")
_STATEFUL_SET = ("apps", "v1", "StatefulSet")


def default_selector(pod: Pod, cluster: Cluster | None) -> Selector:
    """Merges the selectors of everything that selects or controls ``pod``.

    The objects all select the pod, so their label requirements cannot conflict. A cluster of
    None holds no objects.
    """
    label_set: dict[str, str] = {}
    for service in get_pod_services(cluster, pod):
        label_set.update(service.selector)
    selector = selector_from_set(label_set)

    owner = pod.metadata.controller_ref()
    if owner is None or cluster is None:
        return selector
    group_version = _parse_group_version(owner.api_version)
    if group_version is None:
        return selector
    gvk = (*group_version, owner.kind)
    if gvk == _REPLICATION_CONTROLLER:
        controller = cluster.get("ReplicationController", owner.name, pod.namespace)
        if controller is not None:
            label_set.update(controller.selector)
            selector = selector_from_set(label_set)
    elif gvk in (_REPLICA_SET, _STATEFUL_SET):
        workload = cluster.get(owner.kind, owner.name, pod.namespace)
        if workload is not None:
            selector = _add_workload_requirements(selector, workload)
    return selector


def get_pod_services(cluster: Cluster | None, pod: Pod) -> list[Any]:
    """The Services in the pod's namespace whose selector matches the pod's labels."""
    if cluster is None:
        return []
    return [
        service
        for service in cluster.list("Service", pod.namespace)
        if service.selector and selector_from_set(service.selector).matches(pod.labels)
    ]


def _add_workload_requirements(selector: Selector, workload: Any) -> Selector:
    """Adds a ReplicaSet's or StatefulSet's selector; one that does not parse adds nothing."""
    try:
        other = label_selector_as_selector(workload.selector)
    except SelectorError:
        return selector
    if other.matches_nothing():
        return selector
    return selector.add(*other.requirements)


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """``group/version`` or ``version`` (the core group); None when malformed, as upstream."""
    if not api_version:
        return ("", "")
    parts = api_version.split("/")
    if len(parts) == 1:
        return ("", parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1])
    return None
