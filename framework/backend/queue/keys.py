"""How the queues identify a pod: by namespace and name, never by the object itself.

An updated pod is a new object with the same key, so lookups by key find the queued
version to replace.
"""

from __future__ import annotations

from framework.api.pod import Pod
from framework.interface.types import QueuedPodInfo


def pod_key(pod: Pod) -> str:
    """``namespace/name``: the key of the active and backoff heaps."""
    return pod.key


def pod_key_of(namespace: str, name: str) -> str:
    """``pod_key`` of the pod with this namespace and name, without the pod at hand."""
    return f"{namespace}/{name}" if namespace else name


def pod_info_key(pod_info: QueuedPodInfo) -> str:
    return pod_info.pod_info.pod.key


def pod_full_name(pod: Pod) -> str:
    """``name_namespace``: the key of the unschedulable pool, as upstream's GetPodFullName."""
    return pod_full_name_of(pod.name, pod.namespace)


def pod_full_name_of(name: str, namespace: str) -> str:
    return f"{name}_{namespace}"
