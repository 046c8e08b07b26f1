"""What the playground stores: workspaces, their configuration, cluster objects and history.

Cluster objects keep the full manifest as JSON beside the indexed columns queries need; every
change is appended to ObjectChange, the log the scheduler service follows like a watch.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Any

import orjson
from django.conf import settings
from django.db import models
from django.db.models import Max
from django.urls import reverse

from framework.debugger.breakpoints import Breakpoint as EngineBreakpoint
from playground.workspaces.fields import JSONField

TRACE_COMPRESSION = 1
"""zlib level of stored traces: the fastest (see AttemptTrace)."""


class Workspace(models.Model):
    """An isolated simulated cluster with its own scheduler configuration, owned by a user."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspaces"
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_workspaces"
    )
    paused = models.BooleanField(default=False, help_text="The scheduler stops popping pods.")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("workspace", args=[self.slug])

    def can_access(self, user: Any) -> bool:
        """Owners and members may see and change the workspace (and open its websockets)."""
        if not user.is_authenticated:
            return False
        return (
            user.is_superuser
            or self.owner_id == user.id
            or self.members.filter(pk=user.pk).exists()
        )

    def can_delete(self, user: Any) -> bool:
        """Deleting takes everything in it, so it is its owner's call (or a superuser's)."""
        return user.is_authenticated and (user.is_superuser or self.owner_id == user.id)

    def current_configuration(self) -> SchedulerConfiguration | None:
        return self.configurations.order_by("-revision").first()


class SchedulerConfiguration(models.Model):
    """One revision of what a workspace's kube-scheduler starts with (the history): the
    KubeSchedulerConfiguration document (``--config``) and the feature gates
    (``--feature-gates``), kept together because the one is defaulted and validated under the
    other."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="configurations"
    )
    revision = models.PositiveIntegerField()
    text = models.TextField(help_text="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)")
    feature_gates = models.TextField(
        blank=True,
        help_text="kube-scheduler's --feature-gates (GATE=BOOL,...), the gates that differ from "
        "the v1.36 defaults; empty: the defaults.",
    )
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["workspace_id", "-revision"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "revision"], name="unique_config_revision")
        ]

    def __str__(self) -> str:
        return f"{self.workspace} r{self.revision}"


class ClusterObject(models.Model):
    """One Kubernetes object of a workspace: the manifest, plus columns for queries."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="cluster_objects"
    )
    kind = models.CharField(max_length=64, db_index=True)
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=64, db_index=True)
    resource_version = models.BigIntegerField(default=0)
    manifest = JSONField()
    # Pod columns (empty for other kinds).
    node_name = models.CharField(max_length=253, blank=True, db_index=True)
    scheduler_name = models.CharField(max_length=253, blank=True)
    priority = models.IntegerField(default=0)
    phase = models.CharField(max_length=32, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["workspace_id", "kind", "namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "kind", "namespace", "name"], name="unique_object_key"
            )
        ]
        indexes = [models.Index(fields=["workspace", "kind", "node_name"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


class ObjectChange(models.Model):
    """The change log of a workspace's objects: what a watch on the cluster delivers, in order.

    The id is the workspace-wide revision; the scheduler service reads changes after the last
    id it processed, so a restarted service replays nothing twice and misses nothing.
    """

    ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="changes")
    event_type = models.CharField(
        max_length=8, choices=[(t, t) for t in (ADDED, MODIFIED, DELETED)]
    )
    kind = models.CharField(max_length=64)
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253)
    old_manifest = JSONField(null=True, blank=True)
    new_manifest = JSONField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["workspace", "id"])]

    def __str__(self) -> str:
        return f"#{self.id} {self.event_type} {self.kind} {self.namespace}/{self.name}"


class SchedulingAttempt(models.Model):
    """One scheduling (and binding) attempt of a pod, as the CLI reports it.

    A pod's attempts are numbered 1, 2, 3... in the order they were made: ``number`` is the
    attempt's one name on every page and in its URL ("attempt 3 of pod shop/web-1"). It is
    given when the row is first stored (``number_attempts``), from the pod's stored attempts,
    so it goes on counting across configurations applied and scheduler takeovers. Identical
    attempts in a row are stored once, with how many there were (``repeats``) and when the
    first (``created``) and the last (``last_attempted``) were made.

    ``configuration_revision`` is the configuration revision the scheduler ran the attempt
    under, as the service knew it (a revision saved or even applied is run only once the
    service rebuilds its scheduler with it): 0 for the default configuration (no revision),
    null for attempts stored before it was recorded, whose revision pages can only guess.
    """

    DEFAULT_CONFIGURATION = 0
    """``configuration_revision`` of an attempt run under the default configuration."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="attempts")
    pod_key = models.CharField(max_length=507, db_index=True)
    pod_uid = models.CharField(max_length=64, db_index=True)
    number = models.PositiveIntegerField(
        default=0, help_text="The pod's attempts are numbered 1, 2, 3... in order."
    )
    profile = models.CharField(max_length=253)
    cycle = models.PositiveIntegerField(
        default=0,
        help_text="The scheduling queue's cycle counter when the attempt began (internal: it "
        "restarts with every new scheduler, so pages show the attempt's number instead).",
    )
    result = models.CharField(max_length=32)
    node = models.CharField(max_length=253, blank=True)
    message = models.TextField(blank=True)
    evaluated_nodes = models.PositiveIntegerField(default=0)
    feasible_nodes = models.PositiveIntegerField(default=0)
    nominated_node = models.CharField(max_length=253, blank=True)
    victims = JSONField(default=list, blank=True)
    final_scores = JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    repeats = models.PositiveIntegerField(
        default=1,
        help_text="How many identical attempts this row stands for (a failed gang is retried "
        "without pause: its identical attempts are folded into one row).",
    )
    last_attempted = models.DateTimeField(
        null=True, blank=True, help_text="When the last of the repeated attempts was made."
    )
    configuration_revision = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The configuration revision the scheduler ran the attempt under (0: the "
        "default configuration; null: not recorded, an attempt stored before it was).",
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "pod_uid", "number"], name="unique_attempt_number"
            )
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of pod {self.pod_key}"

    def get_absolute_url(self) -> str:
        return reverse("attempt", args=[self.workspace.slug, self.pod_uid, self.number])

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is None and not self.number:
            number_attempts([self])
        super().save(*args, **kwargs)


def number_attempts(attempts: list[SchedulingAttempt]) -> None:
    """Gives each attempt without a number the next number of its pod, in list order.

    One query per workspace for any number of attempts (the scheduler service numbers a batch
    at a time). Only one writer stores a workspace's attempts (the lease holder's), and the
    unique constraint refuses a number taken twice all the same.
    """
    new = [attempt for attempt in attempts if not attempt.number]
    for workspace_id in {attempt.workspace_id for attempt in new}:
        mine = [attempt for attempt in new if attempt.workspace_id == workspace_id]
        latest = latest_attempt_numbers(workspace_id, {attempt.pod_uid for attempt in mine})
        for attempt in mine:
            latest[attempt.pod_uid] = attempt.number = latest.get(attempt.pod_uid, 0) + 1


def latest_attempt_numbers(workspace_id: int, pod_uids: Iterable[str]) -> dict[str, int]:
    """pod uid -> the number of its latest stored attempt, for those pods that have one."""
    rows = SchedulingAttempt.objects.filter(workspace_id=workspace_id, pod_uid__in=set(pod_uids))
    return dict(rows.order_by().values_list("pod_uid").annotate(Max("number")))


class AttemptTrace(models.Model):
    """Every trace event of an attempt, zlib-compressed JSON, loaded only when asked for.

    Thousands of nodes times a dozen plugins fit easily (events compress ~10x), unlike the
    256 KiB annotations the peer tool is limited to. Packing is on the scheduler service's
    path for every attempt, so it is made fast rather than small: orjson (some 15 times faster
    than the json module on these events) and zlib's fastest level (3 times faster than its
    default, for a trace about 1.5 times larger).
    """

    attempt = models.OneToOneField(
        SchedulingAttempt, on_delete=models.CASCADE, related_name="trace"
    )
    data = models.BinaryField()
    event_count = models.PositiveIntegerField(default=0)
    raw_size = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"trace of {self.attempt}"

    @classmethod
    def pack(cls, attempt: SchedulingAttempt, events: list[dict[str, Any]]) -> AttemptTrace:
        raw = orjson.dumps(_share_node_lists(events), option=orjson.OPT_NON_STR_KEYS)
        return cls(
            attempt=attempt,
            data=zlib.compress(raw, TRACE_COMPRESSION),
            event_count=len(events),
            raw_size=len(raw),
        )

    def events(self) -> list[dict[str, Any]]:
        stored = orjson.loads(zlib.decompress(bytes(self.data)))
        if isinstance(stored, list):  # packed before node lists were shared
            return stored
        return _expand_node_lists(stored)


def _share_node_lists(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The events with each batch event's ``data.nodes`` list written once.

    The runtime hands the same list of node names to every batch event of a run over nodes
    (nine in a SchedulingBasic cycle, 500 names each): written out each time, they were most of
    a stored trace, and compressing them most of the cost of storing it. Each distinct list
    (by identity) is stored once in ``nodeLists``; an event's ``nodes`` becomes its index. The
    events given are not changed: they are shared with the live trace.
    """
    node_lists: list[Any] = []
    index_of: dict[int, int] = {}
    packed = []
    for event in events:
        data = event.get("data")
        nodes = data.get("nodes") if data else None
        if isinstance(nodes, list | tuple):
            index = index_of.get(id(nodes))
            if index is None:
                index = index_of[id(nodes)] = len(node_lists)
                node_lists.append(nodes)
            event = {**event, "data": {**data, "nodes": index}}
        packed.append(event)
    return {"nodeLists": node_lists, "events": packed}


def _expand_node_lists(stored: dict[str, Any]) -> list[dict[str, Any]]:
    """The events ``_share_node_lists`` packed, each with its own ``data.nodes`` again."""
    node_lists = stored["nodeLists"]
    events = stored["events"]
    for event in events:
        data = event.get("data")
        if data and isinstance(data.get("nodes"), int):
            data["nodes"] = list(node_lists[data["nodes"]])
    return events


class KubeEvent(models.Model):
    """A Kubernetes Event the scheduler recorded (Scheduled, FailedScheduling, Preempted...)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="events")
    regarding_kind = models.CharField(max_length=64)
    regarding_namespace = models.CharField(max_length=253, blank=True)
    regarding_name = models.CharField(max_length=253)
    type = models.CharField(max_length=16)
    reason = models.CharField(max_length=64)
    action = models.CharField(max_length=64, blank=True)
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return (
            f"{self.reason} {self.regarding_kind} {self.regarding_namespace}/{self.regarding_name}"
        )


class SchedulerLease(models.Model):
    """Who runs a workspace's scheduler: one holder at a time, renewed, taken over when lapsed.

    ``generation`` increases at every takeover and fences writes of a holder that lost the lease.
    """

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="lease")
    holder = models.CharField(max_length=200, blank=True)
    generation = models.PositiveBigIntegerField(default=0)
    acquired_at = models.DateTimeField(null=True, blank=True)
    renewed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.workspace}: {self.holder or 'nobody'} until {self.expires_at}"


class SchedulerCommand(models.Model):
    """A request to a workspace's scheduler service (pause, apply a configuration, approve...)."""

    PAUSE, RESUME, APPLY_CONFIGURATION = "pause", "resume", "apply-configuration"
    ALLOW, REJECT = "allow", "reject"
    DEBUG, BREAKPOINTS = "debug", "breakpoints"
    BINDING_FINISHED = "binding-finished"
    STOP = "stop"
    KINDS = (
        PAUSE,
        RESUME,
        APPLY_CONFIGURATION,
        ALLOW,
        REJECT,
        DEBUG,
        BREAKPOINTS,
        BINDING_FINISHED,
        STOP,
    )

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="commands")
    kind = models.CharField(max_length=32, choices=[(k, k) for k in KINDS])
    payload = JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    done_at = models.DateTimeField(null=True, blank=True)
    outcome = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.id}"


class SchedulerStatus(models.Model):
    """The service's latest view of its queue and waiting pods, for pages that load cold."""

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="status")
    queue = JSONField(default=dict, blank=True)
    waiting_pods = JSONField(default=list, blank=True)
    queue_sizes = JSONField(
        default=list, blank=True, help_text="[[time, active, backoff, unschedulable]]"
    )
    stop = JSONField(
        null=True,
        blank=True,
        help_text="Where the scheduler is stopped at a breakpoint (the debugger), or null.",
    )
    debugger_note = models.TextField(
        blank=True, help_text="The debugger's last word, such as a stop that continued by itself."
    )
    standby = models.TextField(
        blank=True,
        help_text="Why a workspace standing for a live cluster does not schedule.",
    )
    revision = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The configuration revision the scheduler runs (null: the default one).",
    )
    feature_gates = models.TextField(
        blank=True, help_text="The feature gates it runs with, as --feature-gates reads them."
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "scheduler statuses"  # Django's default adds an s: "statuss"

    def __str__(self) -> str:
        return f"status of {self.workspace}"


class Breakpoint(models.Model):
    """Where a workspace's scheduler stops (``framework.debugger.breakpoints.Breakpoint``).

    An empty ``point`` with ``on_failure`` stops wherever an attempt fails. The service reads
    them when it starts and again after a ``breakpoints`` SchedulerCommand.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="breakpoints")
    point = models.CharField(max_length=32, blank=True)
    plugin = models.CharField(max_length=128, blank=True)
    node = models.CharField(max_length=253, blank=True)
    pod = models.CharField(max_length=317, blank=True, help_text="namespace/name, or empty")
    selector = models.CharField(max_length=1000, blank=True, help_text="a label selector")
    profile = models.CharField(max_length=253, blank=True)
    on_failure = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return str(self.engine_breakpoint())

    def engine_breakpoint(self) -> EngineBreakpoint:
        """The engine's Breakpoint (raises BreakpointError when a field is invalid)."""
        return EngineBreakpoint(
            point=self.point,
            plugin=self.plugin,
            node=self.node,
            pod=self.pod,
            selector=self.selector,
            profile=self.profile,
            on_failure=self.on_failure,
        )


class LiveWatch(models.Model):
    """A page that watches a workspace's cycles as they unfold (the debugger page, a pod page).

    The scheduler service streams each extension point's result only while some watch is
    alive, for the pods watched: nobody watching costs nothing. A page's socket renews its
    watch while it is open and deletes it when it closes; one that died lapses at ``expires``.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="watches")
    pod = models.CharField(max_length=317, blank=True, help_text="namespace/name, or every pod")
    channel = models.CharField(max_length=255, unique=True)
    expires = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.workspace} watches {self.pod or 'every pod'}"
