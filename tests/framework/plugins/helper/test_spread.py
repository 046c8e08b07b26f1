"""The default spreading selector from Services and controllers selecting a pod.

Ported from upstream's TestGetPodServices and TestDefaultSelector (helper/spread_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.loader import parse_object
from framework.cluster.memory import InMemoryCluster
from framework.plugins.helper.spread import default_selector, get_pod_services
from tests.framework.plugins.wrappers import make_pod

NAMESPACE = "test"


def obj(kind: str, name: str, spec: dict[str, Any], api_version: str = "v1") -> Any:
    return parse_object(
        {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": spec,
        }
    )


SERVICES = [obj("Service", f"service-{i}", {"selector": {"app": f"test-{i}"}}) for i in range(3)]


@pytest.mark.parametrize(
    ("index", "want"),
    [
        pytest.param(0, ["service-0"], id="pod 0 is selected by service 0"),
        pytest.param(1, ["service-1"], id="pod 1 is selected by service 1"),
        pytest.param(2, ["service-2"], id="pod 2 is selected by service 2"),
        pytest.param(3, [], id="pod 3 is selected by no service"),
        pytest.param(4, [], id="pod 4 is selected by no service"),
    ],
)
def test_get_pod_services_finds_the_services_selecting_the_pod(index: int, want: list[str]) -> None:
    pod = (
        make_pod()
        .name(f"test-pod-{index}")
        .namespace(NAMESPACE)
        .label("app", f"test-{index}")
        .label("label", f"label-{index}")
        .obj()
    )

    got = get_pod_services(InMemoryCluster(SERVICES), pod)

    assert [service.name for service in got] == want


SERVICE = obj("Service", "test-service", {"selector": {"podLabelKey": "podLabelVal"}})
REPLICA_SET = obj(
    "ReplicaSet",
    "test-replicaset",
    {"selector": {"matchLabels": {"replicaSetLabelKey": "replicaSetLabelVal"}}},
    "apps/v1",
)
REPLICATION_CONTROLLER = obj(
    "ReplicationController",
    "test-replicationcontroller",
    {"selector": {"replicationLabelKey": "replicationLabelVal"}},
)
STATEFUL_SET = obj(
    "StatefulSet",
    "test-statefulset",
    {"selector": {"matchLabels": {"statefulSetLabelKey": "statefulSetLabelVal"}}},
    "apps/v1",
)


def owned_pod(owner: tuple[str, str, str] | None = None) -> Any:
    wrapper = make_pod().name("test-pod").namespace(NAMESPACE).label("podLabelKey", "podLabelVal")
    if owner is not None:
        wrapper.owner_reference(*owner)
    return wrapper.obj()


@pytest.mark.parametrize(
    ("pod", "objects", "want"),
    [
        pytest.param(owned_pod(), [], "", id="nothing selects the pod"),
        pytest.param(
            owned_pod(), [SERVICE], "podLabelKey=podLabelVal", id="a service selects the pod"
        ),
        pytest.param(
            owned_pod(("test-replicaset", "apps/v1", "ReplicaSet")),
            [SERVICE, REPLICA_SET],
            "podLabelKey=podLabelVal,replicaSetLabelKey=replicaSetLabelVal",
            id="a replica set owns the pod",
        ),
        pytest.param(
            owned_pod(("test-replicationcontroller", "v1", "ReplicationController")),
            [SERVICE, REPLICATION_CONTROLLER],
            "podLabelKey=podLabelVal,replicationLabelKey=replicationLabelVal",
            id="a replication controller owns the pod",
        ),
        pytest.param(
            owned_pod(("test-statefulset", "apps/v1", "StatefulSet")),
            [SERVICE, STATEFUL_SET],
            "podLabelKey=podLabelVal,statefulSetLabelKey=statefulSetLabelVal",
            id="a stateful set owns the pod",
        ),
        pytest.param(
            owned_pod(("test-replicaset", "extensions/v1beta1", "ReplicaSet")),
            [SERVICE, REPLICA_SET],
            "podLabelKey=podLabelVal",
            id="an owner of another api version is not followed",
        ),
        pytest.param(
            owned_pod(("missing", "apps/v1", "ReplicaSet")),
            [SERVICE, REPLICA_SET],
            "podLabelKey=podLabelVal",
            id="an owner that does not exist adds nothing",
        ),
    ],
)
def test_default_selector_merges_services_and_the_controller(
    pod: Any, objects: list[Any], want: str
) -> None:
    assert str(default_selector(pod, InMemoryCluster(objects))) == want


def test_a_replica_set_with_expressions_adds_its_requirements() -> None:
    replica_set = obj(
        "ReplicaSet",
        "rs",
        {"selector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}},
        "apps/v1",
    )
    pod = owned_pod(("rs", "apps/v1", "ReplicaSet"))

    assert str(default_selector(pod, InMemoryCluster([replica_set]))) == "tier in (a)"


def test_without_a_cluster_nothing_selects_the_pod() -> None:
    assert default_selector(owned_pod(("rs", "apps/v1", "ReplicaSet")), None).empty()
