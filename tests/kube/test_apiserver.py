"""The test Kubernetes API server, driven only through the official client.

Every case holds against a real kube-apiserver too: with PLAYGROUND_TEST_KUBECONFIG set, the
``kube_api`` fixture points at that cluster and the cases that need fault injection skip.
"""

from __future__ import annotations

import datetime
import json
import threading
import time

import pytest
import urllib3
from kubernetes import client, watch
from kubernetes.client.exceptions import ApiException

from tests.kube.fixtures import PREFIX, LocalKubeApi, RealKubeApi
from tests.kube.tls import make_certificates

WATCH_SECONDS = 5


NO_SCHEDULER = f"{PREFIX}nobody"
"""No scheduler serves this name, so on a real cluster nothing but the test touches the pods."""


def pod(name: str, **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": spec.pop("labels", {})},
        "spec": {
            "schedulerName": NO_SCHEDULER,
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
            **spec,
        },
    }


def status(err: ApiException) -> dict:
    return json.loads(err.body)


@pytest.fixture
def core(kube_api) -> client.CoreV1Api:
    return client.CoreV1Api(kube_api.client())


def collect(stream, count: int) -> list[dict]:
    events = []
    for event in stream:
        events.append(event)
        if len(events) == count:
            break
    return events


def test_version_and_discovery_answer_like_a_1_36_server(kube_api):
    api = kube_api.client()
    version = client.VersionApi(api).get_code()
    assert version.major == "1"
    assert version.git_version.startswith("v1.")
    if isinstance(kube_api, LocalKubeApi):
        assert version.git_version == "v1.36.2"
    assert "v1" in client.CoreApi(api).get_api_versions().versions
    groups = {g.name for g in client.ApisApi(api).get_api_versions().groups}
    assert {"apps", "coordination.k8s.io", "storage.k8s.io", "events.k8s.io"} <= groups
    names = {r.name for r in client.CoreV1Api(api).get_api_resources().resources}
    assert {"pods", "pods/binding", "pods/status", "nodes"} <= names


def test_a_list_carries_the_store_revision_and_selectors_filter_it(kube_api, core):
    ns = kube_api.namespace
    node = f"{ns}-n1"  # no other test's pods are on it, whichever cluster this is
    core.create_namespaced_pod(ns, pod("a1", labels={"app": "a"}))
    core.create_namespaced_pod(ns, pod("a2", labels={"app": "a"}, nodeName=node))
    created = core.create_namespaced_pod(ns, pod("b1", labels={"app": "b"}))

    listed = core.list_namespaced_pod(ns)
    assert [p.metadata.name for p in listed.items] == ["a1", "a2", "b1"]
    assert int(listed.metadata.resource_version) >= int(created.metadata.resource_version)
    assert [
        p.metadata.name for p in core.list_namespaced_pod(ns, label_selector="app=a").items
    ] == [
        "a1",
        "a2",
    ]
    unbound = core.list_namespaced_pod(ns, field_selector="spec.nodeName=").items
    assert [p.metadata.name for p in unbound] == ["a1", "b1"]
    mine = core.list_pod_for_all_namespaces(
        field_selector=f"spec.nodeName={node},status.phase=Pending"
    )
    assert [p.metadata.name for p in mine.items] == ["a2"]
    assert (
        core.list_namespaced_pod(ns, label_selector="app in (b),!gone").items[0].metadata.name
        == "b1"
    )

    core.delete_namespaced_pod("b1", ns)
    later = core.list_namespaced_pod(ns)
    assert int(later.metadata.resource_version) > int(listed.metadata.resource_version)


def test_a_watch_from_a_version_sees_later_changes_in_order(kube_api, core):
    ns = kube_api.namespace
    since = core.list_namespaced_pod(ns).metadata.resource_version
    core.create_namespaced_pod(ns, pod("w1"))
    core.patch_namespaced_pod("w1", ns, {"metadata": {"labels": {"seen": "yes"}}})
    core.delete_namespaced_pod("w1", ns)

    stream = watch.Watch().stream(
        core.list_namespaced_pod, ns, resource_version=since, timeout_seconds=WATCH_SECONDS
    )
    events = collect(stream, 4)
    # A pod is deleted gracefully even with no grace left: its deletionTimestamp is written
    # first (MODIFIED), then it goes (DELETED), as kube-apiserver's registry does it.
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "MODIFIED", "DELETED"]
    assert events[1]["object"].metadata.labels == {"seen": "yes"}
    assert events[2]["object"].metadata.deletion_grace_period_seconds == 0
    assert events[3]["object"].metadata.deletion_timestamp is not None
    versions = [int(e["object"].metadata.resource_version) for e in events]
    assert versions == sorted(versions) and versions[0] > int(since)


def test_a_watch_sees_an_object_leave_its_selector_as_deleted(kube_api, core):
    ns = kube_api.namespace
    core.create_namespaced_pod(ns, pod("s1", labels={"tier": "web"}))
    stream = watch.Watch().stream(
        core.list_namespaced_pod, ns, label_selector="tier=web", timeout_seconds=WATCH_SECONDS
    )
    first = next(stream)
    assert (first["type"], first["object"].metadata.name) == ("ADDED", "s1")
    core.patch_namespaced_pod("s1", ns, {"metadata": {"labels": {"tier": "db"}}})
    left = next(stream)
    # The watch cache sends the object as it last matched, at the change's revision.
    assert (left["type"], left["object"].metadata.labels) == ("DELETED", {"tier": "web"})
    changed = core.read_namespaced_pod("s1", ns)
    assert left["object"].metadata.resource_version == changed.metadata.resource_version
    stream.close()


def test_a_watch_timeout_is_a_whole_number_of_seconds(kube_api, core):
    with pytest.raises(ApiException) as refused:
        core.list_namespaced_pod(kube_api.namespace, watch=True, timeout_seconds=1.5)
    assert status(refused.value) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'strconv.ParseInt: parsing "1.5": invalid syntax',
        "reason": "BadRequest",
        "code": 400,
    }


def test_bookmarks_arrive_with_the_current_revision(kube_api, core):
    if not isinstance(kube_api, LocalKubeApi):
        pytest.skip("kube-apiserver sends bookmarks once a minute (the test server: on demand)")
    ns = kube_api.namespace
    since = core.list_namespaced_pod(ns).metadata.resource_version
    kube_api.create({"kind": "Node", "apiVersion": "v1", "metadata": {"name": f"{PREFIX}n"}})
    stream = watch.Watch().stream(
        core.list_namespaced_pod,
        ns,
        resource_version=since,
        allow_watch_bookmarks=True,
        timeout_seconds=WATCH_SECONDS,
    )
    bookmark = next(stream)
    assert bookmark["type"] == "BOOKMARK"
    assert bookmark["raw_object"]["kind"] == "Pod"
    assert int(bookmark["raw_object"]["metadata"]["resourceVersion"]) > int(since)
    stream.close()


def assert_expired(core, ns: str, since: str) -> None:
    """A watch from ``since`` is answered 410, in kube-apiserver's words."""
    with pytest.raises(ApiException) as gone:
        list(
            watch.Watch().stream(
                core.list_namespaced_pod, ns, resource_version=since, timeout_seconds=WATCH_SECONDS
            )
        )
    assert gone.value.status == 410
    assert gone.value.reason.startswith(f"Expired: too old resource version: {since} (")


def test_a_watch_from_a_compacted_version_gets_410_expired(kube_api, core):
    ns = kube_api.namespace
    since = core.list_namespaced_pod(ns).metadata.resource_version
    core.create_namespaced_pod(ns, pod("c1"))
    kube_api.compact()

    assert_expired(core, ns, since)

    fresh = core.list_namespaced_pod(ns).metadata.resource_version
    core.create_namespaced_pod(ns, pod("c2"))
    stream = watch.Watch().stream(
        core.list_namespaced_pod, ns, resource_version=fresh, timeout_seconds=WATCH_SECONDS
    )
    assert next(stream)["object"].metadata.name == "c2"
    stream.close()


def watch_in_thread(core, ns) -> tuple[threading.Thread, list, list]:
    events, errors = [], []
    started = threading.Event()

    def run():
        try:
            for event in watch.Watch().stream(core.list_namespaced_pod, ns, timeout_seconds=30):
                events.append(event)
                started.set()
        except Exception as err:
            errors.append(err)
        started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(WATCH_SECONDS)
    return thread, events, errors


def test_a_cleanly_dropped_stream_ends_the_clients_stream(kube_api, core):
    core.create_namespaced_pod(kube_api.namespace, pod("d1"))
    thread, events, errors = watch_in_thread(core, kube_api.namespace)
    assert kube_api.drop_watches() == 1
    thread.join(WATCH_SECONDS)
    assert not thread.is_alive()
    assert [e["type"] for e in events] == ["ADDED"] and errors == []


def test_a_cut_stream_raises_in_the_client(kube_api, core):
    core.create_namespaced_pod(kube_api.namespace, pod("d2"))
    thread, _, errors = watch_in_thread(core, kube_api.namespace)
    kube_api.drop_watches(clean=False)
    thread.join(WATCH_SECONDS)
    assert not thread.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], urllib3.exceptions.ProtocolError)


def test_an_open_watch_expired_mid_stream_raises_410_in_the_client(kube_api, core):
    core.create_namespaced_pod(kube_api.namespace, pod("e1"))
    thread, events, errors = watch_in_thread(core, kube_api.namespace)
    assert kube_api.expire_watches() == 1
    thread.join(WATCH_SECONDS)
    assert not thread.is_alive() and [e["type"] for e in events] == ["ADDED"]
    assert len(errors) == 1 and errors[0].status == 410
    assert errors[0].reason.startswith("Expired: too old resource version: ")


def binding(name: str, node: str, uid: str | None = None) -> dict:
    meta = {"name": name, **({"uid": uid} if uid else {})}
    return {"apiVersion": "v1", "kind": "Binding", "metadata": meta, "target": {"name": node}}


def test_a_binding_sets_the_node_once_and_a_second_binding_conflicts(kube_api, core):
    ns = kube_api.namespace
    created = core.create_namespaced_pod(ns, pod("b1"))
    node = f"{PREFIX}node-1"

    # The server answers a binding with a Status, which the client cannot read as a V1Binding:
    # callers must not preload the content (kubernetes-client/python#825).
    response = core.create_namespaced_pod_binding(
        "b1", ns, binding("b1", node, created.metadata.uid), _preload_content=False
    )
    assert response.status == 201
    assert json.loads(response.data)["status"] == "Success"
    bound = core.read_namespaced_pod("b1", ns)
    assert bound.spec.node_name == node
    assert [(c.type, c.status) for c in bound.status.conditions] == [("PodScheduled", "True")]

    with pytest.raises(ApiException) as again:
        core.create_namespaced_pod_binding("b1", ns, binding("b1", "other"), _preload_content=False)
    assert again.value.status == 409
    assert status(again.value)["reason"] == "Conflict"
    assert status(again.value)["message"] == (
        f'Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node '
        f'"{node}"'
    )

    with pytest.raises(ApiException) as missing:
        core.create_namespaced_pod_binding(
            "nope", ns, binding("nope", node), _preload_content=False
        )
    assert (missing.value.status, status(missing.value)["message"]) == (
        404,
        'pods "nope" not found',
    )

    core.create_namespaced_pod(ns, pod("b2"))
    with pytest.raises(ValueError, match="target"):
        core.create_namespaced_pod_binding("b2", ns, binding("b2", node))


def test_a_binding_with_a_stale_uid_fails_its_precondition(kube_api, core):
    ns = kube_api.namespace
    core.create_namespaced_pod(ns, pod("u1"))
    with pytest.raises(ApiException) as stale:
        core.create_namespaced_pod_binding(
            "u1", ns, binding("u1", f"{PREFIX}n", "0000-stale"), _preload_content=False
        )
    assert stale.value.status == 409
    assert "Precondition failed: UID in precondition: 0000-stale" in status(stale.value)["message"]
    assert core.read_namespaced_pod("u1", ns).spec.node_name is None


def test_status_patches_merge_conditions_by_type_and_leave_the_spec_alone(kube_api, core):
    ns = kube_api.namespace
    core.create_namespaced_pod(ns, pod("p1"))
    unschedulable = {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "0/3 nodes are available: 3 Insufficient cpu.",
    }
    core.patch_namespaced_pod_status(
        "p1", ns, {"status": {"conditions": [unschedulable], "nominatedNodeName": f"{PREFIX}n2"}}
    )
    target = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}
    patched = core.patch_namespaced_pod_status(
        "p1", ns, {"status": {"conditions": [target]}, "spec": {"nodeName": "sneaky"}}
    )
    # A condition the pod did not have goes first (upstream's mergeSortedSlice).
    assert [c.type for c in patched.status.conditions] == ["DisruptionTarget", "PodScheduled"]
    assert patched.status.nominated_node_name == f"{PREFIX}n2"
    assert patched.spec.node_name is None

    merged = core.patch_namespaced_pod_status(
        "p1",
        ns,
        {"status": {"conditions": [target], "nominatedNodeName": None}},
        _content_type="application/merge-patch+json",
    )
    assert [c.type for c in merged.status.conditions] == ["DisruptionTarget"]
    assert merged.status.nominated_node_name is None


def test_a_lease_update_from_a_stale_copy_conflicts(kube_api):
    leases = client.CoordinationV1Api(kube_api.client())
    ns = kube_api.namespace
    body = {"metadata": {"name": "pg-scheduler"}, "spec": {"holderIdentity": "a"}}
    first = leases.create_namespaced_lease(ns, body)
    with pytest.raises(ApiException) as exists:
        leases.create_namespaced_lease(ns, body)
    assert (exists.value.status, status(exists.value)["reason"]) == (409, "AlreadyExists")
    assert status(exists.value)["message"] == (
        'leases.coordination.k8s.io "pg-scheduler" already exists'
    )

    first.spec.holder_identity = "b"
    taken = leases.replace_namespaced_lease("pg-scheduler", ns, first)
    assert int(taken.metadata.resource_version) > int(first.metadata.resource_version)
    first.spec.holder_identity = "c"
    with pytest.raises(ApiException) as stale:
        leases.replace_namespaced_lease("pg-scheduler", ns, first)
    assert status(stale.value) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Operation cannot be fulfilled on leases.coordination.k8s.io "pg-scheduler": '
        "the object has been modified; please apply your changes to the latest version and "
        "try again",
        "reason": "Conflict",
        "details": {"name": "pg-scheduler", "group": "coordination.k8s.io", "kind": "leases"},
        "code": 409,
    }
    assert leases.read_namespaced_lease("pg-scheduler", ns).spec.holder_identity == "b"


def review(api, verb: str, resource: str, subresource: str = "", ns: str = "", group: str = ""):
    attributes = client.V1ResourceAttributes(
        verb=verb, resource=resource, subresource=subresource, namespace=ns, group=group
    )
    body = client.V1SelfSubjectAccessReview(
        spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=attributes)
    )
    return api.create_self_subject_access_review(body).status.allowed


def test_self_subject_access_reviews_answer_from_the_policy(kube_api):
    kube_api.deny("create", "pods/binding")
    kube_api.deny("update", "leases", group="coordination.k8s.io")
    api = client.AuthorizationV1Api(kube_api.client())
    ns = kube_api.namespace
    assert review(api, "create", "pods", "binding", ns) is False
    assert review(api, "patch", "pods", "status", ns) is True
    assert review(api, "create", "pods", "", ns) is True
    assert review(api, "update", "leases", "", ns, "coordination.k8s.io") is False
    assert review(api, "get", "leases", "", ns, "coordination.k8s.io") is True


def test_a_wrong_token_gets_401_with_the_status_body(kube_api):
    wrong = client.CoreV1Api(kube_api.client(token="not-a-token"))
    with pytest.raises(ApiException) as denied:
        wrong.list_namespaced_pod(kube_api.namespace)
    assert denied.value.status == 401
    assert status(denied.value)["reason"] == "Unauthorized"
    assert status(denied.value)["kind"] == "Status"


def test_an_expired_token_gets_401(kube_api, core):
    core.list_namespaced_pod(kube_api.namespace)
    kube_api.expire_token("admin")
    with pytest.raises(ApiException) as denied:
        core.list_namespaced_pod(kube_api.namespace)
    assert (denied.value.status, status(denied.value)["message"]) == (401, "Unauthorized")


def test_a_denied_verb_gets_403_with_upstreams_message(kube_api, core):
    ns = kube_api.namespace
    kube_api.deny("create", "pods/binding")
    kube_api.deny("list", "leases", group="coordination.k8s.io", user="admin")
    core.create_namespaced_pod(ns, pod("x"))
    with pytest.raises(ApiException) as denied:
        core.create_namespaced_pod_binding("x", ns, binding("x", "n"), _preload_content=False)
    assert denied.value.status == 403
    assert status(denied.value)["reason"] == "Forbidden"
    assert status(denied.value)["message"] == (
        f'pods "x" is forbidden: User "admin" cannot create resource "pods/binding" in API group '
        f'"" in the namespace "{ns}"'
    )
    with pytest.raises(ApiException) as listing:
        client.CoordinationV1Api(kube_api.client()).list_namespaced_lease(ns)
    assert status(listing.value)["message"] == (
        f'leases.coordination.k8s.io is forbidden: User "admin" cannot list resource "leases" in '
        f'API group "coordination.k8s.io" in the namespace "{ns}"'
    )
    nodes = client.CoreV1Api(kube_api.client())
    kube_api.deny("watch", "nodes")
    with pytest.raises(ApiException) as cluster_scope:
        next(watch.Watch().stream(nodes.list_node, timeout_seconds=1))
    assert status(cluster_scope.value)["message"].endswith(
        'cannot watch resource "nodes" in API group "" at the cluster scope'
    )


def test_tls_verification_fails_with_another_ca(kube_api):
    stranger = client.CoreV1Api(kube_api.client(ca_pem=make_certificates("other").ca_pem))
    stranger.api_client.rest_client.pool_manager.connection_pool_kw["retries"] = False
    # kubernetes 36.0.3 turns the SSLError into ApiException(status=0), then fails on its
    # empty body with an AttributeError: the verification failure is in the chain.
    with pytest.raises(Exception) as failed:
        stranger.list_namespaced_pod(kube_api.namespace)
    assert "CERTIFICATE_VERIFY_FAILED" in chain_text(failed.value)


def chain_text(err: BaseException | None) -> str:
    texts = []
    while err is not None:
        texts.append(f"{type(err).__name__}: {err}")
        err = err.__cause__ or err.__context__
    return "\n".join(texts)


def test_a_restart_keeps_every_object_and_drops_the_watches_and_the_history(kube_api, core):
    ns = kube_api.namespace
    before = core.create_namespaced_pod(ns, pod("r1"))
    core.create_namespaced_pod(ns, pod("r2"))  # a change after r1: the history a watch needs
    thread, _, errors = watch_in_thread(core, ns)
    kube_api.restart()
    thread.join(WATCH_SECONDS)
    assert not thread.is_alive() and errors == []

    after = core.read_namespaced_pod("r1", ns)
    assert (after.metadata.uid, after.metadata.resource_version) == (
        before.metadata.uid,
        before.metadata.resource_version,
    )
    # The restarted server's watch cache begins at the revision it started at.
    since = before.metadata.resource_version
    assert_expired(core, ns, since)
    fresh = core.list_namespaced_pod(ns).metadata.resource_version
    later = core.create_namespaced_pod(ns, pod("r3"))
    assert int(later.metadata.resource_version) > int(since)
    resumed = watch.Watch().stream(
        core.list_namespaced_pod, ns, resource_version=fresh, timeout_seconds=WATCH_SECONDS
    )
    assert next(resumed)["object"].metadata.name == "r3"
    resumed.close()


def test_a_slow_path_delays_its_responses(kube_api, core):
    ns = kube_api.namespace
    kube_api.slow(f"/api/v1/namespaces/{ns}/pods", 0.4)
    started = time.monotonic()
    core.list_namespaced_pod(ns)
    assert time.monotonic() - started >= 0.4
    core.api_client.rest_client.pool_manager.connection_pool_kw["retries"] = False
    with pytest.raises(urllib3.exceptions.ReadTimeoutError):
        core.list_namespaced_pod(ns, _request_timeout=0.1)
    started = time.monotonic()
    core.list_namespace()
    assert time.monotonic() - started < 0.4


def test_events_created_through_events_k8s_io_read_back_as_core_events(kube_api, core):
    ns = kube_api.namespace
    regarding = client.V1ObjectReference(kind="Pod", name="e1", namespace=ns)
    client.EventsV1Api(kube_api.client()).create_namespaced_event(
        ns,
        client.EventsV1Event(
            metadata=client.V1ObjectMeta(name="e1.scheduled"),
            event_time=datetime.datetime.now(datetime.UTC),
            reason="Scheduled",
            note=f"Successfully assigned {ns}/e1 to {PREFIX}n1",
            type="Normal",
            action="Binding",
            reporting_controller="pg-scheduler",
            reporting_instance="pg-scheduler-1",
            regarding=regarding,
        ),
    )
    [event] = core.list_namespaced_event(ns).items
    assert (event.reason, event.involved_object.name) == ("Scheduled", "e1")
    assert event.message == f"Successfully assigned {ns}/e1 to {PREFIX}n1"


def test_the_real_cluster_stand_in_works_through_the_client_on_pg_test_objects_only(
    kube_api, tmp_path
):
    if type(kube_api) is RealKubeApi:
        pytest.skip("makes a node not named pg-test-*, which the guard refuses on your cluster")
    path = tmp_path / "kubeconfig"
    path.write_text(kube_api.kubeconfig_text())
    kube_api.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "not-ours"}})
    real = RealKubeApi(str(path))
    assert real.namespace.startswith(PREFIX) and real.namespace != kube_api.namespace

    real.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"{PREFIX}n1"}})
    running = pod("r1", nodeName=f"{PREFIX}n1")
    running["status"] = {"phase": "Running"}
    real.create(running)
    assert [n["metadata"]["name"] for n in real.objects("Node")] == [f"{PREFIX}n1"]
    [stored] = kube_api.objects("Pod", real.namespace)
    assert (stored["spec"]["nodeName"], stored["status"]["phase"]) == (f"{PREFIX}n1", "Running")
    with pytest.raises(ValueError, match=PREFIX):
        real.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "theirs"}})
    with pytest.raises(pytest.skip.Exception):
        real.drop_watches()

    real.close()
    assert [n["metadata"]["name"] for n in kube_api.objects("Node")] == ["not-ours"]
    # Deleted (a namespace controller finishes the job where one runs), the test's own kept.
    phases = {ns["metadata"]["name"]: ns["status"]["phase"] for ns in kube_api.objects("Namespace")}
    assert phases.get(real.namespace, "Terminating") == "Terminating"
    assert phases[kube_api.namespace] == "Active"
    assert kube_api.objects("Pod", real.namespace) == []
