"""The second scheduler: what a workspace standing for a live cluster asks before it schedules.

A workspace linked to a connection (``ClusterConnection.workspace``) holds the cluster's
objects, mirrored. Its scheduler service schedules them for real only when the connection's
``second_scheduler`` switch is on *and* it leads the cluster's Lease (``leader``); otherwise
it is on standby and says why. The switches are read again on every tick of the service, so
turning one off (page, admin, command, or a plain database update) reaches it at once.

While active, the service's cluster is a ``LiveInformerCluster`` (``live_cluster``): its
writes go to the API server. Binding tasks check the same three things before each batch
(``fence``): the scheduler's own lease generation (the caller's), the switch, and the cluster
Lease still naming the identity the service leads with.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from kubernetes.client import ApiClient, CoordinationV1Api

from framework.util.clock import Clock
from playground.clusters.connecting import api_client
from playground.clusters.leader import ElectionConfig, LeaderElector
from playground.clusters.live_cluster import LiveInformerCluster
from playground.clusters.live_writes import LiveWrites
from playground.clusters.models import ClusterConnection
from playground.clusters.problems import describe

logger = logging.getLogger(__name__)

OFF = "second scheduler off"


@dataclass(frozen=True, slots=True)
class Switches:
    """A linked connection's switches, as stored now."""

    connection_id: int
    second_scheduler: bool
    preemption: bool


def linked_switches(workspace_id: int) -> Switches | None:
    """The switches of the connection standing for the workspace (None: an ordinary
    workspace). One small query: the service asks on every tick."""
    row = (
        ClusterConnection.objects.filter(workspace_id=workspace_id)
        .order_by("pk")
        .values_list("pk", "second_scheduler", "preemption")
        .first()
    )
    return Switches(*row) if row is not None else None


class SecondScheduler:
    """One service's side of a linked connection: the API client, the elector, the writes."""

    def __init__(
        self,
        workspace_id: int,
        switches: Switches,
        clock: Clock,
        election: ElectionConfig,
        client: ApiClient | None = None,
        identity: str | None = None,
    ) -> None:
        self.workspace_id = workspace_id
        self.switches = switches
        self.clock = clock
        self.client = client or api_client(ClusterConnection.objects.get(pk=switches.connection_id))
        self.elector = LeaderElector(self.client, election, clock, identity)
        self.writes = LiveWrites(self.client, clock)
        self.active = False
        self.standby = OFF

    @property
    def connection_id(self) -> int:
        return self.switches.connection_id

    @property
    def identity(self) -> str:
        return self.elector.identity

    def tick(self, switches: Switches) -> bool:
        """Follows the switches and the Lease; returns whether the service may schedule now.
        With the switch off, a Lease we hold is released at once for another instance."""
        self.switches = switches
        if not switches.second_scheduler:
            if self.elector.leading:
                self.elector.release()
            self.active, self.standby = False, OFF
            return False
        self.active = self.elector.tick()
        self.standby = "" if self.active else self._why_not_leading()
        return self.active

    def _why_not_leading(self) -> str:
        if self.elector.error:
            return f"standby: the cluster lease cannot be read ({self.elector.error})"
        holder = self.elector.holder()
        if holder and holder != self.identity:
            return f"standby: the cluster lease is held by {holder}"
        return "standby: waiting for the cluster lease"

    def cluster(self, on_pod_deleted: Any = None) -> LiveInformerCluster:
        return LiveInformerCluster(self.workspace_id, self.writes, on_pod_deleted)

    def stop(self) -> None:
        """Releases the Lease if held (client-go's ReleaseOnCancel) and closes the client."""
        if self.elector.leading:
            self.elector.release()
        self.active = False
        self.client.close()


def still_leads(client: ApiClient, lease: str, identity: str) -> str:
    """Why a binding task must not bind for ``identity`` ("" when the cluster Lease
    ``namespace/name`` still names it as its holder: nobody else can have taken it over)."""
    namespace, _, name = lease.partition("/")
    try:
        response = CoordinationV1Api(client).read_namespaced_lease(
            name, namespace, _preload_content=False
        )
        holder = (json.loads(response.data).get("spec") or {}).get("holderIdentity") or ""
    except Exception as err:
        return f"the cluster lease cannot be read: {describe(err)}"
    if holder != identity:
        return f"the cluster lease is held by {holder or 'nobody'}, not by this scheduler"
    return ""
