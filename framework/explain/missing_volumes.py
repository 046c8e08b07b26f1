"""What the volume plugins find conflicting on a node.

VolumeZone's conflict is worked out from the topologies its PreFilter read (which PV wants
which zone); the other volume plugins' reasons already name the conflict (no PV to bind, the
PV's node affinity, a disk or ReadWriteOncePod claim in use, the attach limit), so they are
given with the pod's claims they concern.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework.interface.cycle_state import NotFoundError
from framework.plugins.volumezone.volume_zone import PRE_FILTER_STATE_KEY as ZONE_STATE_KEY

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo
    from framework.interface.status import Status


def volume_zone(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """``PV pv-a wants topology.kubernetes.io/zone in (zone-a); node has zone-b``."""
    try:
        topologies = run.state_for(node).read(ZONE_STATE_KEY).pod_pv_topologies
    except NotFoundError:
        return ""
    labels = node.node.labels
    problems = []
    for topology in topologies:
        value = labels.get(topology.key)
        if value is None or value not in topology.values:
            has = f"node has `{topology.key}={value}`" if value else f"node has no `{topology.key}`"
            wanted = ", ".join(sorted(topology.values))
            problems.append(f"PV {topology.pv_name} wants {topology.key} in ({wanted}); {has}")
    return "; ".join(problems)


def volume_conflicts(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """The plugin's reasons, with the pod's PersistentVolumeClaims they are about."""
    claims = [
        v.persistent_volume_claim.claim_name
        for v in run.pod.spec.volumes
        if getattr(v, "persistent_volume_claim", None) is not None
    ]
    reasons = status.message()
    return f"{reasons} (the pod's claims: {', '.join(claims)})" if claims else reasons
