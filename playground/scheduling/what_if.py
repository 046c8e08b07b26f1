"""What-if for a workspace: its objects, configuration and feature gates (its latest revision)
through the engine's ``what_if``.

The workspace is read once, in one consistent read (the snapshot a starting scheduler lists),
and handed to ``framework.what_if`` as plain objects: the engine runs the pod's scheduling
cycle over a dry-run copy, so nothing is written anywhere. No attempt, trace, change, event or
pod row is stored, no command reaches the scheduler service, no call goes to a live cluster;
the workspace's running scheduler and its queue never hear of it. That is why it works in a
mirrored workspace, which the browser may not change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.admission import priority, runtime_class
from framework.admission.priority import ListedPriorityClasses
from framework.api.errors import ObjectError
from framework.api.loader import decode_new_object, parse_object
from framework.api.pod import Pod
from framework.what_if import WhatIf, WhatIfError, what_if
from playground.scheduling.plugins import playground_registry
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import ClusterObject, Workspace
from playground.workspaces.services import SchedulerSettings, default_settings, revision_settings


@dataclass(frozen=True, slots=True)
class PendingPod:
    """A pod of the workspace with no node, as the page's select lists it."""

    uid: str
    key: str
    scheduler_name: str


def pending_pods(workspace: Workspace) -> list[PendingPod]:
    """The workspace's pods without ``spec.nodeName``, by namespace and name."""
    rows = (
        ClusterObject.objects.filter(workspace=workspace, kind="Pod", node_name="")
        .order_by("namespace", "name")
        .values_list("uid", "namespace", "name", "scheduler_name")
    )
    return [PendingPod(uid, f"{ns}/{name}", scheduler) for uid, ns, name, scheduler in rows]


def profile_names(workspace: Workspace) -> list[str]:
    """The ``schedulerName`` of every profile of the workspace's configuration, in order."""
    return [profile.scheduler_name for profile in workspace_settings(workspace).cfg.profiles]


def workspace_settings(workspace: Workspace) -> SchedulerSettings:
    """The latest revision's configuration, defaulted, and feature gates (the defaults without
    any revision); WhatIfError when it is not valid any more (an engine upgrade)."""
    current = workspace.current_configuration()
    if current is None:
        return default_settings()
    try:
        return revision_settings(workspace.pk, current.revision)
    except ValueError as err:
        raise WhatIfError(f"revision {current.revision} of the configuration: {err}") from None


def profile_for(pod: Pod, profiles: list[str]) -> str:
    """The profile a pod goes to by default: the one its schedulerName names, else the first."""
    return pod.spec.scheduler_name if pod.spec.scheduler_name in profiles else profiles[0]


def pasted_pod(workspace: Workspace, manifest: Mapping[str, Any]) -> Pod:
    """A pod from a pasted manifest, admitted as the API server would admit it (names checked,
    priority resolved from its class); ObjectError names the field when it cannot be.

    Its namespace and name need not exist: the pod stands in for the pod of that name if there
    is one, and is simply added to the snapshot otherwise.
    """
    if manifest.get("kind") != "Pod":
        kind = manifest.get("kind")
        raise ObjectError("the pasted object", "kind", f"must be Pod, not {kind!r}")
    new = decode_new_object(manifest)
    pod = new.obj
    if pod.spec.node_name:
        raise ObjectError(
            pod.describe(),
            "spec.nodeName",
            f'must be empty: the pod is already bound to node "{pod.spec.node_name}", and a '
            "what-if schedules pending pods",
        )
    admitted = dict(manifest)
    admitted["spec"] = dict(manifest.get("spec") or {})
    cluster = DatabaseCluster(workspace)
    classes = ListedPriorityClasses(cluster.list("PriorityClass"))
    runtime_classes = {rc.name: rc for rc in cluster.list("RuntimeClass")}.get
    # Mutating admission comes before validation in kube-apiserver, as in the store, and
    # validating admission after it.
    priority.admit_pod(admitted, pod.describe(), classes)
    runtime_class.admit_pod(admitted, pod.describe(), runtime_classes)
    new.validated()
    runtime_class.validate_pod(admitted, pod.describe(), runtime_classes)
    return parse_object(admitted)


def stored_pod(workspace: Workspace, uid: str) -> Pod:
    """The workspace's pending pod with this uid; WhatIfError when there is none."""
    row = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()
    if row is None or row.node_name:
        problem = "is not pending any more" if row is not None else "does not exist"
        raise WhatIfError(f"the pod {row.key if row else uid} {problem}")
    pod = DatabaseCluster(workspace).get("Pod", row.name, row.namespace)
    if pod is None:
        raise WhatIfError(f"the pod {row.key} does not exist")
    return pod


def run_what_if(workspace: Workspace, pod: Pod, profile: str) -> WhatIf:
    """The pod's scheduling cycle through the profile, over the workspace as it is now, with
    the gates the workspace's scheduler runs with."""
    settings = workspace_settings(workspace)
    return what_if(
        settings.cfg,
        snapshot(workspace),
        pod,
        profile,
        registry=playground_registry(settings.features),
        features=settings.features,
    )


def snapshot(workspace: Workspace) -> list[Any]:
    """Every object of the workspace, as of one change: each kind in creation order."""
    cluster = DatabaseCluster(workspace)
    with cluster.consistent_read():
        return [obj for kind in cluster.kinds() for obj in cluster.list(kind)]
