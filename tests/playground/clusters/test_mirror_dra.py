"""A cluster using DRA, mirrored: the what-if of its pod with a claim shows DynamicResources'
verdicts, as kube-scheduler would judge that pod (issue 23).

Against the test API server (``kube_api``), or a real kube-apiserver with
PLAYGROUND_TEST_KUBECONFIG: every object is named ``pg-test-*`` or lives in the test's
namespace, and carries a label the connection selects.
"""

from __future__ import annotations

import pytest

from framework.simulator import AttemptReport
from framework.util.clock import FakeClock
from playground.clusters.connecting import api_client
from playground.clusters.mirror import Mirror
from playground.clusters.models import ClusterConnection
from playground.scheduling.what_if import run_what_if, stored_pod
from playground.workspaces.cluster import DatabaseCluster

pytestmark = pytest.mark.django_db(transaction=True)

LABEL = {"pg-test": "mirror-dra"}
DRIVER = "gpu.pg-test.example.com"
DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim")


def labelled(name: str) -> dict:
    return {"name": name, "labels": dict(LABEL)}


def node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": labelled(name),
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def dra_pool() -> list[dict]:
    """Two nodes; a driver publishes two GPUs on the first only, one of them allocated to a
    claim already."""
    gpus = [
        {"name": f"gpu-{index}", "attributes": {"model": {"string": "a100"}}} for index in (0, 1)
    ]
    return [
        node("pg-test-dra-gpu"),
        node("pg-test-dra-plain"),
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": labelled("pg-test-dra-gpu"),
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": labelled("pg-test-dra-gpu-slice"),
            "spec": {
                "driver": DRIVER,
                "nodeName": "pg-test-dra-gpu",
                "pool": {"name": "pg-test-dra-gpu", "generation": 1, "resourceSliceCount": 1},
                "devices": gpus,
            },
        },
        claim("two-gpus", count=2),
        claim("one-gpu", count=1),
        {**claim("taken", count=1), "status": {"allocation": allocation("gpu-0")}},
    ]


def allocation(device: str) -> dict:
    result = {"request": "gpu", "driver": DRIVER, "pool": "pg-test-dra-gpu", "device": device}
    return {"devices": {"results": [result]}}


def claim(name: str, count: int) -> dict:
    request = {
        "name": "gpu",
        "exactly": {"deviceClassName": "pg-test-dra-gpu", "allocationMode": "ExactCount"},
    }
    request["exactly"]["count"] = count
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": labelled(name),
        "spec": {"devices": {"requests": [request]}},
    }


def pod_with_claim(name: str, claim_name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": labelled(name),
        "spec": {
            "schedulerName": "pg-test-nobody",  # a real kube-scheduler leaves it alone
            "resourceClaims": [{"name": "gpu", "resourceClaimName": claim_name}],
            "containers": [
                {
                    "name": "c",
                    "image": "nginx",
                    "resources": {"requests": {"cpu": "100m"}, "claims": [{"name": "gpu"}]},
                }
            ],
        },
    }


@pytest.fixture
def mirrored(kube_api, user, workspace):
    """The DRA pool and two pods with claims in the cluster, mirrored into the workspace."""
    for manifest in dra_pool():
        kube_api.create(manifest)
    kube_api.create(pod_with_claim("wants-two", "two-gpus"))
    kube_api.create(pod_with_claim("wants-one", "one-gpu"))
    connection = ClusterConnection.objects.create(
        name="dra",
        owner=user,
        workspace=workspace,
        server=kube_api.url,
        namespaces=kube_api.namespace,
        label_selector="pg-test=mirror-dra",
    )
    connection.set_kubeconfig(kube_api.kubeconfig_text())
    connection.save()
    client = api_client(connection)
    mirror = Mirror(
        connection,
        workspace,
        client,
        FakeClock(),
        kinds=("Namespace", "Node", "Pod", *DRA_KINDS),
    )
    mirror.sync()
    assert mirror.status() == "synced", mirror.state()
    yield mirror
    client.close()


def test_the_what_if_of_a_mirrored_pod_with_a_claim_shows_dynamic_resources_verdicts(
    kube_api, mirrored, workspace
):
    cluster = DatabaseCluster(workspace)
    assert {obj.name for obj in cluster.list("ResourceSlice")} == {"pg-test-dra-gpu-slice"}
    assert {obj.name for obj in cluster.list("ResourceClaim")} == {"two-gpus", "one-gpu", "taken"}
    taken = cluster.get("ResourceClaim", "taken", kube_api.namespace)
    assert taken.status.allocation is not None  # the claim's status comes mirrored too

    one = what_if_report(workspace, kube_api, "wants-one")
    assert (one["result"], one["node"]) == ("Scheduled", "pg-test-dra-gpu")
    assert one["filter"]["pg-test-dra-plain"]["DynamicResources"] == {
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["cannot allocate all claims"],
    }
    assert one["feasibleNodes"] == 1

    # gpu-0 is allocated to "taken": two GPUs are nowhere to be had.
    two = what_if_report(workspace, kube_api, "wants-two")
    assert two["result"] == "Unschedulable"
    assert two["message"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")
    for node_name in ("pg-test-dra-gpu", "pg-test-dra-plain"):
        assert two["filter"][node_name]["DynamicResources"]["reasons"] == [
            "cannot allocate all claims"
        ], node_name


def what_if_report(workspace, kube_api, name: str) -> dict:
    pod = DatabaseCluster(workspace).get("Pod", name, kube_api.namespace)
    result = run_what_if(workspace, stored_pod(workspace, pod.uid), "default-scheduler")
    return AttemptReport(result.attempt, result.events).to_dict()


def test_the_what_if_page_shows_them_for_the_mirrored_workspace(
    kube_api, mirrored, workspace, client, user
):
    client.force_login(user)
    pod = DatabaseCluster(workspace).get("Pod", "wants-one", kube_api.namespace)
    response = client.post(f"/w/{workspace.slug}/what-if/", {"pod": pod.uid, "profile": ""})
    content = response.content.decode()
    assert response.status_code == 200
    assert "selected node <strong>pg-test-dra-gpu</strong>" in content
    filter_table = content.split('aria-label="Filter">', 1)[1].split("</table>", 1)[0]
    assert "DynamicResources" in filter_table
    assert "cannot allocate all claims" in filter_table
