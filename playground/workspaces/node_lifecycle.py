"""What kube-controller-manager's node lifecycle controller does to a node's taints.

In a cluster, cordoning a node (``spec.unschedulable: true``) is followed within moments by the
controller adding the ``node.kubernetes.io/unschedulable:NoSchedule`` taint, and uncordoning by
its removal. Without the removal a person who uncordons a node in the playground would see pods
still rejected by TaintToleration. The playground applies the controller's rule as each Node is
written, in the same write (the controller writes a moment later; the scheduler's
NodeUnschedulable plugin rejects a cordoned node either way). The taints it derives from node
conditions (not-ready, unreachable, memory / disk / PID pressure, network unavailable) are not
emulated: see docs/fidelity.md.
"""

from __future__ import annotations

from typing import Any

UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"
NO_SCHEDULE = "NoSchedule"


def reconcile_unschedulable_taint(manifest: dict[str, Any]) -> None:
    """Adds or removes the unschedulable taint of a Node manifest, in place, to match
    ``spec.unschedulable``, as the controller's NoSchedule tainting pass does.

    A taint is matched by key and effect only, so an existing one with a value is kept; one with
    another effect is not the controller's and is left alone. A new taint goes last, without a
    value or a time added (NoSchedule taints carry none).
    """
    spec = manifest.setdefault("spec", {})
    taints = spec.get("taints") or []
    present = any(_is_unschedulable_taint(taint) for taint in taints)
    if spec.get("unschedulable") and not present:
        spec["taints"] = [*taints, {"key": UNSCHEDULABLE_TAINT_KEY, "effect": NO_SCHEDULE}]
    elif not spec.get("unschedulable") and present:
        kept = [taint for taint in taints if not _is_unschedulable_taint(taint)]
        if kept:
            spec["taints"] = kept
        else:
            spec.pop("taints", None)


def _is_unschedulable_taint(taint: dict[str, Any]) -> bool:
    return taint.get("key") == UNSCHEDULABLE_TAINT_KEY and taint.get("effect") == NO_SCHEDULE
