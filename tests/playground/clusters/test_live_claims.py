"""The ResourceClaim calls of DynamicResources (``live_claims``) against the test API server, or
a real kube-apiserver with PLAYGROUND_TEST_KUBECONFIG: what each engine change of a claim
becomes on the server."""

from __future__ import annotations

import copy

import pytest

from playground.clusters.live_claims import ClaimWriteError, ClaimWrites
from tests.kube.fixtures import LocalKubeApi

FINALIZER = "resource.kubernetes.io/delete-protection"
DRIVER = "gpu.pg-test.example.com"
ALLOCATION = {
    "devices": {
        "results": [{"request": "gpu", "driver": DRIVER, "pool": "pg-test-pool", "device": "gpu-0"}]
    }
}


def reference(name: str, uid: str) -> dict:
    return {"resource": "pods", "name": name, "uid": uid}


FIRST, SECOND, ELSEWHERE = (
    reference("first", "11111111-1111-1111-1111-111111111111"),
    reference("second", "22222222-2222-2222-2222-222222222222"),
    reference("elsewhere", "33333333-3333-3333-3333-333333333333"),
)


@pytest.fixture
def claims(kube_api):
    client = kube_api.client()
    yield ClaimWrites(client)
    client.close()


@pytest.fixture
def claim(kube_api) -> dict:
    """A claim for one device, as the workspace would hold it (the server's copy)."""
    request = {"name": "gpu", "exactly": {"deviceClassName": "pg-test-gpu"}}
    return kube_api.create(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "gpu"},
            "spec": {"devices": {"requests": [request]}},
        }
    )


def with_status(claim: dict, **status) -> dict:
    changed = copy.deepcopy(claim)
    changed["status"] = status
    return changed


def served(kube_api) -> dict:
    return kube_api.get("ResourceClaim", "gpu", kube_api.namespace)


def test_allocating_adds_the_finalizer_then_writes_the_status(kube_api, claims, claim):
    desired = with_status(claim, allocation=ALLOCATION, reservedFor=[FIRST])
    desired["metadata"]["finalizers"] = [FINALIZER]

    claims.write_status(desired, claim)

    now = served(kube_api)
    assert now["metadata"]["finalizers"] == [FINALIZER]
    assert now["status"]["allocation"]["devices"] == ALLOCATION["devices"]
    assert now["status"]["reservedFor"] == [FIRST]
    if isinstance(kube_api, LocalKubeApi):
        path = f"/apis/resource.k8s.io/v1/namespaces/{kube_api.namespace}/resourceclaims/gpu"
        writes = [(r.method, r.path) for r in kube_api.requests if r.path.startswith(path)]
        assert writes == [("GET", path), ("PUT", path), ("PUT", f"{path}/status")]


def test_a_reservation_keeps_those_the_mirror_has_not_brought_yet(kube_api, claims, claim):
    allocated = with_status(claim, allocation=ALLOCATION, reservedFor=[FIRST])
    allocated["metadata"]["finalizers"] = [FINALIZER]
    claims.write_status(allocated, claim)
    # Another scheduler reserved it meanwhile; the workspace still holds [FIRST] only.
    claims.write_status(
        with_status(allocated, allocation=ALLOCATION, reservedFor=[FIRST, ELSEWHERE]), allocated
    )

    claims.write_status(
        with_status(allocated, allocation=ALLOCATION, reservedFor=[FIRST, SECOND]), allocated
    )

    assert served(kube_api)["status"]["reservedFor"] == [FIRST, ELSEWHERE, SECOND]


def test_unreserve_patches_out_the_pod_and_deallocation_clears_the_status(kube_api, claims, claim):
    allocated = with_status(claim, allocation=ALLOCATION, reservedFor=[FIRST, SECOND])
    allocated["metadata"]["finalizers"] = [FINALIZER]
    claims.write_status(allocated, claim)

    claims.write_status(
        with_status(allocated, allocation=ALLOCATION, reservedFor=[SECOND]), allocated
    )

    assert served(kube_api)["status"]["reservedFor"] == [SECOND]
    if isinstance(kube_api, LocalKubeApi):
        (patch,) = [r for r in kube_api.requests if r.method == "PATCH"]
        assert patch.content_type == "application/strategic-merge-patch+json"
        assert patch.body == {
            "metadata": {"uid": claim["metadata"]["uid"]},
            "status": {"reservedFor": [{"$patch": "delete", "uid": FIRST["uid"]}]},
        }

    unreserved = with_status(allocated, allocation=ALLOCATION, reservedFor=[SECOND])
    claims.write_status(with_status(unreserved), unreserved)

    assert not (served(kube_api).get("status") or {})


def test_a_claim_allocated_elsewhere_is_not_overwritten(kube_api, claims, claim):
    elsewhere = with_status(claim, allocation=ALLOCATION, reservedFor=[ELSEWHERE])
    elsewhere["metadata"]["finalizers"] = [FINALIZER]
    claims.write_status(elsewhere, claim)
    other_device = copy.deepcopy(ALLOCATION)
    other_device["devices"]["results"][0]["device"] = "gpu-1"

    with pytest.raises(ClaimWriteError) as refused:
        claims.write_status(with_status(claim, allocation=other_device, reservedFor=[FIRST]), claim)

    assert str(refused.value) == (
        f"claim {kube_api.namespace}/gpu got allocated elsewhere in the meantime"
    )
    assert served(kube_api)["status"]["reservedFor"] == [ELSEWHERE]


def test_creates_and_deletes_share_one_connection(kube_api):
    """A delete's answer is read to its end, so the client's pool gets its connection back:
    claims created and deleted in turn (DRA extended resources) open no connection per call."""
    client = kube_api.client()
    writes = ClaimWrites(client)
    request = {"name": "gpu", "exactly": {"deviceClassName": "pg-test-gpu"}}
    with client:
        for index in range(4):
            name = f"pg-test-extended-{index}"
            writes.create(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaim",
                    "metadata": {"name": name, "namespace": kube_api.namespace},
                    "spec": {"devices": {"requests": [request]}},
                }
            )
            writes.delete(kube_api.namespace, name)
        pools = client.rest_client.pool_manager.pools
        keys = pools.keys()  # the container cannot be iterated itself
        opened = sum(pools[key].num_connections for key in keys)
    assert not [c for c in kube_api.objects("ResourceClaim") if "extended" in c["metadata"]["name"]]
    assert opened == 1
