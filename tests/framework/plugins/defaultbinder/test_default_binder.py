"""DefaultBinder: binds through the cluster; a refusal is an Error carrying its text."""

from __future__ import annotations

from typing import Any

from framework.cluster.interface import BindError
from framework.cluster.memory import InMemoryCluster
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.defaultbinder.default_binder import DefaultBinder
from framework.plugins.feature import Features
from tests.framework.builders import make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import framework_of

NODE = "foohost.kubernetes.mydomain.com"


class RefusingCluster:
    """Records the binding it was asked for and refuses it."""

    def __init__(self) -> None:
        self.bindings: list[tuple[str, str, str, str]] = []

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        self.bindings.append((namespace, name, uid, node_name))
        raise BindError("binding error")


class Handle:
    def __init__(self, cluster: Any) -> None:
        self._cluster = cluster

    def cluster(self) -> Any:
        return self._cluster


def binder(cluster: Any) -> DefaultBinder:
    return DefaultBinder(None, Handle(cluster), Features())


def test_it_binds_the_pod_to_the_node():
    pod = make_pod("foo", "ns")
    cluster = InMemoryCluster([pod])
    assert binder(cluster).bind(CycleState(), pod, NODE) is None
    assert cluster.get("Pod", "foo", "ns").spec.node_name == NODE


def test_it_sends_namespace_name_uid_and_node():
    pod = make_pod("foo", "ns", uid="uid-1")
    cluster = RefusingCluster()
    binder(cluster).bind(CycleState(), pod, NODE)
    assert cluster.bindings == [("ns", "foo", "uid-1", NODE)]


def test_a_binding_error_becomes_an_error_status_with_its_text():
    status = binder(RefusingCluster()).bind(CycleState(), make_pod("foo", "ns"), NODE)
    assert status == Status(Code.ERROR, err=BindError("binding error"))
    assert status.message() == "binding error"


def test_a_uid_mismatch_is_refused_with_the_api_server_message():
    recreated = make_pod("foo", "ns", uid="new")
    cluster = InMemoryCluster([recreated])
    status = binder(cluster).bind(CycleState(), make_pod("foo", "ns", uid="old"), NODE)
    assert status.code == Code.ERROR
    assert "the UID in the precondition (old) does not match the UID in record (new)" in (
        status.message()
    )
    assert cluster.get("Pod", "foo", "ns").spec.node_name == ""


def test_without_a_cluster_binding_is_an_error():
    status = binder(None).bind(CycleState(), make_pod("foo", "ns"), NODE)
    assert status.code == Code.ERROR


def test_the_framework_wraps_a_refused_binding_with_the_plugin_name():
    fwk = framework_of(
        [InTree(DefaultBinder)],
        points={"bind": [names.DEFAULT_BINDER]},
        cluster=RefusingCluster(),
    )
    status = fwk.run_bind_plugins(CycleState(), make_pod("foo", "ns"), NODE)
    assert status.code == Code.ERROR
    assert status.message() == 'running Bind plugin "DefaultBinder": binding error'
