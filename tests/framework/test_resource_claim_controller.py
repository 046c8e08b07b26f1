"""The emulated ResourceClaim controller: claims from templates, cleanup after pods."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.pod import Pod
from framework.api.resource_claim import ResourceClaim, ResourceClaimTemplate, has_finalizer
from framework.cluster.memory import InMemoryCluster
from framework.cluster.resource_claim_controller import (
    POD_RESOURCE_CLAIM_ANNOTATION,
    ResourceClaimController,
    deterministic_suffix,
    generate_name,
)

TEMPLATE = ResourceClaimTemplate.from_dict(
    {
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one-gpu", "namespace": "default"},
        "spec": {
            "metadata": {"labels": {"team": "ml"}, "annotations": {"note": "x"}},
            "spec": {
                "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}
            },
        },
    }
)


def pod(name: str = "trainer", **claim: str) -> Pod:
    source = claim or {"resourceClaimTemplateName": "one-gpu"}
    return Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "containers": [{"name": "c", "image": "busybox"}],
                "resourceClaims": [{"name": "gpu", **source}],
            },
        }
    )


def started(*objects: Any) -> InMemoryCluster:
    cluster = InMemoryCluster(objects)
    ResourceClaimController(cluster).start()
    return cluster


def test_generate_name_is_pod_and_claim_cut_in_proportion_when_long():
    assert generate_name("trainer", "gpu") == "trainer-gpu-"
    long_pod, long_claim = "p" * 40, "c" * 30
    cut = generate_name(long_pod, long_claim)
    # 72 characters are cut to 40*57//72 = 31 and 30*57//72 = 23, joined by a hyphen.
    assert cut == "p" * 31 + "-" + "c" * 23


def test_the_suffix_is_five_characters_of_the_api_servers_alphabet_and_reproducible():
    suffix = deterministic_suffix("uid/gpu")
    assert len(suffix) == 5
    assert set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert deterministic_suffix("uid/gpu") == suffix
    assert deterministic_suffix("uid/gpu", 1) != suffix


def test_a_new_pod_gets_a_claim_from_its_template_and_the_status_names_it():
    cluster = started(TEMPLATE)
    cluster.add(pod())
    stored = cluster.get("Pod", "trainer", "default")
    [status] = stored.status.resource_claim_statuses
    assert status.name == "gpu"
    claim = cluster.get("ResourceClaim", status.resource_claim_name, "default")
    assert claim.name.startswith("trainer-gpu-")
    assert len(claim.name) == len("trainer-gpu-") + 5
    assert claim.to_dict()["metadata"]["generateName"] == "trainer-gpu-"
    owner = claim.metadata.controller_ref()
    assert (owner.kind, owner.name, owner.uid) == ("Pod", "trainer", stored.uid)
    assert claim.metadata.labels == {"team": "ml"}
    assert claim.metadata.annotations == {"note": "x", POD_RESOURCE_CLAIM_ANNOTATION: "gpu"}
    assert [r.exactly.device_class_name for r in claim.spec.requests] == ["gpu"]
    # The status update carries the manifest field the scheduler's pod event reads.
    assert stored.to_dict()["status"]["resourceClaimStatuses"] == [
        {"name": "gpu", "resourceClaimName": claim.name}
    ]


def test_pods_already_there_are_handled_at_start_and_names_are_reproducible():
    first = started(TEMPLATE, pod())
    second = started(TEMPLATE, pod())
    assert [c.name for c in first.list("ResourceClaim")] == [
        c.name for c in second.list("ResourceClaim")
    ]


def test_a_claim_by_name_or_a_missing_template_creates_nothing():
    cluster = started()
    cluster.add(pod("by-name", resourceClaimName="shared"))
    cluster.add(pod("no-template"))
    assert cluster.list("ResourceClaim") == []
    assert cluster.get("Pod", "no-template", "default").status.resource_claim_statuses == []


def test_a_pod_created_before_its_template_gets_its_claim_when_the_template_comes():
    cluster = started()
    cluster.add(pod())
    cluster.add(pod("other", resourceClaimTemplateName="another-template"))
    assert cluster.list("ResourceClaim") == []
    cluster.add(TEMPLATE)
    [claim] = cluster.list("ResourceClaim")
    assert claim.name.startswith("trainer-gpu-")
    stored = cluster.get("Pod", "trainer", "default")
    assert [s.resource_claim_name for s in stored.status.resource_claim_statuses] == [claim.name]
    # The same claim as if the template had come first.
    assert claim.name == started(TEMPLATE, pod()).list("ResourceClaim")[0].name
    assert cluster.get("Pod", "other", "default").status.resource_claim_statuses == []


@pytest.mark.parametrize("finalizer", [True, False])
def test_a_deleted_pod_loses_its_generated_claim_and_its_reservations(finalizer):
    metadata: dict = {"name": "shared", "namespace": "default"}
    if finalizer:
        metadata["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    shared = ResourceClaim.from_dict(
        {
            "kind": "ResourceClaim",
            "metadata": metadata,
            "spec": {},
            "status": {
                "allocation": {"devices": {"results": []}},
                "reservedFor": [{"resource": "pods", "name": "by-name", "uid": "u1"}],
            },
        }
    )
    user = Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "by-name", "namespace": "default", "uid": "u1"},
            "spec": {
                "containers": [{"name": "c", "image": "busybox"}],
                "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared"}],
            },
        }
    )
    cluster = started(TEMPLATE, shared, user)
    cluster.add(pod())
    cluster.delete(cluster.get("Pod", "trainer", "default"))
    cluster.delete(cluster.get("Pod", "by-name", "default"))
    [left] = cluster.list("ResourceClaim")
    assert left.name == "shared"
    assert left.status.reserved_for == []
    # Nobody uses it any more: the controller deallocates it if the scheduler allocated it
    # (its finalizer says so), and drops the finalizer; otherwise it leaves it allocated.
    assert (left.status.allocation is None) == finalizer
    assert not has_finalizer(left)
