"""Why a pod fits nowhere: the Diagnosis of a cycle and the FitError message users read.

The message format is upstream's, word for word, because it is what kube-scheduler writes on
the FailedScheduling event and the PodScheduled condition:
``0/<all> nodes are available: <PreFilter msg>. <count reason, ...>. <PostFilter msg>``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


@dataclass(slots=True)
class Diagnosis:
    """Per-node statuses, the plugins that rejected or parked the pod, and the messages."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        """Remembers which plugin rejected (or parked) the pod, for requeueing decisions."""
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code == Code.PENDING:
            self.pending_plugins.add(status.plugin)


class FitError(Exception):
    """No node fits the pod. ``str()`` is the upstream message."""

    def __init__(self, pod: Any, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def __str__(self) -> str:
        message = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        diagnosis = self.diagnosis
        if diagnosis.pre_filter_msg:
            message += f" {diagnosis.pre_filter_msg}."
        else:
            histogram = self._reasons_histogram()
            if histogram:
                message += f" {', '.join(histogram)}."
        if diagnosis.post_filter_msg:
            message += f" {diagnosis.post_filter_msg}"
        return message

    def _reasons_histogram(self) -> list[str]:
        """``"<count> <reason>"`` for every reason, sorted as strings (as upstream sorts them)."""
        statuses = self.diagnosis.node_to_status
        # Alike nodes often share one Status object (NodeResourcesFit's failures): each object
        # is counted once, its reasons as many times as nodes have it.
        distinct = {id(status): status for _, status in statuses.items()}
        per_object = Counter(id(status) for _, status in statuses.items())
        counts: Counter[str] = Counter()
        for key, times in per_object.items():
            for reason in distinct[key].all_reasons():
                counts[reason] += times
        absent = self.num_all_nodes - len(statuses)
        if absent > 0:
            for reason in statuses.absent_nodes_status.all_reasons():
                counts[reason] += absent
        return sorted(f"{count} {reason}" for reason, count in counts.items())


class NoNodesAvailableError(Exception):
    """The cluster has no nodes at all (upstream ErrNoNodesAvailable)."""

    def __str__(self) -> str:
        return "no nodes available to schedule pods"
