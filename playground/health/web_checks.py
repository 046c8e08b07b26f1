"""The web process's checks, and which endpoint runs which.

- ``/livez`` (restart the process when it fails): ``ping`` only, as kube-scheduler. Answering
  at all proves what a restart could mend: the server accepts connections and Django's request
  thread (every page's) is free. The database and Redis are other processes; a restart mends
  neither, so their outages must not restart the web process.
- ``/readyz`` (take the process out of the Service's endpoints): ``database`` (a query) and
  ``channel-layer`` (a message sent to and received from the channel layer: Redis in
  production, the in-memory layer in the embedded mode), without which no page works.
- ``/healthz`` (deprecated upstream, kept for probes written for it): the same as ``/livez``, as
  kube-scheduler's carries only what a restart mends (its leader election's renewals).

In the embedded mode the web process is also the scheduler worker, and its endpoints carry
kube-scheduler's ``leaderElection`` where kube-scheduler does (``/healthz`` and ``/readyz``):
every scheduler lease this process holds was renewed within the lease's duration plus 20
seconds (``worker_checks``).
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from playground.health.database_check import database
from playground.health.healthz import HealthCheck
from playground.health.worker_checks import default_max_age, lease_check
from playground.workspaces.models import SchedulerLease

CHANNEL_LAYER_TIMEOUT = 2.0
"""Seconds the channel layer's round trip may take (probes' own timeout: give them 5)."""


def ping() -> None:
    """Passes: answering is the check (upstream's PingHealthz)."""


def channel_layer() -> None:
    """A message to a fresh channel and back, through the process's channel layer."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    async_to_sync(_round_trip)(layer)


async def _round_trip(layer: object) -> None:
    channel = f"health.{uuid.uuid4().hex}"
    nonce = uuid.uuid4().hex
    async with asyncio.timeout(CHANNEL_LAYER_TIMEOUT):
        await layer.send(channel, {"type": "health.check", "nonce": nonce})
        received = await layer.receive(channel)
    if received.get("nonce") != nonce:
        raise RuntimeError("the channel layer returned another message")


PING = HealthCheck("ping", ping)
READINESS = [HealthCheck("database", database), HealthCheck("channel-layer", channel_layer)]


def endpoints() -> dict[str, list[HealthCheck]]:
    """The checks of each endpoint, in the order ``?verbose`` lists them."""
    if not settings.EMBEDDED_WORKER:
        return {"healthz": [PING], "livez": [PING], "readyz": READINESS}
    this_process = f"{socket.gethostname()}:{os.getpid()}:"
    election = HealthCheck(
        "leaderElection", lease_check(SchedulerLease, "workspace", this_process, default_max_age())
    )
    return {"healthz": [election], "livez": [PING], "readyz": [election, *READINESS]}
