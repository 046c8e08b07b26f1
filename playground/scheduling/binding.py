"""Binding cycles outside the scheduler service: Bind and PostBind in a Celery task.

The service runs a pod's binding cycle up to PreBind (whose plugins hold state from Reserve),
then sends a ``BindingRequest`` (JSON only) to a ``run_binding_cycle`` task. The task runs the
profile's Bind plugins (DefaultBinder binds through DatabaseCluster) and PostBind, fenced by
the lease generation the request was sent under, and reports the outcome as a SchedulerCommand
``binding-finished``, which the service turns into the end of the binding cycle: nothing more
on success, Unreserve + Forget + requeue on failure (upstream handleBindingCycleError).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any

from django.db import transaction

from framework.config import default_configuration, load_config, set_defaults, validate
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.scheduler.scheduler import Scheduler
from framework.trace import Recorder
from playground.scheduling import lease
from playground.scheduling.plugins import playground_registry
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerCommand, SchedulerConfiguration

BINDING_FINISHED = SchedulerCommand.BINDING_FINISHED
"""The SchedulerCommand kind a binding task reports with."""
LOST_LEASE = "the scheduler that started this binding cycle no longer holds the lease"
BINDERS_KEPT = 8
"""Binding schedulers kept per thread (one per workspace and configuration revision)."""

_CODES = {str(code): code for code in Code}


@dataclass(frozen=True, slots=True)
class BindingRequest:
    """What a binding task needs, all of it JSON: which pod goes where, under which lease."""

    workspace_id: int
    generation: int
    namespace: str
    name: str
    uid: str
    node: str
    profile: str
    revision: int | None = None
    """The configuration revision the service runs (None: the default configuration)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BindingRequest:
        return cls(**data)


def status_to_json(status: Status | None) -> dict[str, Any] | None:
    if status is None or status.is_success():
        return None
    return {"code": str(status.code), "reasons": status.all_reasons(), "plugin": status.plugin}


def status_from_json(data: dict[str, Any] | None) -> Status | None:
    if not data:
        return None
    status = Status(_CODES.get(data.get("code", ""), Code.ERROR), *data.get("reasons", []))
    return status.with_plugin(data.get("plugin", ""))


# ----------------------------------------------------------------------------------------------
# The task's side


def run_binding(request: BindingRequest) -> SchedulerCommand:
    """Binds the pod unless the lease changed hands; records and returns the outcome command.

    The lease check and the bind share one transaction that holds the lease row, so a
    successor that took over meanwhile (and rebuilt from the database, where the pod is still
    pending) never sees this binding land behind its back.
    """
    recorder = Recorder()
    with transaction.atomic():
        if lease.holds(request.workspace_id, request.generation):
            status = _bind(request, recorder)
        else:
            status = Status(Code.ERROR, LOST_LEASE)
    payload = {
        "uid": request.uid,
        "node": request.node,
        "generation": request.generation,
        "status": status_to_json(status),
        "events": [event.to_dict() for event in recorder.events],
    }
    return SchedulerCommand.objects.create(
        workspace_id=request.workspace_id, kind=BINDING_FINISHED, payload=payload
    )


def _bind(request: BindingRequest, recorder: Recorder) -> Status | None:
    binder = _binder(request.workspace_id, request.revision)
    framework = binder.profiles.get(request.profile)
    if framework is None:
        return Status.error(f'profile not found for scheduler name "{request.profile}"')
    pod = binder.cluster.get("Pod", request.name, request.namespace)
    if pod is None:
        return Status.error(f'pods "{request.name}" not found')
    assumed = pod.deep_copy()
    assumed.spec.node_name = request.node
    outcome: list[Status | None] = []
    framework.observer = recorder
    try:
        binder.bind_pod(framework, CycleState(), assumed, request.node, outcome.append)
    finally:
        framework.observer = None
    return outcome[0]


class _Binders(threading.local):
    """Schedulers that only bind, built once per thread, workspace and configuration."""

    def __init__(self) -> None:
        self.by_key: OrderedDict[tuple[int, int | None], Scheduler] = OrderedDict()


_binders = _Binders()


def _binder(workspace_id: int, revision: int | None) -> Scheduler:
    key = (workspace_id, revision)
    binder = _binders.by_key.get(key)
    if binder is None:
        cfg = configuration(workspace_id, revision)
        cluster = DatabaseCluster(workspace_id)
        binder = Scheduler.from_configuration(cfg, cluster, playground_registry())
        _binders.by_key[key] = binder
        while len(_binders.by_key) > BINDERS_KEPT:
            _binders.by_key.popitem(last=False)
    _binders.by_key.move_to_end(key)
    return binder


def configuration(workspace_id: int, revision: int | None) -> Any:
    """The defaulted configuration of a revision (the default one when None).

    Revisions are validated before they are saved; one that is not valid any more (an engine
    upgrade) raises ValueError with the reasons.
    """
    if revision is None:
        return default_configuration()
    text = SchedulerConfiguration.objects.get(workspace_id=workspace_id, revision=revision).text
    cfg = set_defaults(load_config(text))
    errors = validate(cfg)
    if errors:
        raise ValueError("\n".join(str(error) for error in errors))
    return cfg
