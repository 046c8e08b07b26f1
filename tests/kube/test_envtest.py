"""The session's control plane from envtest's assets (tests/kube/control_plane.py, envtest.py):
a folder without the binaries is named, and a test leaves the shared cluster as it found it,
running."""

from __future__ import annotations

import os

import pytest
import urllib3
from kubernetes import client

from tests.kube.control_plane import ASSETS_ENV, ControlPlane, ControlPlaneError
from tests.kube.fixtures import ControlPlaneKubeApi

needs_assets = pytest.mark.skipif(
    not os.getenv(ASSETS_ENV), reason=f"{ASSETS_ENV} names no envtest assets"
)


def test_a_folder_without_the_binaries_is_refused_by_name(tmp_path):
    (tmp_path / "etcd").write_text("")
    with pytest.raises(ControlPlaneError, match=f"^{ASSETS_ENV}={tmp_path} has no executable etcd"):
        ControlPlane(tmp_path, folder=tmp_path / "plane").start()  # no folder left in /tmp


@needs_assets
def test_what_a_test_made_is_gone_after_it_even_where_no_controller_would_finish(
    kube_control_plane,
):
    api = ControlPlaneKubeApi(kube_control_plane)
    api.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "finalizers": ["example.com/keep"]},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "pause"}]},
    }
    api.create(pod)  # bound, with a finalizer: alone it would never go
    api.create({**pod, "metadata": {"name": "q", "namespace": "other"}})
    core = client.CoreV1Api(api.client())
    core.delete_namespaced_pod("p", api.namespace)  # now Terminating, and would stay so
    api.deny("create", "pods/binding")
    api.close()

    assert set(kube_control_plane.keys()) == kube_control_plane.baseline
    assert kube_control_plane.denied == {}
    names = {ns.metadata.name for ns in core.list_namespace().items}
    assert {"other", api.namespace} & names == set()


@needs_assets
def test_a_test_that_leaves_kube_apiserver_stopped_hands_on_a_running_one(kube_control_plane):
    api = ControlPlaneKubeApi(kube_control_plane)
    core = client.CoreV1Api(api.client())
    api.stop()
    with pytest.raises(urllib3.exceptions.MaxRetryError, match="Connection refused"):
        core.list_namespace()
    api.close()

    assert kube_control_plane.plane.apiserver_running
    names = {ns.metadata.name for ns in core.list_namespace().items}
    assert "default" in names and api.namespace not in names
