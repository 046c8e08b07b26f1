"""TopologyPlacementGenerator: one placement per topology domain of a pod group's constraint
(upstream topologyaware/topology_placement.go, TopologyAwareWorkloadScheduling).

A PodGroup whose ``schedulingConstraints.topology`` names a key (only the first counts: the API
allows one) is tried in each domain of that key in turn, the nodes without the label left out;
once some members are scheduled, only their domain is. A group without constraints keeps the
parent placement whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.api.pod_group import PodGroup
from framework.interface.placement import GeneratePlacementsResult, Placement
from framework.interface.plugins import PlacementGeneratePlugin
from framework.interface.status import Status
from framework.plugins import names
from framework.plugins.feature import Features
from framework.storage.lookup import NotFoundError, get_object

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.cycle_state import CycleState
    from framework.interface.node_info import NodeInfo
    from framework.interface.pod_group_info import PodGroupInfo

POD_GROUP_RESOURCE = "podgroup.scheduling.k8s.io"
"""How a missing PodGroup is named in NotFound errors."""


class TopologyPlacement(PlacementGeneratePlugin):
    """Splits the nodes by the value of the group's topology key."""

    name = names.TOPOLOGY_PLACEMENT_GENERATOR

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle

    def generate_placements(
        self, state: CycleState, pod_group: PodGroupInfo, parent_placement: Placement
    ) -> tuple[GeneratePlacementsResult | None, Status | None]:
        try:
            group = get_object(
                self.handle.cluster(),
                "PodGroup",
                POD_GROUP_RESOURCE,
                pod_group.name,
                pod_group.namespace,
            )
        except NotFoundError as err:
            return None, Status.as_status(err)
        topology_key = _topology_key(group)
        if topology_key is None:
            return GeneratePlacementsResult([parent_placement]), None
        try:
            required_domain = self._scheduled_pods_domain(pod_group, topology_key)
        except LookupError as err:
            return None, Status.as_status(err)
        domains: dict[str, list[NodeInfo]] = {}
        for node_info in parent_placement.nodes:
            domain = node_info.node.labels.get(topology_key)
            if domain is not None and required_domain in (None, domain):
                domains.setdefault(domain, []).append(node_info)
        placements = [Placement(domain, nodes) for domain, nodes in domains.items()]
        return GeneratePlacementsResult(placements), None

    def _scheduled_pods_domain(self, pod_group: PodGroupInfo, topology_key: str) -> str | None:
        """The one domain of the group's scheduled (assumed or bound) members; None when
        none is scheduled. LookupError when they span several or stand outside any."""
        lister = self.handle.snapshot_shared_lister()
        scheduled = lister.pod_group_states().get(pod_group.namespace, pod_group.name)
        domain = None
        for pod in scheduled.scheduled_pods():
            try:
                pod_domain = self._domain_of(lister, pod, topology_key)
            except LookupError as err:
                raise LookupError(
                    f"cannot determine domain for already scheduled pods: {err}"
                ) from err
            if domain is not None and domain != pod_domain:
                raise LookupError(
                    "cannot determine domain for already scheduled pods: "
                    f"more than 1 domain found for pod group: {domain}, {pod_domain}"
                )
            domain = pod_domain
        return domain

    @staticmethod
    def _domain_of(lister: Any, pod: Pod, topology_key: str) -> str:
        try:
            node_info = lister.node_infos().get(pod.spec.node_name)
        except KeyError as err:
            raise LookupError(f"getting node for pod {pod.key}: {err}") from err
        domain = node_info.node.labels.get(topology_key)
        if domain is None:
            raise LookupError(f"no topology domain found for pod {pod.key}")
        return domain


def _topology_key(group: PodGroup) -> str | None:
    keys = group.spec.topology_keys
    return keys[0] if keys else None
