"""NodeVolumeLimits (CSILimits) against upstream's tables (csi_test.go)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.nodevolumelimits.csi import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, CSILimits
from tests.framework.builders import make_node, make_pod
from tests.framework.storage.builders import (
    FakeHandle,
    ephemeral_volume,
    make_csi_driver,
    make_csi_node,
    make_pv,
    make_pvc,
    make_storage_class,
    make_volume_attachment,
    pod_with_volumes,
    pvc_volume,
)

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
EBS_IN_TREE = "kubernetes.io/aws-ebs"
HOSTPATH_IN_TREE = "kubernetes.io/hostpath"
NODE = "node-for-max-pd-test-1"
SC_NAME = "csi-sc"

EXCEEDED = Status(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
SKIP = Status(Code.SKIP)

_names = iter(range(10**6))


def claims_pod(*claims: str, name: str = "") -> Any:
    return pod_with_volumes(name or f"pod-{next(_names)}", *(pvc_volume(c) for c in claims))


def inline_ebs_pod(volume_id: str, *extra: dict[str, Any]) -> Any:
    return pod_with_volumes(
        f"pod-{next(_names)}",
        *extra,
        {"name": "ebs", "awsElasticBlockStore": {"volumeID": volume_id}},
    )


CONFIG_AND_SECRET = ({"name": "cm", "configMap": {}}, {"name": "s", "secret": {}})

RUNNING_POD = claims_pod("csi-ebs.csi.aws.com-3")
PENDING_VOLUME_POD = claims_pod("csi-4")
UNBOUND_PVC_POD_2 = claims_pod("csi-4")
MISSING_PV_POD = claims_pod("csi-6")
NO_SC_PVC_POD = claims_pod("csi-5")
GCE_TWO_VOL_POD = claims_pod("csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2")
IN_TREE_ONE_VOL_POD = claims_pod("csi-kubernetes.io/aws-ebs-0")
IN_TREE_TWO_VOL_POD = claims_pod("csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2")
CSI_EBS_ONE_VOL_POD = claims_pod("csi-ebs.csi.aws.com-0")
CSI_EBS_TWO_VOL_POD = claims_pod("csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2")
IN_TREE_NON_MIGRATABLE_POD = claims_pod("csi-kubernetes.io/hostpath-0")
IN_TREE_INLINE_POD = inline_ebs_pod("aws-inline1")
IN_TREE_INLINE_SAME_ID_POD = inline_ebs_pod("csi-ebs.csi.aws.com-1")
EPHEMERAL_POD = make_pod("abc", namespace="test", uid="12345", volumes=[ephemeral_volume("xyz")])
EPHEMERAL_TWO_VOL_POD = make_pod(
    "abc", namespace="test", uid="12345II", volumes=[ephemeral_volume("x"), ephemeral_volume("y")]
)
EPHEMERAL_CLAIM = make_pvc("abc-xyz", SC_NAME, namespace="test", owner=EPHEMERAL_POD)
CONFLICTING_CLAIM = make_pvc("abc-xyz", SC_NAME, namespace="test")
EPHEMERAL_CLAIM_X = make_pvc("abc-x", SC_NAME, namespace="test", owner=EPHEMERAL_TWO_VOL_POD)
EPHEMERAL_CLAIM_Y = make_pvc("abc-y", SC_NAME, namespace="test", owner=EPHEMERAL_TWO_VOL_POD)
ONLY_CONFIG_AND_SECRET_POD = pod_with_volumes("cs", *CONFIG_AND_SECRET)
PVC_POD_WITH_CONFIG_AND_SECRET = pod_with_volumes(
    "pcs", *CONFIG_AND_SECRET, pvc_volume("csi-ebs.csi.aws.com-0")
)
EPHEMERAL_POD_WITH_CONFIG_AND_SECRET = make_pod(
    "abc", namespace="test", volumes=[*CONFIG_AND_SECRET, ephemeral_volume("xyz")]
)
INLINE_POD_WITH_CONFIG_AND_SECRET = inline_ebs_pod("aws-inline1", *CONFIG_AND_SECRET)


def cluster_objects(
    driver_names: list[str], limit_source: str, max_vols: int, va_count: int, extra: list[Any]
) -> list[Any]:
    """Upstream's fake listers: four PVs and claims per driver, claims 4 to 6, one class."""
    objects: list[Any] = [make_storage_class(SC_NAME, provisioner=driver_names[0])]
    for driver in driver_names:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            objects.append(make_pv(name, source=_pv_source(driver, name)))
            objects.append(make_pvc(name, volume_name=name))
        for j in range(va_count):
            objects.append(
                make_volume_attachment(f"va-{driver}-{j}", NODE, driver, f"csi-{driver}-{j}")
            )
    objects += [
        make_pvc("csi-4", SC_NAME),
        make_pvc("csi-5"),
        make_pvc("csi-6", SC_NAME, volume_name="missing-in-action"),
    ]
    csi_node = _csi_node(limit_source, max_vols, driver_names)
    if csi_node is not None:
        objects.append(csi_node)
    return objects + extra


def _pv_source(driver: str, handle: str) -> dict[str, Any]:
    if driver == EBS_IN_TREE:
        return {"awsElasticBlockStore": {"volumeID": handle}}
    if driver == HOSTPATH_IN_TREE:
        return {"hostPath": {"path": "/mnt/data"}}
    return {"csi": {"driver": driver, "volumeHandle": handle}}


def _csi_node(limit_source: str, limit: int, driver_names: list[str]) -> Any:
    annotations = {"storage.alpha.kubernetes.io/migrated-plugins": EBS_IN_TREE}
    if limit_source == "csinode":
        return make_csi_node(NODE, dict.fromkeys(driver_names, limit), annotations)
    if limit_source == "csinode-with-no-limit":
        return make_csi_node(NODE, dict.fromkeys(driver_names), annotations)
    if limit_source == "no-csi-driver":
        return make_csi_node(NODE, {}, annotations)
    return None


def run(
    pod: Any,
    existing: list[Any],
    driver_names: list[str],
    *,
    limit_source: str = "",
    max_vols: int = 0,
    va_count: int = 0,
    extra: list[Any] = (),  # type: ignore[assignment]
    features: Features | None = None,
) -> tuple[Any, Any]:
    objects = cluster_objects(driver_names, limit_source, max_vols, va_count, list(extra))
    plugin = CSILimits(None, FakeHandle(objects), features or Features.from_gates())
    node_info = NodeInfo(*existing)
    node_info.set_node(make_node(NODE))
    state = CycleState()
    _, pre_filter_status = plugin.pre_filter(state, pod, [node_info])
    if pre_filter_status is not None and pre_filter_status.is_skip():
        return pre_filter_status, None
    return pre_filter_status, plugin.filter(state, pod, node_info)


CASES = [
    (CSI_EBS_ONE_VOL_POD, [], 2, [EBS], 2, "csinode", [], EXCEEDED),
    (CSI_EBS_ONE_VOL_POD, [], 2, [EBS], 1, "csinode", [], None),
    (CSI_EBS_ONE_VOL_POD, [RUNNING_POD, CSI_EBS_TWO_VOL_POD], 4, [EBS], 0, "csinode", [], None),
    (CSI_EBS_ONE_VOL_POD, [RUNNING_POD, CSI_EBS_TWO_VOL_POD], 2, [EBS], 0, "csinode", [], EXCEEDED),
    (
        CSI_EBS_ONE_VOL_POD,
        [RUNNING_POD, CSI_EBS_TWO_VOL_POD],
        2,
        [EBS],
        0,
        "csinode-with-no-limit",
        [],
        None,
    ),
    (
        CSI_EBS_ONE_VOL_POD,
        [PENDING_VOLUME_POD, CSI_EBS_TWO_VOL_POD],
        2,
        [EBS],
        0,
        "csinode",
        [],
        EXCEEDED,
    ),
    (
        CSI_EBS_ONE_VOL_POD,
        [PENDING_VOLUME_POD, UNBOUND_PVC_POD_2, CSI_EBS_TWO_VOL_POD],
        4,
        [EBS],
        0,
        "csinode",
        [],
        None,
    ),
    (
        CSI_EBS_ONE_VOL_POD,
        [MISSING_PV_POD, CSI_EBS_TWO_VOL_POD],
        2,
        [EBS],
        0,
        "csinode",
        [],
        EXCEEDED,
    ),
    (CSI_EBS_ONE_VOL_POD, [RUNNING_POD, NO_SC_PVC_POD], 2, [EBS], 0, "csinode", [], None),
    (
        CSI_EBS_ONE_VOL_POD,
        [GCE_TWO_VOL_POD, CSI_EBS_TWO_VOL_POD],
        2,
        [EBS, GCE],
        0,
        "csinode",
        [],
        EXCEEDED,
    ),
    (GCE_TWO_VOL_POD, [CSI_EBS_TWO_VOL_POD, RUNNING_POD], 2, [EBS, GCE], 0, "csinode", [], None),
    (IN_TREE_ONE_VOL_POD, [IN_TREE_TWO_VOL_POD], 2, [EBS_IN_TREE, EBS], 0, "csinode", [], EXCEEDED),
    (IN_TREE_INLINE_POD, [IN_TREE_TWO_VOL_POD], 0, [EBS_IN_TREE, EBS], 0, "", [], None),
    (PENDING_VOLUME_POD, [IN_TREE_TWO_VOL_POD], 2, [EBS_IN_TREE, EBS], 0, "csinode", [], EXCEEDED),
    (
        IN_TREE_ONE_VOL_POD,
        [IN_TREE_TWO_VOL_POD],
        2,
        [EBS_IN_TREE, EBS],
        0,
        "csinode-with-no-limit",
        [],
        None,
    ),
    (
        IN_TREE_NON_MIGRATABLE_POD,
        [CSI_EBS_TWO_VOL_POD],
        2,
        [HOSTPATH_IN_TREE, EBS],
        0,
        "csinode",
        [],
        None,
    ),
    (IN_TREE_INLINE_POD, [IN_TREE_TWO_VOL_POD], 2, [EBS_IN_TREE, EBS], 0, "csinode", [], EXCEEDED),
    (IN_TREE_ONE_VOL_POD, [CSI_EBS_TWO_VOL_POD], 2, [EBS_IN_TREE, EBS], 0, "csinode", [], EXCEEDED),
    (
        IN_TREE_INLINE_POD,
        [CSI_EBS_TWO_VOL_POD, IN_TREE_ONE_VOL_POD],
        3,
        [EBS_IN_TREE, EBS],
        0,
        "csinode",
        [],
        EXCEEDED,
    ),
    (
        IN_TREE_INLINE_SAME_ID_POD,
        [CSI_EBS_TWO_VOL_POD, IN_TREE_ONE_VOL_POD],
        3,
        [EBS_IN_TREE, EBS],
        0,
        "csinode",
        [],
        None,
    ),
    (CSI_EBS_ONE_VOL_POD, [IN_TREE_TWO_VOL_POD], 2, [EBS_IN_TREE, EBS], 0, "csinode", [], EXCEEDED),
    (
        EPHEMERAL_POD,
        [],
        0,
        [EBS],
        0,
        "csinode-with-no-limit",
        [],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found',
        ),
    ),
    (
        EPHEMERAL_POD,
        [],
        0,
        [EBS],
        0,
        "csinode-with-no-limit",
        [CONFLICTING_CLAIM],
        Status.error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"),
    ),
    (EPHEMERAL_POD, [], 0, [EBS], 0, "csinode-with-no-limit", [EPHEMERAL_CLAIM], None),
    (
        EPHEMERAL_POD,
        [RUNNING_POD, CSI_EBS_TWO_VOL_POD],
        2,
        [EBS],
        0,
        "csinode",
        [EPHEMERAL_CLAIM],
        EXCEEDED,
    ),
    (
        CSI_EBS_ONE_VOL_POD,
        [RUNNING_POD, EPHEMERAL_TWO_VOL_POD],
        2,
        [EBS],
        0,
        "csinode",
        [EPHEMERAL_CLAIM_X, EPHEMERAL_CLAIM_Y],
        EXCEEDED,
    ),
    (
        CSI_EBS_ONE_VOL_POD,
        [RUNNING_POD, EPHEMERAL_POD, CSI_EBS_TWO_VOL_POD],
        3,
        [EBS],
        0,
        "csinode",
        [EPHEMERAL_CLAIM],
        EXCEEDED,
    ),
    (
        CSI_EBS_ONE_VOL_POD,
        [RUNNING_POD, EPHEMERAL_POD, CSI_EBS_TWO_VOL_POD],
        5,
        [EBS],
        0,
        "csinode",
        [EPHEMERAL_CLAIM],
        None,
    ),
    (PVC_POD_WITH_CONFIG_AND_SECRET, [], 2, [EBS], 0, "csinode", [], None),
    (
        EPHEMERAL_POD_WITH_CONFIG_AND_SECRET,
        [],
        0,
        [EBS],
        0,
        "csinode-with-no-limit",
        [],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found',
        ),
    ),
    (
        INLINE_POD_WITH_CONFIG_AND_SECRET,
        [IN_TREE_TWO_VOL_POD],
        2,
        [EBS_IN_TREE, EBS],
        0,
        "csinode",
        [],
        EXCEEDED,
    ),
]

CASE_NAMES = [
    "should count VolumeAttachments towards volume limit when no pods exist",
    "should schedule pod when VolumeAttachments count does not exceed limit",
    "fits when node volume limit >= new pods CSI volume",
    "doesn't when node volume limit <= pods CSI volume",
    "should when driver does not support volume limits",
    "count pending PVCs towards volume limit <= pods CSI volume",
    "count multiple pending pvcs towards volume limit >= pods CSI volume",
    "should count PVCs with invalid PV name but valid SC",
    "don't count pvcs with missing SC towards volume limit",
    "count pvcs with the same type towards volume limit",
    "don't count pvcs with different type towards volume limit",
    "should count in-tree volumes if migration is enabled",
    "nil csi node",
    "should count unbound in-tree volumes if migration is enabled",
    "should not limit pod if volume used does not report limits",
    "should not count non-migratable in-tree volumes",
    "should count in-tree inline volumes if migration is enabled",
    "should count in-tree and csi volumes if migration is enabled (scheduling in-tree volumes)",
    "should count in-tree, inline and csi volumes if migration is enabled",
    "should not count in-tree, inline and csi volumes sharing a volume id",
    "should count in-tree and csi volumes if migration is enabled (scheduling csi volumes)",
    "ephemeral volume missing (the informer lister's wording)",
    "ephemeral volume not owned",
    "ephemeral volume unbound",
    "ephemeral doesn't when node volume limit <= pods CSI volume",
    "ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
    "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
    "persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
    "don't skip Filter when the pod has pvcs",
    "don't skip Filter when the pod has ephemeral volumes",
    "don't skip Filter when the pod has inline migratable volumes",
]


@pytest.mark.parametrize(
    ("pod", "existing", "max_vols", "drivers", "va_count", "limit_source", "extra", "want"),
    CASES,
    ids=CASE_NAMES,
)
def test_csi_limits(pod, existing, max_vols, drivers, va_count, limit_source, extra, want):
    pre_filter_status, filter_status = run(
        pod,
        existing,
        drivers,
        limit_source=limit_source,
        max_vols=max_vols,
        va_count=va_count,
        extra=extra,
    )
    assert pre_filter_status is None
    assert filter_status == want


def test_it_skips_a_pod_that_only_uses_config_maps_and_secrets():
    assert run(ONLY_CONFIG_AND_SECRET_POD, [], [EBS], limit_source="csinode", max_vols=2) == (
        SKIP,
        None,
    )


def test_an_inline_azure_disk_of_the_default_shared_kind_cannot_be_translated():
    pod = pod_with_volumes("az", {"name": "d", "azureDisk": {"diskName": "d", "diskURI": "u"}})
    _, status = run(pod, [], [EBS], limit_source="csinode", max_vols=2)
    assert status == Status.error(
        "converting volume(d) from inline to csi: kind(Shared) is not supported in csi migration"
    )


def test_a_managed_inline_azure_disk_counts_under_its_csi_driver():
    disk = {"name": "d", "azureDisk": {"diskName": "d", "diskURI": "uri-1", "kind": "Managed"}}
    existing = pod_with_volumes(
        "az-1", {**disk, "azureDisk": {**disk["azureDisk"], "diskURI": "uri-0"}}
    )
    pod = pod_with_volumes("az-2", disk)
    assert run(pod, [existing], ["disk.csi.azure.com"], limit_source="csinode", max_vols=1)[1] == (
        EXCEEDED
    )
    assert (
        run(pod, [existing], ["disk.csi.azure.com"], limit_source="csinode", max_vols=2)[1] is None
    )


# -- VolumeLimitScaling ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gate", "limit_source", "limit", "driver_present", "prevent", "want"),
    [
        (True, "no-csi-driver", 0, True, False, None),
        (
            True,
            "no-csi-driver",
            0,
            True,
            True,
            Status(Code.UNSCHEDULABLE, "ebs.csi.aws.com CSI driver is not installed on the node"),
        ),
        (False, "no-csi-driver", 0, True, True, None),
        (True, "csinode", 2, True, True, None),
        (True, "no-csi-driver", 0, False, False, None),
    ],
    ids=[
        "gate enabled - allow scheduling when the CSIDriver does not prevent it",
        "gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true",
        "gate disabled - skip driver presence check (regardless of CSIDriver presence)",
        "gate enabled - driver installed within limit",
        "gate enabled - allow scheduling when CSIDriver object missing",
    ],
)
def test_volume_limit_scaling_gate(gate, limit_source, limit, driver_present, prevent, want):
    extra = []
    if driver_present:
        spec = {"preventPodSchedulingIfMissing": True} if prevent else {}
        extra.append(make_csi_driver(EBS, **spec))
    _, status = run(
        CSI_EBS_ONE_VOL_POD,
        [],
        [EBS],
        limit_source=limit_source,
        max_vols=limit,
        extra=extra,
        features=Features(enable_volume_limit_scaling=gate),
    )
    assert status == want


# -- queueing ----------------------------------------------------------------------------------


def plugin(objects: list[Any] = ()) -> CSILimits:  # type: ignore[assignment]
    return CSILimits(None, FakeHandle(objects), Features.from_gates())


POD_EBS = claims_pod("csi-ebs.csi.aws.com-2")


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        (make_pod("d", node_name=NODE, volumes=[pvc_volume("placeholder")]), QueueingHint.QUEUE),
        (
            make_pod("d", node_name=NODE, volumes=[{"name": "e", "awsElasticBlockStore": {}}]),
            QueueingHint.QUEUE,
        ),
        (make_pod("d", node_name=NODE), QueueingHint.QUEUE_SKIP),
        (make_pod("d", volumes=[pvc_volume("csi-ebs.csi.aws.com-0")]), QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "return a Queue when a deleted pod has a PVC",
        "return a Queue when a deleted pod has a inline migratable volume",
        "return a QueueSkip when a deleted pod doesn't have any volume",
        "return a QueueSkip when a deleted pod is not scheduled",
    ],
)
def test_it_hints_on_pod_deletion(deleted, want):
    assert plugin().is_schedulable_after_pod_deleted(POD_EBS, deleted, None) == want


@pytest.mark.parametrize(
    ("pod", "added", "want"),
    [
        (make_pod("p", namespace="ns1"), make_pvc("c", namespace="ns2"), QueueingHint.QUEUE_SKIP),
        (
            make_pod("p", namespace="ns1", volumes=[pvc_volume("pvc1")]),
            make_pvc("pvc1", namespace="ns1"),
            QueueingHint.QUEUE,
        ),
        (
            make_pod("pod1", namespace="ns1", volumes=[ephemeral_volume("ephemeral")]),
            make_pvc("pod1-ephemeral", namespace="ns1"),
            QueueingHint.QUEUE,
        ),
        (
            make_pod("p", namespace="ns1", volumes=[pvc_volume("pvc1")]),
            make_pvc("pvc2", namespace="ns1"),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            make_pod("p", namespace="ns1"),
            make_pvc("pvc2", namespace="ns1"),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "a pod isn't in the same namespace as an added PVC",
        "a pod is in the same namespace as an added PVC",
        "a pod has an ephemeral volume related to an added PVC",
        "a pod doesn't have the same PVC as an added PVC",
        "a pod doesn't have any PVC attached",
    ],
)
def test_it_hints_on_claim_creation(pod, added, want):
    assert plugin().is_schedulable_after_pvc_added(pod, None, added) == want


EBS_INLINE = {"name": "e", "awsElasticBlockStore": {"volumeID": "test"}}
GCE_INLINE = {"name": "g", "gcePersistentDisk": {"pdName": "test"}}


@pytest.mark.parametrize(
    ("volumes", "attacher", "want"),
    [
        ([pvc_volume("pvc1")], "test.storage.gke.io", QueueingHint.QUEUE),
        ([EBS_INLINE], EBS, QueueingHint.QUEUE),
        ([GCE_INLINE], EBS, QueueingHint.QUEUE_SKIP),
        ([EBS_INLINE, pvc_volume("pvc1")], EBS, QueueingHint.QUEUE),
        ([EBS_INLINE, pvc_volume("pvc1")], "test.storage.gke.io", QueueingHint.QUEUE),
        ([], "test.storage.gke.io", QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "a pod has PVC when VolumeAttachment is deleting",
        "an inline EBS volume when an EBS VolumeAttachment is deleting (match)",
        "an inline GCE PD when an EBS VolumeAttachment is deleting (no match)",
        "an inline EBS volume and a PVC when an EBS VolumeAttachment is deleting",
        "an inline EBS volume and a PVC when another driver's VolumeAttachment is deleting",
        "a pod has no PVC when VolumeAttachment is deleting",
    ],
)
def test_it_hints_on_volume_attachment_deletion(volumes, attacher, want):
    pod = make_pod("p", namespace="ns1", volumes=volumes)
    attachment = make_volume_attachment("volumeattachment1", "fake-node", attacher, "pv1")
    pl = plugin([make_pvc("pvc1", namespace="ns1", volume_name="pv1")])
    assert pl.is_schedulable_after_volume_attachment_deleted(pod, attachment, None) == want


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        ({EBS: 1}, {EBS: 2}, QueueingHint.QUEUE),
        ({EBS: 2}, {EBS: 1}, QueueingHint.QUEUE_SKIP),
        ({EBS: 2}, {EBS: 2}, QueueingHint.QUEUE_SKIP),
        ({}, {EBS: 1}, QueueingHint.QUEUE),
        ({EBS: 1}, {EBS: None}, QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "limit raised, queue",
        "limit decreased, skip queueing",
        "limit unchanged, skip queueing",
        "a new driver with a limit, queue",
        "a limit removed reads as zero, skip queueing",
    ],
)
def test_it_hints_on_csi_node_updates(old, new, want):
    hint = plugin().is_schedulable_after_csi_node_updated(
        POD_EBS, make_csi_node("test-node", old), make_csi_node("test-node", new)
    )
    assert hint == want


def test_it_registers_upstreams_events():
    events = [(e.event, e.queueing_hint_fn is not None) for e in plugin().events_to_register()]
    assert events == [
        (ClusterEvent(EventResource.CSI_NODE, ActionType.ADD), False),
        (ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE), True),
        (ClusterEvent(EventResource.POD, ActionType.DELETE), True),
        (ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), True),
        (ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE), True),
    ]
