"""The pods/status patches the second scheduler sends: what upstream's PatchPodStatus
(CreateTwoWayMergePatch of the old and new status) sends for the same change; and the
writes themselves, against the test API server (``kube_api``)."""

from __future__ import annotations

import pytest

from framework.util.clock import RealClock
from playground.clusters.connecting import target_from_text
from playground.clusters.live_writes import LiveWrites, status_patch

NOW = 1_800_000_000.0
NOW_TEXT = "2027-01-15T08:00:00Z"
EARLIER = "2027-01-15T07:00:00Z"
UNSCHEDULABLE = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "Unschedulable",
    "message": "0/1 nodes are available: 1 Insufficient cpu.",
}


def condition(**fields) -> dict:
    return {**UNSCHEDULABLE, "lastProbeTime": None, "lastTransitionTime": EARLIER, **fields}


@pytest.mark.parametrize(
    ("status", "new_condition", "nominated", "want"),
    [
        pytest.param(
            {"phase": "Pending"},
            UNSCHEDULABLE,
            None,
            {
                "status": {
                    "$setElementOrder/conditions": [{"type": "PodScheduled"}],
                    "conditions": [
                        {
                            "lastProbeTime": None,
                            "lastTransitionTime": NOW_TEXT,
                            "message": UNSCHEDULABLE["message"],
                            "reason": "Unschedulable",
                            "status": "False",
                            "type": "PodScheduled",
                        }
                    ],
                }
            },
            id="a new condition is sent whole",
        ),
        pytest.param(
            {"conditions": [condition()]},
            UNSCHEDULABLE,
            None,
            None,
            id="an unchanged condition sends nothing",
        ),
        pytest.param(
            {"conditions": [{"type": "Ready", "status": "False"}, condition(message="old")]},
            UNSCHEDULABLE,
            None,
            {
                "status": {
                    "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "PodScheduled"}],
                    "conditions": [{"type": "PodScheduled", "message": UNSCHEDULABLE["message"]}],
                }
            },
            id="a new message keeps the transition time",
        ),
        pytest.param(
            {"conditions": [condition(status="True", reason="", message="")]},
            UNSCHEDULABLE,
            None,
            {
                "status": {
                    "$setElementOrder/conditions": [{"type": "PodScheduled"}],
                    "conditions": [
                        {
                            "type": "PodScheduled",
                            "lastTransitionTime": NOW_TEXT,
                            "message": UNSCHEDULABLE["message"],
                            "reason": "Unschedulable",
                            "status": "False",
                        }
                    ],
                }
            },
            id="a new status moves the transition time",
        ),
        pytest.param(
            {"nominatedNodeName": "n1"},
            None,
            "",
            {"status": {"nominatedNodeName": None}},
            id="clearing the nominated node sends null",
        ),
        pytest.param({}, None, "n2", {"status": {"nominatedNodeName": "n2"}}, id="nominating"),
        pytest.param({"nominatedNodeName": "n2"}, None, "n2", None, id="the same nomination"),
    ],
)
def test_the_patch_holds_only_what_changed(status, new_condition, nominated, want):
    assert status_patch(status, new_condition, nominated, NOW) == want


def test_binds_events_and_status_patches_share_one_connection(kube_api):
    """Each answer is read to its end, so the client's pool gets its connection back: a
    burst of binds costs no TLS handshake per call (it did, and most of a bind's time)."""
    client = target_from_text(kube_api.kubeconfig_text()).client()
    writes = LiveWrites(client, RealClock())
    names = [f"pg-test-writes-{i}" for i in range(5)]
    with client:
        for name in names:
            kube_api.create(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": name, "labels": {"pg-test": "live-writes"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                }
            )
            uid = kube_api.get("Pod", name, kube_api.namespace)["metadata"]["uid"]
            nominating = {"status": {"nominatedNodeName": "pg-test-node"}}
            writes.patch_pod_status(kube_api.namespace, name, nominating)
            writes.bind(kube_api.namespace, name, uid, "pg-test-node")
            regarding = {"apiVersion": "v1", "kind": "Pod", "namespace": kube_api.namespace}
            writes.create_event(
                {**regarding, "name": name, "uid": uid},
                None,
                "Normal",
                "Scheduled",
                "Binding",
                f"Successfully assigned {kube_api.namespace}/{name} to pg-test-node",
                "pg-test-scheduler",
            )
        pools = client.rest_client.pool_manager.pools
        keys = pools.keys()  # the container cannot be iterated itself
        opened = sum(pools[key].num_connections for key in keys)
    placed = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in kube_api.objects("Pod")}
    assert all(placed[name] == "pg-test-node" for name in names)
    assert opened == 1
