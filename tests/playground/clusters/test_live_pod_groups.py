"""The pod-group cycle's PodGroupScheduled condition reaches a live cluster as kube-scheduler
writes it: a strategic-merge patch of ``podgroups/status`` on a real kube-apiserver serving
``scheduling.k8s.io/v1alpha2``, read back from the server (and mirrored back)."""

from __future__ import annotations

import pytest
import yaml

from framework.api.pod_group import (
    POD_GROUP_SCHEDULED,
    REASON_SCHEDULED,
    REASON_UNSCHEDULABLE,
    Condition,
)
from framework.util.clock import FakeClock
from playground.clusters.connecting import api_client
from playground.clusters.live_cluster import LiveCluster
from playground.clusters.live_writes import LiveWrites
from playground.clusters.mirror import Mirror
from playground.clusters.models import ClusterConnection
from tests.kube.control_plane import FIXTURE_USER
from tests.kube.kubeconfig import kubeconfig
from tests.playground.clusters.test_mirror_workloads import SCHEDULING
from tests.playground.scheduling.manifests import pod_group_manifest

pytestmark = pytest.mark.django_db(transaction=True)

UNSCHEDULABLE = Condition(
    POD_GROUP_SCHEDULED, "False", REASON_UNSCHEDULABLE, "pod group is unschedulable"
)
SCHEDULED = Condition(POD_GROUP_SCHEDULED, "True", REASON_SCHEDULED, "")


@pytest.fixture
def live(alpha_plane, user, workspace):
    """The workspace mirroring the alpha plane, its LiveCluster, and its mirror."""
    plane = alpha_plane.plane
    connection = ClusterConnection(name="gangs", owner=user, workspace=workspace, server=plane.url)
    connection.set_kubeconfig(alpha_plane_kubeconfig(alpha_plane))
    connection.save()
    client = api_client(connection)
    clock = FakeClock(1_800_000_000.0)
    mirror = Mirror(connection, workspace, client, clock, watch_seconds=1)
    return LiveCluster(workspace.pk, LiveWrites(client, clock)), mirror, clock


def alpha_plane_kubeconfig(alpha_plane) -> str:
    plane = alpha_plane.plane
    config = kubeconfig(
        plane.url, plane.certificates.ca_pem, plane.fixture_token, FIXTURE_USER, "a"
    )
    return yaml.safe_dump(config)


def server_condition(alpha_plane, name: str) -> dict:
    group = alpha_plane.rest("GET", f"{SCHEDULING}/podgroups/{name}")
    (condition,) = group["status"]["conditions"]
    return condition


def test_the_pod_group_condition_is_patched_on_the_api_server(alpha_plane, live):
    cluster, mirror, clock = live
    alpha_plane.rest("POST", f"{SCHEDULING}/podgroups", pod_group_manifest("trainer", min_count=4))
    mirror.sync()
    group = cluster.get("PodGroup", "trainer", "default")

    cluster.update(group.with_condition(UNSCHEDULABLE))

    first = server_condition(alpha_plane, "trainer")
    assert {k: first[k] for k in ("type", "status", "reason", "message")} == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "pod group is unschedulable",
    }
    assert first["lastTransitionTime"] == "2027-01-15T08:00:00Z"
    # The group's generation (kube-apiserver v1.36 sets none for PodGroups: 0, left out).
    assert first.get("observedGeneration", 0) == group.metadata.generation

    # Mirrored back, then scheduled a minute later: the condition turns True, with a new time.
    for _ in range(5):
        mirror.step()
        mirrored = cluster.get("PodGroup", "trainer", "default")
        if mirrored.condition(POD_GROUP_SCHEDULED) is not None:
            break
    assert mirrored.condition(POD_GROUP_SCHEDULED).reason == REASON_UNSCHEDULABLE
    clock.step(60)
    cluster.update(mirrored.with_condition(SCHEDULED))

    second = server_condition(alpha_plane, "trainer")
    assert (second["status"], second["reason"]) == ("True", "Scheduled")
    assert "message" not in second or second["message"] == ""
    assert second["lastTransitionTime"] == "2027-01-15T08:01:00Z"
