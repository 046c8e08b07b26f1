"""A workspace's PodGroups as the pages show them: each group's policy, its members and where
each one stands, the quorum, and the group's PodGroupScheduled condition.

Members are the pods whose ``spec.schedulingGroup.podGroupName`` names the group in its
namespace (docs/workloads.md). Where a member stands comes from ``pod_states``: the database
says whether it is bound, the scheduler's published queues where an unbound one is (held in
PreEnqueue, in a queue, waiting at Permit with GangScheduling's time left, binding).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from framework.api.pod_group import POD_GROUP_SCHEDULED, Condition, PodGroup
from framework.features import FeatureGates
from framework.plugins.gangscheduling.gang_scheduling import PERMIT_TIMEOUT_SECONDS
from framework.plugins.names import GANG_SCHEDULING
from playground.front.pod_states import PodState, state_of
from playground.front.queue_board import Board, board_of
from playground.workspaces.models import ClusterObject, Workspace

GENERIC_WORKLOAD = "GenericWorkload"
PLACED = frozenset({"bound", "binding", "waiting"})
"""Where a member counts as placed: bound, or assumed on its node (waiting at Permit for the
quorum, or its binding cycle under way), as GangScheduling counts assumed and bound pods."""


@dataclass(slots=True)
class Member:
    """One pod of a group and where it stands."""

    pod: ClusterObject
    state: PodState
    node: str = ""
    """The node it is bound to, or assumed on (at Permit, binding)."""
    seconds_left: float | None = None
    """At Permit: the time GangScheduling still waits for the quorum (5 minutes at first)."""
    plugins: tuple[str, ...] = ()
    """Gated: the PreEnqueue plugin that holds it."""
    placement: str = ""
    """With a topology constraint: the domain its node is in (the node's value of the
    constraint's key, e.g. ``zone-b``), the placement the group's cycle chose."""

    @property
    def placed(self) -> bool:
        return self.state.name in PLACED

    @property
    def note(self) -> str:
        """What holds the member, in words: the PreEnqueue plugin, the quorum at Permit (with
        the time left of GangScheduling's timeout), or its latest failure."""
        if self.state.name == "gated" and self.plugins:
            return f"held at PreEnqueue by {', '.join(self.plugins)}"
        if self.state.name == "waiting" and self.seconds_left is not None:
            left, limit = _minutes(self.seconds_left), _minutes(PERMIT_TIMEOUT_SECONDS)
            return f"waiting at Permit for the quorum, {left} left of {limit}"
        return self.state.message


@dataclass(slots=True)
class GroupView:
    """A PodGroup with its members, as its row on the PodGroups page and its own page."""

    obj: ClusterObject
    group: PodGroup
    members: list[Member] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.obj.key

    @property
    def policy(self) -> str:
        return self.group.spec.scheduling_policy.name

    @property
    def min_count(self) -> int | None:
        policy = self.group.spec.scheduling_policy
        return policy.min_count if policy.gang else None

    @property
    def placed(self) -> int:
        return sum(1 for member in self.members if member.placed)

    @property
    def needed(self) -> int:
        """How many members must be placed: minCount for a gang, every member for a basic
        group (which has no quorum: each member is placed on its own)."""
        return self.min_count if self.min_count is not None else len(self.members)

    @property
    def complete(self) -> bool:
        return self.needed > 0 and self.placed >= self.needed

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.placed / self.needed)) if self.needed else 0

    @property
    def quorum(self) -> str:
        """ "3 of 4 placed, waiting for 1", the quorum bar's words."""
        text = f"{self.placed} of {self.needed} placed"
        missing = self.needed - self.placed
        return f"{text}, waiting for {missing}" if missing > 0 else text

    @property
    def assumed(self) -> str:
        """ "2 of 4 assumed", the permit console's words for the quorum (bound members count
        too, as GangScheduling counts them)."""
        return f"{self.placed} of {self.needed} assumed"

    @property
    def condition(self) -> Condition | None:
        return self.group.condition(POD_GROUP_SCHEDULED)

    @property
    def topology_keys(self) -> list[str]:
        """The keys of the group's topology constraint: its members share one domain of each."""
        return list(self.group.spec.topology_keys)


def offers_pod_groups(workspace: Workspace) -> bool:
    """Whether the workspace's navigation leads to its pod groups: it has some, or its
    scheduler runs with GenericWorkload. Others do without the link, which would crowd a top
    bar that keeps to one row at 1280 px."""
    if ClusterObject.objects.filter(workspace=workspace, kind="PodGroup").exists():
        return True
    configuration = workspace.current_configuration()
    if configuration is None or not configuration.feature_gates:
        return False
    try:
        return FeatureGates.from_string(configuration.feature_gates).enabled(GENERIC_WORKLOAD)
    except ValueError:
        return False


def pod_groups(workspace: Workspace, board: Board | None = None) -> list[GroupView]:
    """Every PodGroup of the workspace, by namespace and name, with its members."""
    objects = ClusterObject.objects.filter(workspace=workspace, kind="PodGroup")
    groups = sorted(objects, key=lambda obj: (obj.namespace, obj.name))
    if not groups:
        return []
    where = (board or board_of(workspace)).where()
    members = _members_by_group(workspace, {obj.namespace for obj in groups})
    return [_view(obj, members.get((obj.namespace, obj.name), []), where) for obj in groups]


def pod_group(
    workspace: Workspace, namespace: str, name: str, board: Board | None = None
) -> GroupView | None:
    """One PodGroup with its members, or None when the workspace has none of that name."""
    objects = ClusterObject.objects.filter(
        workspace=workspace, kind="PodGroup", namespace=namespace, name=name
    )
    obj = objects.first()
    if obj is None:
        return None
    where = (board or board_of(workspace)).where()
    members = _members_by_group(workspace, {namespace}).get((namespace, name), [])
    return _view(obj, members, where)


def groups_of(workspace: Workspace, uids: list[str]) -> dict[str, tuple[str, str]]:
    """pod uid -> (namespace, PodGroup name) for those of the pods that name a group."""
    pods = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid__in=uids)
    named = ((pod.uid, pod.namespace, _group_name(pod)) for pod in pods)
    return {uid: (namespace, name) for uid, namespace, name in named if name}


def _group_name(pod: ClusterObject) -> str:
    return ((pod.manifest.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName", "")


def _members_by_group(
    workspace: Workspace, namespaces: set[str]
) -> dict[tuple[str, str], list[ClusterObject]]:
    pods = ClusterObject.objects.filter(
        workspace=workspace,
        kind="Pod",
        namespace__in=namespaces,
        manifest__spec__schedulingGroup__podGroupName__isnull=False,
    ).order_by("name")
    members: dict[tuple[str, str], list[ClusterObject]] = {}
    for pod in pods:
        members.setdefault((pod.namespace, _group_name(pod)), []).append(pod)
    return members


def _view(obj: ClusterObject, pods: list[ClusterObject], where: dict) -> GroupView:
    group = PodGroup.from_dict(obj.manifest)
    members = []
    for pod in pods:
        state = state_of(pod, where)
        _, entry = where.get(pod.uid, ("", {}))
        seconds = (entry.get("secondsLeft") or {}).get(GANG_SCHEDULING)
        node = pod.node_name or entry.get("node", "")
        plugins = tuple(entry.get("plugins", ())) if state.name == "gated" else ()
        members.append(Member(pod, state, node, seconds, plugins))
    view = GroupView(obj, group, members)
    if view.topology_keys:
        _set_placements(obj.workspace_id, view)
    return view


def _set_placements(workspace_id: int, view: GroupView) -> None:
    """Each placed member's domain: its node's values of the constraint's keys."""
    names = {member.node for member in view.members if member.node}
    nodes = ClusterObject.objects.filter(workspace_id=workspace_id, kind="Node", name__in=names)
    labels = {
        node.name: (node.manifest.get("metadata") or {}).get("labels") or {} for node in nodes
    }
    for member in view.members:
        values = [labels.get(member.node, {}).get(key, "") for key in view.topology_keys]
        member.placement = ", ".join(v for v in values if v)


def _labels(obj: ClusterObject) -> dict[str, str]:
    return (obj.manifest.get("metadata") or {}).get("labels") or {}


def _minutes(seconds: float) -> str:
    """``4:58``: minutes and seconds, as a countdown reads."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"
