"""How evenly each workload's pods are spread over each topology key at the end of a run.

A workload is the pods of one controller (their controller owner reference), or else of one
``app`` label value, in one namespace; pods with neither belong to none. Its skew on a key is
PodTopologySpread's: the most pods in one domain minus the fewest, over every domain of the
key (every value some node carries, so a domain with none of its pods counts as 0).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from framework.api.pod import Pod
from framework.interface.node_info import NodeInfo

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
TOPOLOGY_KEYS = (ZONE, HOSTNAME)


def workload_of(pod: Pod) -> str | None:
    """``ns/Kind/name`` of the pod's controller, else ``ns/app=value``, else None."""
    owner = pod.metadata.controller_ref()
    if owner is not None:
        return f"{pod.namespace}/{owner.kind}/{owner.name}"
    app = pod.labels.get("app")
    return f"{pod.namespace}/app={app}" if app is not None else None


def skew(
    node_infos: Sequence[NodeInfo], keys: Sequence[str] = TOPOLOGY_KEYS
) -> list[dict[str, Any]]:
    """The report's ``skew`` list: one entry per workload and key the workload's nodes
    carry, sorted by workload then key."""
    pods_by_workload: dict[str, list[NodeInfo]] = defaultdict(list)
    for info in node_infos:
        for pod_info in info.pods:
            workload = workload_of(pod_info.pod)
            if workload is not None:
                pods_by_workload[workload].append(info)
    entries = []
    for key in keys:
        domains = {info.node.labels[key] for info in node_infos if key in info.node.labels}
        if not domains:
            continue
        for workload, nodes in pods_by_workload.items():
            counts = Counter(info.node.labels[key] for info in nodes if key in info.node.labels)
            if not counts:
                continue
            least = 0 if len(counts) < len(domains) else min(counts.values())
            entries.append(
                {
                    "workload": workload,
                    "topologyKey": key,
                    "skew": max(counts.values()) - least,
                    "counts": dict(sorted(counts.items())),
                }
            )
    return sorted(entries, key=lambda entry: entry["workload"])  # stable: keys stay in order
