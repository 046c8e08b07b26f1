"""A recording's changes played into a Simulation, each at its time on the fake clock.

Before each change the scheduler schedules whatever is due until the change's time (pods in
backoff whose time has not come wait), then the change is applied as a client would apply it:

- ADDED: the manifest decoded strictly and validated as kube-apiserver creates it, with the
  cluster's Namespaces, PriorityClasses and RuntimeClasses for admission;
- MODIFIED: the server's state, as the playground's replay stores it, except for a pod's
  placement: ``spec.nodeName`` and ``status.nominatedNodeName`` stay the simulated scheduler's
  (the recorded cluster's scheduler bound it somewhere, and that is the very decision being
  compared); an update of a pod the simulation no longer has (it preempted it) is skipped;
- DELETED: the object deleted if the simulation has it.

After the last change the scheduler runs until its queue is idle, as ``simulate`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.admission.admit import FIRST_KINDS, create_objects
from framework.api.errors import ObjectError
from framework.api.loader import NewObject, decode_new_object, parse_object
from framework.api.pod import Pod
from framework.cluster.memory import InMemoryCluster
from framework.compare.errors import CompareError
from framework.compare.recording import Change
from framework.simulator import SIMULATION_EPOCH, Simulation


def replay(simulation: Simulation, changes: Sequence[Change]) -> None:
    """Creates the simulation's pending pods, then applies every change at its time."""
    simulation.create(simulation.pending, settle=False)
    for change in changes:
        simulation.schedule_until(SIMULATION_EPOCH + change.t)
        try:
            simulation.change_from_outside(lambda cluster, c=change: apply(cluster, c))
        except ObjectError as err:
            raise CompareError(f"line {change.line}: refused: {err}", part="recording") from None
    simulation.settle()


def apply(cluster: InMemoryCluster, change: Change) -> None:
    """Applies one change to the cluster (see the module's docstring)."""
    if change.type == "DELETED":
        _delete(cluster, change.object)
    elif change.type == "MODIFIED":
        _update(cluster, parse_object(change.object))
    else:
        cluster.add(_admitted(cluster, change.object))


def _delete(cluster: InMemoryCluster, manifest: dict[str, Any]) -> None:
    gone = parse_object(manifest)
    stored = cluster.get(gone.kind, gone.name, gone.namespace)
    if stored is not None:
        cluster.delete(stored)


def _update(cluster: InMemoryCluster, obj: Any) -> None:
    if isinstance(obj, Pod):
        current = cluster.get("Pod", obj.name, obj.namespace)
        if current is None:
            return  # preempted (or never created) here: the recorded cluster's update is moot
        obj.spec.node_name = current.spec.node_name
        obj.status.nominated_node_name = current.status.nominated_node_name
    cluster.add(obj)


def _admitted(cluster: InMemoryCluster, manifest: dict[str, Any]) -> Any:
    """The object as kube-apiserver creates it in this cluster; ObjectError if refused."""
    context = [
        NewObject(obj, obj.to_dict(), obj.to_dict())
        for kind in FIRST_KINDS
        for obj in cluster.list(kind)
    ]
    created, refused = create_objects([*context, decode_new_object(manifest)])
    if len(created) <= len(context):
        raise refused[-1]
    return created[-1]
