"""The mirror against the Kubernetes API server for tests (``kube_api``, tests/kube/): the
initial sync, events, bookmarks, 410 re-lists, restarts, cut streams, backoff and 403s.

"The mirror equals a fresh list" means: the workspace holds the same names as the server's
store (through the connection's selectors), and the mirror keeps the same resourceVersions.
"""

from __future__ import annotations

import functools
import threading
import time
from urllib.parse import parse_qs

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from kubernetes.client import CoreV1Api

from framework.util.clock import FakeClock
from playground.clusters.connecting import api_client
from playground.clusters.mirror import FOLLOWED, FOLLOWED_KINDS, Mirror
from playground.clusters.models import ClusterConnection
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import ObjectChange
from tests.kube.fixtures import LocalKubeApi

WATCH_SECONDS = 2
"""Each watch call's timeoutSeconds (whole seconds, as kube-apiserver parses it): long beside
the 0.2 s after which a test's background changes start, so that on a loaded machine they
still land while the first watch is open."""
WEB = {"app": "web"}


def manifests() -> list[dict]:
    """One object of every followed kind but Namespace (the fixture made one), labelled web."""
    meta = {"labels": WEB}
    selector = {"matchLabels": WEB}
    template = {"metadata": meta, "spec": pod("template")["spec"]}
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high", **meta},
            "value": 1000,
        },
        {
            "apiVersion": "node.k8s.io/v1",
            "kind": "RuntimeClass",
            "metadata": {"name": "gvisor", **meta},
            "handler": "runsc",
            "overhead": {"podFixed": {"cpu": "250m"}},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "fast", **meta},
            "provisioner": "csi.example.com",
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": "csi.example.com", **meta},
            "spec": {},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": "n1", **meta},
            "spec": {"drivers": []},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com", **meta},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]},
        },
        node("n1", labels=WEB),
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": "n1-gpu", **meta},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": "n1",
                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": "gpu-0"}],
            },
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIStorageCapacity",
            "metadata": {"name": "fast-n1", **meta},
            "storageClassName": "fast",
            "capacity": "10Gi",
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "VolumeAttachment",
            "metadata": {"name": "attachment-1", **meta},
            "spec": {
                "attacher": "csi.example.com",
                "nodeName": "n1",
                "source": {"persistentVolumeName": "pv1"},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1", **meta},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data"},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", **meta},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", **meta},
            "spec": {"selector": WEB, "ports": [{"port": 80}]},
        },
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "rc", **meta},
            "spec": {"selector": WEB, "template": template},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "rs", **meta},
            "spec": {"selector": selector, "template": template},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "sts", **meta},
            "spec": {"selector": selector, "template": template},
        },
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "pdb", **meta},
            "spec": {"minAvailable": 1, "selector": selector},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one-gpu", **meta},
            "spec": {"spec": GPU_CLAIM},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "gpu", **meta},
            "spec": GPU_CLAIM,
        },
        pod("web-1", labels=WEB),
    ]


GPU_CLAIM = {
    "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}
}


def node(name: str, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def pod(name: str, labels: dict | None = None, namespace: str | None = None) -> dict:
    metadata = {"name": name, "labels": labels or dict(WEB)}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


@pytest.fixture
def connect(kube_api, user, workspace):
    """A connection to the test server for the workspace, and a mirror built as the product
    builds one (the stored, encrypted kubeconfig made into an API client)."""
    clients = []

    def make(namespaces: str = "", label_selector: str = "", **options) -> Mirror:
        connection = ClusterConnection(
            name=f"test-{len(clients)}",
            owner=user,
            workspace=workspace,
            server=kube_api.url,
            namespaces=namespaces,
            label_selector=label_selector,
        )
        connection.set_kubeconfig(kube_api.kubeconfig_text())
        connection.save()
        client = api_client(connection)
        clients.append(client)
        options.setdefault("watch_seconds", WATCH_SECONDS)
        return Mirror(connection, workspace, client, FakeClock(), **options)

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def core(kube_api):
    client = kube_api.client()
    yield CoreV1Api(client)
    client.close()


def fresh_list(kube_api, kind: str) -> dict[str, str]:
    """The server's objects of a kind: key -> resourceVersion."""
    return {_key(obj): obj["metadata"]["resourceVersion"] for obj in kube_api.objects(kind)}


def stored_names(workspace, kind: str) -> set[str]:
    return {_key_of(obj) for obj in DatabaseCluster(workspace).list(kind)}


def assert_mirror_equals_fresh_list(mirror: Mirror, kube_api, workspace, kinds) -> None:
    for kind in kinds:
        expected = fresh_list(kube_api, kind)
        assert mirror.versions(kind) == expected, kind
        assert stored_names(workspace, kind) == set(expected), kind


def changes(workspace, **filters) -> list[tuple[str, str, str]]:
    rows = ObjectChange.objects.filter(workspace=workspace, **filters).order_by("id")
    return list(rows.values_list("event_type", "kind", "name"))


def catch_up(mirror: Mirror, kube_api, kinds, seconds: float = 20.0) -> None:
    """Steps the mirror (its clock past any backoff each time) until it has the server's
    versions of ``kinds``: on a loaded machine the changes a test makes in the background may
    land in any of its watch rounds. What it wrote meanwhile is for the test to check."""
    deadline = time.monotonic() + seconds
    while any(mirror.versions(kind) != fresh_list(kube_api, kind) for kind in kinds):
        assert time.monotonic() < deadline, mirror.state()
        mirror.clock.step(60.0)
        mirror.step()


def steps_in_background(*actions, delay: float = 0.2) -> threading.Timer:
    """Run the actions on the server while the mirror's watch is open."""

    def act() -> None:
        for action in actions:
            action()

    timer = threading.Timer(delay, act)
    timer.start()
    return timer


def _key(obj: dict) -> str:
    meta = obj["metadata"]
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]


def _key_of(obj) -> str:
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name


# ----------------------------------------------------------------------------------------------


def test_the_initial_sync_copies_every_kind(kube_api, connect, workspace):
    for manifest in manifests():
        created = kube_api.create(manifest)
    mirror = connect()
    assert mirror.status() == "syncing"
    mirror.sync()
    assert mirror.status() == "synced"
    state = mirror.state()
    assert list(state) == list(FOLLOWED_KINDS)
    for followed in FOLLOWED:
        kind = followed.kind
        assert state[kind]["synced"] and state[kind]["error"] == "", kind
        if followed.optional:  # the workload API: neither test server serves it
            assert (state[kind]["served"], state[kind]["objects"]) == (False, 0), kind
            continue
        assert state[kind]["served"], kind
        assert state[kind]["objects"] == len(fresh_list(kube_api, kind)) >= 1, kind
        # The list's revision: after every object made, and at most the server's now.
        listed = int(state[kind]["resource_versions"][""])
        assert int(created["metadata"]["resourceVersion"]) <= listed <= kube_api.revision()
        assert mirror.versions(kind) == fresh_list(kube_api, kind), kind
        if followed.stored:
            assert stored_names(workspace, kind) == set(fresh_list(kube_api, kind)), kind
    # Every kind the engine reads is stored, the DRA kinds and CSIDriver among them.
    assert all(followed.stored for followed in FOLLOWED)
    for kind in ("DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim"):
        assert stored_names(workspace, kind), kind
    assert stored_names(workspace, "CSIDriver") == {"csi.example.com"}
    claim = DatabaseCluster(workspace).get("ResourceClaim", "gpu", kube_api.namespace)
    assert claim.spec.requests[0].name == "gpu"
    stored_pod = DatabaseCluster(workspace).get("Pod", "web-1", kube_api.namespace)
    served = kube_api.get("Pod", "web-1", kube_api.namespace)
    assert stored_pod.uid == served["metadata"]["uid"]
    assert stored_pod.manifest["spec"]["schedulerName"] == "default-scheduler"
    assert "managedFields" not in stored_pod.manifest["metadata"]
    # Listing again writes nothing: every object is unchanged.
    before = changes(workspace)
    mirror.streams[0].listed = False
    mirror.sync()
    assert changes(workspace) == before


def test_selectors_choose_namespaces_and_labels(kube_api, connect, workspace):
    kube_api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    kube_api.create(pod("web-1"))
    kube_api.create(pod("db-1", labels={"app": "db"}))
    kube_api.create(pod("web-elsewhere", namespace="other"))
    kube_api.create(node("n-web", labels=WEB))
    kube_api.create(node("n-plain"))
    mirror = connect(namespaces=kube_api.namespace, label_selector="app=web")
    mirror.sync()
    ns = kube_api.namespace
    assert stored_names(workspace, "Pod") == {f"{ns}/web-1"}
    # Cluster-scoped kinds ignore the namespaces, not the labels.
    assert stored_names(workspace, "Node") == {"n-web"}
    assert [request["query"] for request in _lists(kube_api, "/pods")] == [
        {"limit": "500", "labelSelector": "app=web"}
    ]
    assert _lists(kube_api, "/pods")[0]["path"] == f"/api/v1/namespaces/{ns}/pods"


def _lists(kube_api, suffix: str) -> list[dict]:
    return [
        {"path": r.path, "query": _flat(r.query)}
        for r in kube_api.requests
        if r.method == "GET" and r.path.endswith(suffix) and "watch" not in _flat(r.query)
    ]


def _watches(kube_api, suffix: str) -> list[dict]:
    """The query of every watch request on paths ending with ``suffix``."""
    return [
        _flat(r.query)
        for r in kube_api.requests
        if r.path.endswith(suffix) and _flat(r.query).get("watch") == "true"
    ]


def _flat(query: str) -> dict:
    return {key: values[-1] for key, values in parse_qs(query, keep_blank_values=True).items()}


def test_later_creates_updates_and_deletes_arrive(kube_api, connect, core, workspace):
    ns = kube_api.namespace
    kube_api.create(node("n1"))
    kube_api.create(pod("web-1"))
    kube_api.create(pod("web-2"))
    mirror = connect(kinds=("Node", "Pod"))
    mirror.sync()
    start = DatabaseCluster(workspace).latest_change_id()
    timer = steps_in_background(
        lambda: core.create_namespaced_pod(ns, pod("web-3")),
        lambda: core.patch_namespaced_pod("web-1", ns, {"metadata": {"labels": {"tier": "a"}}}),
        lambda: core.delete_namespaced_pod("web-2", ns),
        lambda: core.create_node(node("n2")),
    )
    mirror.step()
    timer.join()
    catch_up(mirror, kube_api, ("Node", "Pod"))  # what arrived after the first round's watches
    assert stored_names(workspace, "Pod") == {f"{ns}/web-1", f"{ns}/web-3"}
    assert DatabaseCluster(workspace).get("Pod", "web-1", ns).metadata.labels["tier"] == "a"
    assert changes(workspace, id__gt=start, kind="Pod") == [
        ("ADDED", "Pod", "web-3"),
        ("MODIFIED", "Pod", "web-1"),
        ("MODIFIED", "Pod", "web-2"),  # its deletionTimestamp, written before it goes
        ("DELETED", "Pod", "web-2"),
    ]
    assert changes(workspace, id__gt=start, kind="Node") == [("ADDED", "Node", "n2")]
    assert_mirror_equals_fresh_list(mirror, kube_api, workspace, ("Node", "Pod"))


def test_a_watch_timeout_that_is_not_whole_seconds_is_refused_by_name(connect):
    # kube-apiserver answers timeoutSeconds=1.5 with a 400, and the mirror would retry for ever.
    with pytest.raises(ValueError, match=r"^watch_seconds: must be a whole number of seconds"):
        connect(watch_seconds=1.5)


def test_bookmarks_advance_the_kept_version(kube_api, connect):
    if not isinstance(kube_api, LocalKubeApi):
        pytest.skip("kube-apiserver sends bookmarks once a minute (the test server: on demand)")
    kube_api.create(node("n1"))
    mirror = connect(kinds=("Node",), watch_seconds=1)
    mirror.sync()
    listed = mirror.state()["Node"]["resource_versions"][""]
    kube_api.create(pod("web-1"))  # another kind: no Node event, a newer revision
    mirror.step()
    assert int(listed) < kube_api.store.rv
    assert mirror.state()["Node"]["resource_versions"][""] == str(kube_api.store.rv)
    assert [query["allowWatchBookmarks"] for query in _watches(kube_api, "/nodes")] == ["true"]


def test_a_watch_expired_mid_stream_relists_and_applies_nothing_twice(
    kube_api, connect, core, workspace
):
    ns = kube_api.namespace
    for name in ("web-1", "web-2", "web-3"):
        kube_api.create(pod(name))
    mirror = connect(kinds=("Pod",))
    mirror.sync()
    start = DatabaseCluster(workspace).latest_change_id()
    timer = steps_in_background(
        lambda: core.create_namespaced_pod(ns, pod("web-4")),
        kube_api.expire_watches,
        lambda: core.delete_namespaced_pod("web-1", ns),
        lambda: core.patch_namespaced_pod("web-2", ns, {"metadata": {"labels": {"tier": "a"}}}),
    )
    mirror.step()  # the watch ends with 410 Gone
    timer.join()
    assert mirror.state()["Pod"]["relists"] == 1 and not mirror.state()["Pod"]["synced"]
    mirror.step()  # lists again and reconciles
    assert mirror.status() == "synced"
    assert_mirror_equals_fresh_list(mirror, kube_api, workspace, ("Pod",))
    written = changes(workspace, id__gt=start)
    assert sorted(written) == [
        ("ADDED", "Pod", "web-4"),
        ("DELETED", "Pod", "web-1"),
        ("MODIFIED", "Pod", "web-2"),
    ]


def test_a_compacted_history_relists_and_reconciles(kube_api, connect, core, workspace):
    ns = kube_api.namespace
    for name in ("web-1", "web-2", "web-3"):
        kube_api.create(pod(name))
    mirror = connect(kinds=("Pod",))
    mirror.sync()
    start = DatabaseCluster(workspace).latest_change_id()
    # Changes while the mirror is away, then the history it would watch from is gone.
    core.delete_namespaced_pod("web-1", ns)
    core.patch_namespaced_pod("web-2", ns, {"metadata": {"labels": {"tier": "a"}}})
    core.create_namespaced_pod(ns, pod("web-4"))
    kube_api.compact()
    mirror.step()
    mirror.step()
    assert mirror.state()["Pod"]["relists"] == 1
    assert_mirror_equals_fresh_list(mirror, kube_api, workspace, ("Pod",))
    assert changes(workspace, id__gt=start) == [
        ("DELETED", "Pod", "web-1"),
        ("MODIFIED", "Pod", "web-2"),
        ("ADDED", "Pod", "web-4"),
    ]


def test_a_server_restart_loses_and_duplicates_nothing(kube_api, connect, core, workspace):
    ns = kube_api.namespace
    kube_api.create(pod("web-1"))
    mirror = connect(kinds=("Pod",))
    mirror.sync()
    start = DatabaseCluster(workspace).latest_change_id()
    timer = steps_in_background(
        lambda: core.create_namespaced_pod(ns, pod("web-2")),
        kube_api.restart,
        lambda: core.create_namespaced_pod(ns, pod("web-3")),
    )
    mirror.step()
    timer.join()
    # However the restart fell among the steps (on a loaded machine a step may find the
    # server down and back off), the mirror catches up.
    catch_up(mirror, kube_api, ("Pod",))
    assert_mirror_equals_fresh_list(mirror, kube_api, workspace, ("Pod",))
    assert changes(workspace, id__gt=start) == [
        ("ADDED", "Pod", "web-2"),
        ("ADDED", "Pod", "web-3"),
    ]
    assert mirror.status() == "synced"


def test_a_restart_that_loses_the_history_relists_without_rewriting(
    kube_api, connect, core, workspace
):
    ns = kube_api.namespace
    kube_api.create(pod("web-1"))
    mirror = connect(kinds=("Pod",))
    mirror.sync()
    core.create_namespaced_pod(ns, pod("web-2"))
    start = DatabaseCluster(workspace).latest_change_id()
    kube_api.restart()  # the new watch cache has no history before it
    for _ in range(3):
        mirror.step()
    assert mirror.state()["Pod"]["relists"] == 1
    assert_mirror_equals_fresh_list(mirror, kube_api, workspace, ("Pod",))
    assert changes(workspace, id__gt=start) == [("ADDED", "Pod", "web-2")]


def test_a_cut_stream_reconnects_from_the_kept_version(kube_api, connect, core, workspace):
    ns = kube_api.namespace
    mirror = connect(kinds=("Pod",))
    mirror.sync()
    cut = [functools.partial(kube_api.drop_watches, clean=False)]
    if not isinstance(kube_api, LocalKubeApi):
        # kube-apiserver's cut is a SIGKILL and a restart: a write the watch does not hear
        # first makes sure the new watch cache starts past the kept version.
        cut.insert(0, lambda: core.create_node(node("n1")))
    timer = steps_in_background(*cut, lambda: core.create_namespaced_pod(ns, pod("web-1")))
    mirror.step()
    timer.join()
    assert mirror.state()["Pod"]["error"] == ""
    catch_up(mirror, kube_api, ("Pod",))
    assert stored_names(workspace, "Pod") == {f"{ns}/web-1"}
    watches = [query["resourceVersion"] for query in _watches(kube_api, "/pods")]
    assert watches[0] == watches[1]  # the same kept version
    if isinstance(kube_api, LocalKubeApi):  # only the connection was cut: the watch goes on
        assert mirror.state()["Pod"]["relists"] == 0 and len(watches) == 2
    else:  # a SIGKILL and a restart: the new watch cache answers the kept version 410
        assert mirror.state()["Pod"]["relists"] == 1


def test_an_unreachable_server_backs_off_and_recovers(kube_api, connect, workspace):
    mirror = connect(kinds=("Node",), backoff_seconds=1, backoff_cap_seconds=4)
    kube_api.stop()
    try:
        delays = []
        for _ in range(4):
            now = mirror.clock.now()
            assert mirror.step() == 1
            delays.append(mirror.streams[0].retry_at - now)
            assert mirror.step() == 0  # backing off: no call
            mirror.clock.set_time(mirror.streams[0].retry_at)
        assert delays == [1, 2, 4, 4]
        assert mirror.status() == "failing"
        assert mirror.state()["Node"]["error"] == (
            f"Node: the API server at {kube_api.url} is unreachable: connection refused"
        )
    finally:
        kube_api.start()
    kube_api.create(node("n1"))
    mirror.step()
    assert mirror.status() == "synced" and mirror.state()["Node"]["error"] == ""
    assert stored_names(workspace, "Node") == {"n1"}


def test_a_denied_list_is_the_kinds_error_and_the_others_go_on(kube_api, connect, workspace):
    kube_api.deny("list", "persistentvolumes")
    kube_api.create(node("n1"))
    mirror = connect()
    mirror.sync()
    state = mirror.state()
    assert state["PersistentVolume"]["error"] == (
        'PersistentVolume: 403 Forbidden: persistentvolumes is forbidden: User "admin" cannot '
        'list resource "persistentvolumes" in API group "" at the cluster scope'
    )
    assert not state["PersistentVolume"]["synced"] and mirror.status() == "failing"
    others = [kind for kind in FOLLOWED_KINDS if kind != "PersistentVolume"]
    assert all(state[kind]["synced"] and not state[kind]["error"] for kind in others)
    assert stored_names(workspace, "Node") == {"n1"}


def test_a_new_mirror_over_a_mirrored_workspace_rewrites_nothing(kube_api, connect, workspace):
    """A restarted mirror (a worker taking over) keeps no versions: unchanged manifests are
    recognised by content, so only real changes are written."""
    for manifest in manifests():
        kube_api.create(manifest)
    connect().sync()
    start = DatabaseCluster(workspace).latest_change_id()
    kube_api.create(pod("web-2"))
    again = connect()
    again.sync()
    assert again.status() == "synced"
    assert changes(workspace, id__gt=start) == [("ADDED", "Pod", "web-2")]
    assert_mirror_equals_fresh_list(again, kube_api, workspace, ("Node", "Pod", "Service"))


def test_observers_hear_every_change_the_mirror_applies(kube_api, connect, core):
    """A recording hears each applied change once, in order: the initial list's objects as
    ADDED, a watch's MODIFIED and DELETED, and a re-list's reconcile as the changes it made."""
    kube_api.create(node("n1"))
    kube_api.create(node("n2"))
    heard: list[tuple[str, str]] = []
    mirror = connect(kinds=["Node"])
    mirror.observers.append(lambda event, obj: heard.append((event, obj["metadata"]["name"])))
    mirror.sync()
    assert sorted(heard) == [("ADDED", "n1"), ("ADDED", "n2")]
    heard.clear()
    timer = steps_in_background(
        lambda: core.patch_node("n1", {"metadata": {"labels": {"zone": "a"}}}),
        lambda: core.delete_node("n2"),
    )
    mirror.step()
    timer.join()
    catch_up(mirror, kube_api, ["Node"])
    assert heard == [("MODIFIED", "n1"), ("DELETED", "n2")]
    heard.clear()
    core.delete_node("n1")
    core.create_node(node("n3"))
    kube_api.compact()
    catch_up(mirror, kube_api, ["Node"])
    assert mirror.state()["Node"]["relists"] == 1
    assert heard == [("DELETED", "n1"), ("ADDED", "n3")]


def test_the_lag_is_the_time_since_a_stream_not_watching_heard_from_the_server(
    kube_api, connect, core
):
    kube_api.create(node("n1"))
    mirror = connect(kinds=["Node"])
    mirror.clock.step(5.0)
    assert mirror.lag() == 5.0  # never listed: since the mirror started
    mirror.sync()
    assert mirror.lag() == 0.0
    mirror.clock.step(30.0)
    assert mirror.lag() == 30.0  # listed, then nothing heard
    mirror.step()  # a watch that ends with nothing to tell is an answer too
    assert mirror.lag() == 0.0

    # While a watch is open the workspace is as current as the events: no lag at all.
    lags = []

    def later_while_watching(*_) -> None:
        mirror.clock.step(100.0)
        lags.append(mirror.lag())

    mirror.observers.append(later_while_watching)
    timer = steps_in_background(lambda: core.create_node(node("n2")))
    mirror.step()
    timer.join()
    catch_up(mirror, kube_api, ["Node"])
    assert lags == [0.0]

    kube_api.stop()
    mirror.step()
    assert mirror.status() == "failing"
    mirror.clock.step(10.0)
    assert mirror.lag() == 10.0


def test_a_burst_of_events_is_written_together_and_in_order(kube_api, connect, workspace):
    """Watch events that arrived together are written in runs: upserts of distinct objects in
    one insert of their changes, a deletion after them, an object named twice in a later run,
    so the change log and the observers follow the events' order."""
    mirror = connect(kinds=["Pod"])
    mirror.sync()
    stream = mirror.streams[0]
    heard: list[tuple[str, str]] = []
    mirror.observers.append(lambda event, obj: heard.append((event, obj["metadata"]["name"])))
    created = [kube_api.create(pod(f"web-{i}")) for i in range(50)]
    renamed = {**created[0], "metadata": {**created[0]["metadata"], "labels": {"tier": "b"}}}
    renamed["metadata"]["resourceVersion"] = str(
        int(created[-1]["metadata"]["resourceVersion"]) + 1
    )
    events = [{"type": "ADDED", "object": obj} for obj in created]
    events += [
        {"type": "MODIFIED", "object": renamed},
        {"type": "DELETED", "object": created[1]},
    ]
    start = DatabaseCluster(workspace).latest_change_id()

    with CaptureQueriesContext(connection) as queries:
        mirror._apply_events(stream, events)

    change_inserts = [
        q for q in queries if q["sql"].startswith('INSERT INTO "workspaces_objectchange"')
    ]
    assert len(change_inserts) == 3  # 50 creates, the update, the deletion
    assert changes(workspace, id__gt=start) == [
        *(("ADDED", "Pod", f"web-{i}") for i in range(50)),
        ("MODIFIED", "Pod", "web-0"),
        ("DELETED", "Pod", "web-1"),
    ]
    assert heard == [
        *(("ADDED", f"web-{i}") for i in range(50)),
        ("MODIFIED", "web-0"),
        ("DELETED", "web-1"),
    ]
    assert DatabaseCluster(workspace).get("Pod", "web-0", kube_api.namespace).labels == {
        "tier": "b"
    }
    assert stream.resource_version == created[1]["metadata"]["resourceVersion"]
