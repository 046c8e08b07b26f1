"""The mirror follows Workloads and PodGroups (``scheduling.k8s.io/v1alpha2``) while the cluster
serves them, and a cluster that does not serve that alpha API is synced all the same (issue
24): against the test API server and the session's kube-apiserver (neither serves it), and
against a kube-apiserver of its own whose API is turned on and off by restarting it."""

from __future__ import annotations

import pytest
import yaml

from framework.util.clock import FakeClock
from playground.clusters.connecting import api_client
from playground.clusters.mirror import NOT_SERVED_SECONDS, Mirror
from playground.clusters.models import ClusterConnection
from playground.workspaces.cluster import DatabaseCluster
from tests.kube.control_plane import FIXTURE_USER
from tests.kube.kubeconfig import kubeconfig
from tests.playground.clusters.conftest import ALPHA_API
from tests.playground.scheduling.manifests import pod_group_manifest

pytestmark = pytest.mark.django_db(transaction=True)

WORKLOAD_KINDS = ("Workload", "PodGroup")
SCHEDULING = "/apis/scheduling.k8s.io/v1alpha2/namespaces/default"


def make_mirror(user, workspace, server: str, kubeconfig_text: str, clock: FakeClock) -> Mirror:
    connection = ClusterConnection(name="workloads", owner=user, workspace=workspace, server=server)
    connection.set_kubeconfig(kubeconfig_text)
    connection.save()
    return Mirror(connection, workspace, api_client(connection), clock, watch_seconds=1)


def test_a_cluster_that_does_not_serve_the_workload_api_is_synced(kube_api, user, workspace):
    mirror = make_mirror(user, workspace, kube_api.url, kube_api.kubeconfig_text(), FakeClock())
    mirror.sync()

    assert mirror.status() == "synced"
    state = mirror.state()
    for kind in WORKLOAD_KINDS:
        assert state[kind]["served"] is False, kind
        assert (state[kind]["synced"], state[kind]["error"], state[kind]["objects"]) == (
            True,
            "",
            0,
        )
    assert state["Pod"]["served"] is True
    assert mirror.lag() == 0.0  # nothing to be behind on: no stream of those kinds is due


def test_a_kind_not_served_is_looked_for_again_after_a_minute(kube_api, user, workspace):
    clock = FakeClock()
    mirror = make_mirror(user, workspace, kube_api.url, kube_api.kubeconfig_text(), clock)
    mirror.sync()
    streams = [s for s in mirror.streams if s.followed.kind in WORKLOAD_KINDS]
    assert {s.retry_at for s in streams} == {clock.now() + NOT_SERVED_SECONDS}
    mirror.step()  # watches every served kind; the workload kinds are not due
    assert {s.retry_at for s in streams} == {clock.now() + NOT_SERVED_SECONDS}
    clock.step(NOT_SERVED_SECONDS)
    mirror.step()  # asked again, answered 404 again
    assert {s.retry_at for s in streams} == {clock.now() + NOT_SERVED_SECONDS}


def test_workloads_and_pod_groups_are_mirrored_while_the_cluster_serves_them(
    alpha_plane, user, workspace
):
    plane = alpha_plane.plane
    text = yaml.safe_dump(
        kubeconfig(plane.url, plane.certificates.ca_pem, plane.fixture_token, FIXTURE_USER, "a")
    )
    clock = FakeClock()
    mirror = make_mirror(user, workspace, plane.url, text, clock)
    alpha_plane.rest("POST", f"{SCHEDULING}/workloads", workload("training"))
    alpha_plane.rest("POST", f"{SCHEDULING}/podgroups", pod_group_manifest("trainers", min_count=4))
    mirror.sync()

    assert mirror.status() == "synced"
    stored = DatabaseCluster(workspace)
    group = stored.get("PodGroup", "trainers", "default")
    assert group.spec.scheduling_policy.min_count == 4
    assert group.manifest["spec"]["disruptionMode"] == "Pod"  # as kube-apiserver stored it
    assert stored.get("Workload", "training", "default").pod_group_templates[0].name == "workers"
    assert mirror.state()["PodGroup"]["served"] is True

    # Later changes arrive by watch.
    alpha_plane.rest(
        "POST", f"{SCHEDULING}/podgroups", pod_group_manifest("evaluators", min_count=2)
    )
    for _ in range(5):
        mirror.step()
        if stored_names(workspace, "PodGroup") == {"trainers", "evaluators"}:
            break
    assert stored_names(workspace, "PodGroup") == {"trainers", "evaluators"}

    # The API turned off: the kinds are not served, what was mirrored of them goes.
    plane.stop_apiserver()
    plane.extra_flags = ()
    plane.start_apiserver()
    try:
        mirror.step()
        mirror.step()
        assert mirror.state()["PodGroup"]["served"] is False
        assert mirror.status() == "synced"
        assert stored_names(workspace, "PodGroup") == set()
        assert stored_names(workspace, "Workload") == set()

        # And on again: looked for again a minute later, listed, mirrored.
        plane.stop_apiserver()
        plane.extra_flags = ALPHA_API
        plane.start_apiserver()
        clock.step(NOT_SERVED_SECONDS)
        mirror.sync()
        assert mirror.state()["PodGroup"]["served"] is True
        assert stored_names(workspace, "PodGroup") == {"trainers", "evaluators"}
    finally:
        if plane.extra_flags != ALPHA_API:
            plane.stop_apiserver()
            plane.extra_flags = ALPHA_API
            plane.start_apiserver()


def stored_names(workspace, kind: str) -> set[str]:
    return {obj.name for obj in DatabaseCluster(workspace).list(kind)}


def workload(name: str) -> dict:
    template = {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}}
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"podGroupTemplates": [template]},
    }
