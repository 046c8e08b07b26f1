"""Every stored attempt records the configuration revision its scheduler ran it under: the one
the service runs (``SchedulerStatus.revision``), not the latest saved, which the service may not
have picked up yet; the default configuration as ``DEFAULT_CONFIGURATION`` (0). The attempt
page's Reweight panel and the explain panels read it (``attempt_configuration``).

Run both ways: embedded (SQLite) and with DATABASE_URL / REDIS_URL set (PostgreSQL, Redis).
"""

from __future__ import annotations

import pytest

from playground.front.reweighted_profile import attempt_configuration
from playground.workspaces.models import SchedulerCommand, SchedulerStatus, SchedulingAttempt
from playground.workspaces.services import add_configuration_revision
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db

MINIMAL = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def save_revision(workspace, text: str = MINIMAL) -> int:
    """A new revision, as the profile page saves one before it asks the scheduler to apply it."""
    revision, problems = add_configuration_revision(workspace, text)
    assert not problems
    return revision.revision


def apply(workspace, revision: int) -> None:
    SchedulerCommand.objects.create(
        workspace=workspace,
        kind=SchedulerCommand.APPLY_CONFIGURATION,
        payload={"revision": revision},
    )


def recorded(pod: str) -> list[tuple[int, int | None]]:
    """The pod's attempts as (number, configuration_revision), in order."""
    rows = SchedulingAttempt.objects.filter(pod_key=f"default/{pod}").order_by("number")
    return list(rows.values_list("number", "configuration_revision"))


def running(workspace) -> int | None:
    return SchedulerStatus.objects.get(workspace=workspace).revision


def test_each_attempt_records_the_revision_its_scheduler_ran(
    make_service, workspace, cluster, binding_tasks
):
    save_revision(workspace)
    cluster.add(node_manifest("n1", cpu="1"))
    cluster.add(pod_manifest("big", cpu="2"))
    service = make_service()
    assert service.start()
    settle(service, binding_tasks)
    assert recorded("big") == [(1, 1)]

    apply(workspace, save_revision(workspace))
    settle(service, binding_tasks)

    assert running(workspace) == 2
    # The rebuilt scheduler tries the pod again with the same outcome: a row of its own, under
    # revision 2, not a repeat folded into revision 1's.
    assert recorded("big") == [(1, 1), (2, 2)]
    cluster.add(pod_manifest("web", cpu="100m"))
    settle(service, binding_tasks)
    assert recorded("web") == [(1, 2)]


def test_a_revision_saved_before_the_scheduler_picks_it_up_is_not_credited(
    make_service, workspace, cluster, binding_tasks
):
    save_revision(workspace)
    cluster.add(node_manifest("n1"))
    service = make_service()
    assert service.start()
    settle(service, binding_tasks)

    second = save_revision(workspace)  # its apply command is read at the next tick
    cluster.add(pod_manifest("web"))
    settle(service, binding_tasks)

    [attempt] = SchedulingAttempt.objects.filter(pod_key="default/web")
    assert attempt.configuration_revision == 1
    assert attempt.created > workspace.configurations.get(revision=second).created
    base = attempt_configuration(attempt)
    assert (base.revision, base.recorded) == (1, True), "not the latest made before it"

    apply(workspace, second)
    cluster.add(pod_manifest("web-2"))
    settle(service, binding_tasks)
    assert recorded("web-2") == [(1, second)]
    assert recorded("web") == [(1, 1)], "an attempt keeps the revision it ran under"


def test_the_default_configuration_is_recorded_as_no_revision(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1"))
    service = make_service()  # the workspace has no revision: kube-scheduler's defaults
    assert service.start()
    settle(service, binding_tasks)
    save_revision(workspace)  # saved, not applied

    cluster.add(pod_manifest("web"))
    settle(service, binding_tasks)

    assert running(workspace) is None
    [attempt] = SchedulingAttempt.objects.filter(pod_key="default/web")
    assert attempt.configuration_revision == SchedulingAttempt.DEFAULT_CONFIGURATION
    base = attempt_configuration(attempt)
    assert (base.revision, base.recorded, base.label) == (None, True, "the default configuration")
