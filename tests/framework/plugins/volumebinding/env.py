"""Upstream's binder fixtures (binder_test.go): claims, PVs, classes, nodes and a binder."""

from __future__ import annotations

from typing import Any

from framework.plugins.volumebinding.binder import (
    BindingInfo,
    DynamicProvision,
    PodVolumes,
    VolumeBinder,
)
from tests.framework.builders import make_node, make_pod
from tests.framework.storage.builders import (
    WAIT,
    WritableCluster,
    ephemeral_volume,
    make_csi_node,
    make_pv,
    make_pvc,
    make_storage_class,
    pvc_volume,
)

PROVISIONER = "test-provisioner"
NODE_KEY = "nodeKey"
WAIT_CLASS = "waitClass"
IMMEDIATE_CLASS = "immediateClass"
WAIT_CLASS_WITH_PROVISIONER = "waitClassWithProvisioner"
TOPO_MISMATCH_CLASS = "topoMismatchClass"

UNBOUND, PREBOUND, BOUND, SELECTED_NODE = "unbound", "prebound", "bound", "selected-node"

CLASSES = [
    make_storage_class(
        WAIT_CLASS_WITH_PROVISIONER,
        WAIT,
        provisioner=PROVISIONER,
        allowed_topologies={NODE_KEY: ["node1", "reference-value"]},
    ),
    make_storage_class(IMMEDIATE_CLASS, "Immediate"),
    make_storage_class(WAIT_CLASS, WAIT, provisioner="kubernetes.io/no-provisioner"),
    make_storage_class(
        TOPO_MISMATCH_CLASS,
        WAIT,
        provisioner=PROVISIONER,
        allowed_topologies={NODE_KEY: ["reference-value"]},
    ),
]


def make_test_pvc(
    name: str,
    size: str,
    node: str,
    state: str,
    pv_name: str,
    version: str,
    class_name: str,
    *,
    annotations: dict[str, str] | None = None,
) -> Any:
    """``makeTestPVC``: namespace testns, uid pvc-uid, a binding state."""
    annotations = dict(annotations or {})
    if state == SELECTED_NODE:
        annotations["volume.kubernetes.io/selected-node"] = node
    if state == BOUND:
        annotations["pv.kubernetes.io/bind-completed"] = "yes"
    return make_pvc(
        name,
        class_name,
        namespace="testns",
        uid="pvc-uid",
        request=size,
        volume_name=pv_name if state in (BOUND, PREBOUND) else "",
        annotations=annotations,
        resource_version=version,
    )


def make_test_pv(
    name: str,
    node: str,
    capacity: str,
    version: str,
    bound_to: Any | None,
    class_name: str,
    **kwargs: Any,
) -> Any:
    """``makeTestPV``: Available, affinity to ``nodeKey=node``, optionally bound to a claim."""
    claim = None
    annotations = {}
    if bound_to is not None:
        claim = (bound_to.namespace, bound_to.name, bound_to.uid)
        annotations["pv.kubernetes.io/bound-by-controller"] = "yes"
    return make_pv(
        name,
        class_name,
        phase="Available",
        capacity=capacity,
        node_affinity={NODE_KEY: [node]} if node else None,
        claim=claim,
        annotations=annotations,
        resource_version=version,
        **kwargs,
    )


UNBOUND_PVC = make_test_pvc("unbound-pvc", "1G", "", UNBOUND, "", "1", WAIT_CLASS)
UNBOUND_PVC_2 = make_test_pvc("unbound-pvc2", "5G", "", UNBOUND, "", "1", WAIT_CLASS)
PREBOUND_PVC = make_test_pvc("prebound-pvc", "1G", "", PREBOUND, "pv-node1a", "1", WAIT_CLASS)
BOUND_PVC = make_test_pvc("bound-pvc", "1G", "", BOUND, "pv-bound", "1", WAIT_CLASS)
IMMEDIATE_UNBOUND_PVC = make_test_pvc(
    "immediate-unbound-pvc", "1G", "", UNBOUND, "", "1", IMMEDIATE_CLASS
)
IMMEDIATE_BOUND_PVC = make_test_pvc(
    "immediate-bound-pvc", "1G", "", BOUND, "pv-bound-immediate", "1", IMMEDIATE_CLASS
)
PROVISIONED_PVC = make_test_pvc(
    "provisioned-pvc", "1Gi", "", UNBOUND, "", "1", WAIT_CLASS_WITH_PROVISIONER
)
PROVISIONED_PVC_2 = make_test_pvc(
    "provisioned-pvc2", "1Gi", "", UNBOUND, "", "1", WAIT_CLASS_WITH_PROVISIONER
)
PROVISIONED_PVC_HIGHER_VERSION = make_test_pvc(
    "provisioned-pvc2", "1Gi", "", UNBOUND, "", "2", WAIT_CLASS_WITH_PROVISIONER
)
NO_PROVISIONER_PVC = make_test_pvc("no-provisioner-pvc", "1Gi", "", UNBOUND, "", "1", WAIT_CLASS)
TOPO_MISMATCH_PVC = make_test_pvc(
    "topo-mismatch-pvc", "1Gi", "", UNBOUND, "", "1", TOPO_MISMATCH_CLASS
)
SELECTED_NODE_PVC = make_test_pvc(
    "provisioned-pvc", "1Gi", "node1", SELECTED_NODE, "", "1", WAIT_CLASS_WITH_PROVISIONER
)
BOUND_MIGRATION_PVC = make_test_pvc(
    "pvc-migration-bound", "1G", "", BOUND, "pv-migration-bound", "1", WAIT_CLASS
)

PV_NODE_1A = make_test_pv("pv-node1a", "node1", "5G", "1", None, WAIT_CLASS)
PV_NODE_1B = make_test_pv("pv-node1b", "node1", "10G", "1", None, WAIT_CLASS)
PV_NODE_2 = make_test_pv("pv-node2", "node2", "1G", "1", None, WAIT_CLASS)
PV_BOUND = make_test_pv("pv-bound", "node1", "1G", "1", BOUND_PVC, WAIT_CLASS)
PV_NODE_1A_BOUND = make_test_pv("pv-node1a", "node1", "5G", "1", UNBOUND_PVC, WAIT_CLASS)
PV_NODE_1B_BOUND = make_test_pv("pv-node1b", "node1", "10G", "1", UNBOUND_PVC_2, WAIT_CLASS)
PV_BOUND_IMMEDIATE = make_test_pv(
    "pv-bound-immediate", "node1", "1G", "1", IMMEDIATE_BOUND_PVC, IMMEDIATE_CLASS
)
PV_BOUND_IMMEDIATE_NODE_2 = make_test_pv(
    "pv-bound-immediate", "node2", "1G", "1", IMMEDIATE_BOUND_PVC, IMMEDIATE_CLASS
)

ZONE_1_LABELS = {
    "failure-domain.beta.kubernetes.io/zone": "us-east-1",
    "failure-domain.beta.kubernetes.io/region": "us-east-1a",
}
MIGRATION_PV_BOUND = make_pv(
    "pv-migration-bound",
    WAIT_CLASS,
    phase="Available",
    capacity="1G",
    labels=ZONE_1_LABELS,
    claim=("testns", "pvc-migration-bound", "pvc-uid"),
    annotations={"pv.kubernetes.io/bound-by-controller": "yes"},
    resource_version="1",
    source={"gcePersistentDisk": {"pdName": "test-disk", "fsType": "ext4"}},
)

NODE_1 = make_node("node1", labels={"kubernetes.io/hostname": "node1", NODE_KEY: "node1"})
NODE_2 = make_node("node2", labels={"kubernetes.io/hostname": "node2", NODE_KEY: "node2"})
NODE_1_ZONE_1 = make_node("node1", labels={"topology.gke.io/zone": "us-east-1"})
NODE_1_ZONE_2 = make_node("node1", labels={"topology.gke.io/zone": "us-east-2"})

MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"
CSI_NODE_1_MIGRATED = make_csi_node("node1", {}, {MIGRATED: "kubernetes.io/gce-pd"})
CSI_NODE_1_NOT_MIGRATED = make_csi_node("node1", {}, {MIGRATED: ""})

TEST_POD = make_pod("test-pod", namespace="testns", node_name="node1")


def generic_ephemeral_pvc(volume_name: str, owned: bool) -> Any:
    return make_pvc(
        f"test-pod-{volume_name}",
        IMMEDIATE_CLASS,
        namespace="testns",
        uid="pvc-uid",
        request="1G",
        volume_name="pv-bound",
        annotations={"pv.kubernetes.io/bind-completed": "yes"},
        resource_version="1",
        owner=TEST_POD if owned else None,
    )


def pod_with_claims(*claims: Any) -> Any:
    volumes = [pvc_volume(c.name, f"vol{i}") for i, c in enumerate(claims)]
    return make_pod("test-pod", namespace="testns", node_name="node1", volumes=volumes)


def pod_with_ephemeral(name: str) -> Any:
    return make_pod(
        "test-pod", namespace="testns", node_name="node1", volumes=[ephemeral_volume(name)]
    )


class Env:
    """A binder over a writable in-memory cluster holding the classes and the given objects."""

    def __init__(self, *objects: Any) -> None:
        self.cluster = WritableCluster([*CLASSES, *objects])
        self.binder = VolumeBinder(lambda: self.cluster, True, 10)

    def find_pod_volumes(self, pod: Any, node: Any) -> tuple[PodVolumes, list[str]]:
        claims = self.binder.get_pod_volume_claims(pod)
        if claims.unbound_claims_immediate:
            raise ValueError("pod has unbound immediate PersistentVolumeClaims")
        return self.binder.find_pod_volumes(pod, claims, node)


def binding(claim: Any, pv: Any) -> BindingInfo:
    return BindingInfo(claim, pv)


def described(pod_volumes: PodVolumes) -> tuple[Any, Any]:
    """Bindings as (claim, PV) names and provisions as claim names, None when nothing."""
    static = pod_volumes.static_bindings
    dynamic = pod_volumes.dynamic_provisions
    return (
        None if static is None else [(b.pvc.name, b.pv.name) for b in static],
        None if dynamic is None else [p.pvc.name for p in dynamic],
    )


def provisions(*claims: Any) -> list[DynamicProvision]:
    return [DynamicProvision(claim) for claim in claims]
