"""DefaultBinder: binds the pod through the cluster (the Binding subresource)."""

from __future__ import annotations

from typing import Any

from framework.api.pod import Pod
from framework.cluster.interface import BindError
from framework.interface.cycle_state import CycleState
from framework.interface.plugins import BindPlugin
from framework.interface.status import Status
from framework.plugins import names
from framework.plugins.feature import Features


class DefaultBinder(BindPlugin):
    """Asks the cluster to bind; a refusal becomes an Error status carrying its text."""

    name = names.DEFAULT_BINDER

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        cluster = self.handle.cluster()
        if cluster is None:
            return Status.error("DefaultBinder: the framework has no cluster to bind through")
        try:
            cluster.bind(pod.namespace, pod.name, pod.uid, node_name)
        except BindError as err:
            return Status.as_status(err)
        return None
