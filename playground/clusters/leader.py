"""Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it.

Two playground instances (or two workspaces) scheduling the same cluster's pods must never
both bind: like kube-scheduler replicas, they hold a Lease in the cluster and only its holder
schedules. The algorithm is client-go's ``tryAcquireOrRenew`` with a ``LeaseLock``:

- get the Lease; create it (holding it) if there is none;
- a Lease held by someone else is left alone until ``leaseDuration`` has passed since *we*
  last saw its record change (``observedTime``, on our own clock: the holder's clock, written in
  ``renewTime``, is never trusted);
- otherwise update it with the resourceVersion read, so of two candidates only one wins (the
  other gets 409 Conflict); ``leaseTransitions`` grows by one when the holder changes, and a
  holder renewing keeps its ``acquireTime``;
- the holder renews every ``retryPeriod``; if no renewal succeeded for ``renewDeadline``
  (counted from when the renewal round began), leadership is lost;
- on stop, the holder releases the Lease (ReleaseOnCancel): an empty holderIdentity,
  ``leaseDurationSeconds`` 1, acquire and renew time now, transitions kept.

The elector is driven from its owner's loop (``tick()``), with no thread of its own, so the
scheduler service decides when to ask and tests use a FakeClock. Times are written as
client-go's MicroTime (``2006-01-02T15:04:05.000000Z``).
"""

from __future__ import annotations

import json
import logging
import socket
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from kubernetes.client import ApiClient, CoordinationV1Api
from kubernetes.client.exceptions import ApiException

from framework.util.clock import Clock
from playground.clusters.problems import describe

logger = logging.getLogger(__name__)

LEASE_DURATION = 15.0
RENEW_DEADLINE = 10.0
RETRY_PERIOD = 2.0
LEASE_NAME = "playground-scheduler"
"""Replaces kube-scheduler's default ``kube-scheduler``: the playground never contends for
the real scheduler's Lease."""
UPSTREAM_LEASE_NAME = "kube-scheduler"
LEASE_NAMESPACE = "kube-system"
NOT_FOUND, CONFLICT = 404, 409


def new_identity() -> str:
    """``<hostname>_<uuid>``, as kube-scheduler makes its identity."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def micro_time(seconds: float) -> str:
    """A time as metav1.MicroTime writes it (RFC 3339 with microseconds, UTC)."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True)
class ElectionConfig:
    """Where the Lease is and how long things take (KubeSchedulerConfiguration leaderElection)."""

    namespace: str = LEASE_NAMESPACE
    name: str = LEASE_NAME
    lease_duration: float = LEASE_DURATION
    renew_deadline: float = RENEW_DEADLINE
    retry_period: float = RETRY_PERIOD

    @classmethod
    def from_configuration(cls, cfg: Any) -> ElectionConfig:
        """From a defaulted KubeSchedulerConfiguration; its default name ``kube-scheduler``
        becomes ``playground-scheduler``."""
        election = cfg.leader_election
        name = election.resource_name or LEASE_NAME
        return cls(
            namespace=election.resource_namespace or LEASE_NAMESPACE,
            name=LEASE_NAME if name == UPSTREAM_LEASE_NAME else name,
            lease_duration=election.lease_duration.total_seconds() or LEASE_DURATION,
            renew_deadline=election.renew_deadline.total_seconds() or RENEW_DEADLINE,
            retry_period=election.retry_period.total_seconds() or RETRY_PERIOD,
        )


@dataclass(frozen=True, slots=True)
class Record:
    """client-go's LeaderElectionRecord: what a Lease's spec says."""

    holder: str = ""
    lease_duration_seconds: int = 0
    acquire_time: str = ""
    renew_time: str = ""
    transitions: int = 0

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> Record:
        return cls(
            holder=spec.get("holderIdentity") or "",
            lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=spec.get("acquireTime") or "",
            renew_time=spec.get("renewTime") or "",
            transitions=int(spec.get("leaseTransitions") or 0),
        )

    def to_spec(self) -> dict[str, Any]:
        return {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": self.lease_duration_seconds,
            "acquireTime": self.acquire_time,
            "renewTime": self.renew_time,
            "leaseTransitions": self.transitions,
        }


class LeaderElector:
    """One candidate for a Lease: ``tick()`` tries to acquire or renew when it is time."""

    def __init__(
        self,
        api_client: ApiClient,
        config: ElectionConfig,
        clock: Clock,
        identity: str | None = None,
    ) -> None:
        self.api = CoordinationV1Api(api_client)
        self.config = config
        self.clock = clock
        self.identity = identity or new_identity()
        self.observed = Record()
        self.observed_time = float("-inf")
        self._observed_raw: dict[str, Any] | None = None
        self._lease: dict[str, Any] | None = None
        """The Lease last read or written: an update sends its resourceVersion."""
        self.leading = False
        self._renewed_at = float("-inf")
        self._next_try = float("-inf")
        self.error = ""
        """Why the last try failed to reach the server ("" when it did)."""

    # ------------------------------------------------------------------------------------------
    # Driving

    def tick(self) -> bool:
        """Acquires or renews when ``retryPeriod`` has passed since the last try; returns
        whether we lead. Leadership ends once no renewal succeeded for ``renewDeadline``."""
        now = self.clock.now()
        if now >= self._next_try:
            self._next_try = now + self.config.retry_period
            if self.try_acquire_or_renew():
                self._renewed_at = now
                if not self.leading:
                    logger.info("%s acquired lease %s", self.identity, self.describe())
                self.leading = True
        if self.leading and self._renewal_overdue(now):
            logger.info("%s failed to renew lease %s", self.identity, self.describe())
            self.leading = False
        return self.is_leader()

    def is_leader(self) -> bool:
        """Leading, and the record we last saw names us (client-go's IsLeader)."""
        return self.leading and self.observed.holder == self.identity

    def holder(self) -> str:
        """Who holds the Lease, as we last saw it ("" for nobody)."""
        return self.observed.holder

    def describe(self) -> str:
        return f"{self.config.namespace}/{self.config.name}"

    def _renewal_overdue(self, now: float) -> bool:
        """client-go starts a renewal round ``retryPeriod`` after a success and gives it
        ``renewDeadline`` to succeed."""
        return now - self._renewed_at >= self.config.retry_period + self.config.renew_deadline

    # ------------------------------------------------------------------------------------------
    # client-go's tryAcquireOrRenew and release

    def try_acquire_or_renew(self) -> bool:
        """One attempt, in client-go's four steps; True when we hold the Lease after it.
        A failed call is kept in ``error`` (its kind and the server's message only)."""
        now = self.clock.now()
        record = Record(
            holder=self.identity,
            lease_duration_seconds=int(self.config.lease_duration),
            acquire_time=micro_time(now),
            renew_time=micro_time(now),
        )
        self.error = ""
        try:
            # 1. The leader's fast path: update what it wrote last time.
            if self.is_leader() and self._lease_valid(now):
                fast = replace(
                    record,
                    acquire_time=self.observed.acquire_time,
                    transitions=self.observed.transitions,
                )
                try:
                    self._update(fast)
                    self._observe(fast, now)
                    return True
                except ApiException as err:
                    logger.debug("fast renewal of %s failed: %s", self.describe(), err.status)
            # 2. Get the Lease, or create it.
            try:
                current = self._get()
            except ApiException as err:
                if err.status != NOT_FOUND:
                    raise
                self._create(record)
                self._observe(record, now)
                return True
            # 3. Someone else's and still valid: not ours.
            old = Record.from_spec(current.get("spec") or {})
            if current.get("spec") != self._observed_raw:
                self._observe(old, now)
                self._observed_raw = current.get("spec")
            if old.holder and self._lease_valid(now) and not self.is_leader():
                return False
            # 4. Take it over (or renew on the slow path).
            if self.is_leader():
                record = replace(record, acquire_time=old.acquire_time, transitions=old.transitions)
            else:
                record = replace(record, transitions=old.transitions + 1)
            self._update(record)
            self._observe(record, now)
            return True
        except Exception as err:  # 403, 409 (lost a race), unreachable, TLS...
            self.error = f"{self.describe()}: {describe(err)}"
            return False

    def release(self) -> bool:
        """Gives the Lease up if we hold it (ReleaseOnCancel): a successor need not wait.
        The next ``tick()`` tries to acquire it again at once."""
        self.leading = False
        self._next_try = float("-inf")
        try:
            current = self._get()
        except Exception:
            return False
        if Record.from_spec(current.get("spec") or {}).holder != self.identity:
            return True
        now = micro_time(self.clock.now())
        released = Record(
            holder="",
            lease_duration_seconds=1,
            acquire_time=now,
            renew_time=now,
            transitions=self.observed.transitions,
        )
        try:
            self._update(released)
        except Exception:
            logger.warning("%s could not release lease %s", self.identity, self.describe())
            return False
        self._observe(released, self.clock.now())
        return True

    def _lease_valid(self, now: float) -> bool:
        return self.observed_time + self.observed.lease_duration_seconds > now

    def _observe(self, record: Record, now: float) -> None:
        self.observed, self.observed_time = record, now

    # ------------------------------------------------------------------------------------------
    # The Lease through the official client (JSON in, JSON out)

    def _get(self) -> dict[str, Any]:
        response = self.api.read_namespaced_lease(
            self.config.name, self.config.namespace, _preload_content=False
        )
        self._lease = json.loads(response.data)
        return self._lease

    def _create(self, record: Record) -> None:
        body = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.config.name, "namespace": self.config.namespace},
            "spec": record.to_spec(),
        }
        response = self.api.create_namespaced_lease(
            self.config.namespace, body, _preload_content=False
        )
        self._lease = json.loads(response.data)
        self._observed_raw = self._lease.get("spec")

    def _update(self, record: Record) -> None:
        if self._lease is None:
            raise ApiException(status=CONFLICT, reason="lease not initialized, get it first")
        body = {**self._lease, "spec": record.to_spec()}
        response = self.api.replace_namespaced_lease(
            self.config.name, self.config.namespace, body, _preload_content=False
        )
        self._lease = json.loads(response.data)
        self._observed_raw = self._lease.get("spec")
