"""The volume binder against upstream's tables (binder_test.go)."""

from __future__ import annotations

import pytest

from framework.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BindingError,
    BindingTimeoutError,
    PodVolumes,
)
from tests.framework.builders import make_pod
from tests.framework.plugins.volumebinding.env import (
    BOUND_MIGRATION_PVC,
    BOUND_PVC,
    CSI_NODE_1_MIGRATED,
    CSI_NODE_1_NOT_MIGRATED,
    IMMEDIATE_BOUND_PVC,
    IMMEDIATE_UNBOUND_PVC,
    MIGRATION_PV_BOUND,
    NO_PROVISIONER_PVC,
    NODE_1,
    NODE_1_ZONE_1,
    NODE_1_ZONE_2,
    PREBOUND_PVC,
    PROVISIONED_PVC,
    PROVISIONED_PVC_2,
    PROVISIONED_PVC_HIGHER_VERSION,
    PROVISIONER,
    PV_BOUND,
    PV_BOUND_IMMEDIATE,
    PV_BOUND_IMMEDIATE_NODE_2,
    PV_NODE_1A,
    PV_NODE_1A_BOUND,
    PV_NODE_1B,
    PV_NODE_2,
    SELECTED_NODE_PVC,
    TOPO_MISMATCH_PVC,
    UNBOUND_PVC,
    UNBOUND_PVC_2,
    WAIT_CLASS_WITH_PROVISIONER,
    Env,
    binding,
    described,
    generic_ephemeral_pvc,
    make_test_pv,
    pod_with_claims,
    pod_with_ephemeral,
    provisions,
)
from tests.framework.storage.builders import make_capacity, make_csi_driver

WITHOUT_PROVISIONING = {
    "bound-pvc": ([BOUND_PVC], [PV_BOUND], None, [], False),
    "bound-pvc,pv-not-exists": ([BOUND_PVC], [], None, [ERR_REASON_PV_NOT_EXIST], False),
    "prebound-pvc": ([PREBOUND_PVC], [PV_NODE_1A_BOUND], None, [], True),
    "unbound-pvc,pv-same-node": (
        [UNBOUND_PVC],
        [PV_NODE_2, PV_NODE_1A, PV_NODE_1B],
        [("unbound-pvc", "pv-node1a")],
        [],
        False,
    ),
    "unbound-pvc,pv-different-node": (
        [UNBOUND_PVC],
        [PV_NODE_2],
        None,
        [ERR_REASON_BIND_CONFLICT],
        False,
    ),
    "two-unbound-pvcs": (
        [UNBOUND_PVC, UNBOUND_PVC_2],
        [PV_NODE_1A, PV_NODE_1B],
        [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
        [],
        False,
    ),
    "two-unbound-pvcs,order-by-size": (
        [UNBOUND_PVC_2, UNBOUND_PVC],
        [PV_NODE_1A, PV_NODE_1B],
        [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
        [],
        False,
    ),
    "two-unbound-pvcs,partial-match": (
        [UNBOUND_PVC, UNBOUND_PVC_2],
        [PV_NODE_1A],
        [("unbound-pvc", "pv-node1a")],
        [ERR_REASON_BIND_CONFLICT],
        False,
    ),
    "one-bound,one-unbound": (
        [UNBOUND_PVC, BOUND_PVC],
        [PV_BOUND, PV_NODE_1A],
        [("unbound-pvc", "pv-node1a")],
        [],
        False,
    ),
    "one-bound,one-unbound,no-match": (
        [UNBOUND_PVC, BOUND_PVC],
        [PV_BOUND, PV_NODE_2],
        None,
        [ERR_REASON_BIND_CONFLICT],
        False,
    ),
    "one-prebound,one-unbound": (
        [UNBOUND_PVC, PREBOUND_PVC],
        [PV_NODE_1A, PV_NODE_1B],
        None,
        [],
        True,
    ),
    "immediate-bound-pvc": ([IMMEDIATE_BOUND_PVC], [PV_BOUND_IMMEDIATE], None, [], False),
    "immediate-bound-pvc-wrong-node": (
        [IMMEDIATE_BOUND_PVC],
        [PV_BOUND_IMMEDIATE_NODE_2],
        None,
        [ERR_REASON_NODE_CONFLICT],
        False,
    ),
    "immediate-unbound-pvc": ([IMMEDIATE_UNBOUND_PVC], [], None, [], True),
    "immediate-unbound-pvc,delayed-mode-bound": (
        [IMMEDIATE_UNBOUND_PVC, BOUND_PVC],
        [PV_BOUND],
        None,
        [],
        True,
    ),
    "immediate-unbound-pvc,delayed-mode-unbound": (
        [IMMEDIATE_UNBOUND_PVC, UNBOUND_PVC],
        [],
        None,
        [],
        True,
    ),
}

CSI_DRIVERS = {
    "no CSIDriver": [],
    "CSIDriver with capacity tracking": [make_csi_driver(PROVISIONER, storageCapacity=True)],
    "CSIDriver without capacity tracking": [make_csi_driver(PROVISIONER, storageCapacity=False)],
}


@pytest.mark.parametrize("drivers", list(CSI_DRIVERS.values()), ids=list(CSI_DRIVERS))
@pytest.mark.parametrize(
    ("claims", "pvs", "want_bindings", "want_reasons", "should_fail"),
    list(WITHOUT_PROVISIONING.values()),
    ids=list(WITHOUT_PROVISIONING),
)
def test_find_pod_volumes_without_provisioning(
    drivers, claims, pvs, want_bindings, want_reasons, should_fail
):
    env = Env(*claims, *pvs, *drivers)
    pod = pod_with_claims(*claims)
    if should_fail:
        with pytest.raises(ValueError):
            env.find_pod_volumes(pod, NODE_1)
        return
    pod_volumes, reasons = env.find_pod_volumes(pod, NODE_1)
    assert reasons == want_reasons
    assert described(pod_volumes)[0] == want_bindings


@pytest.mark.parametrize(
    ("pod", "objects", "should_fail"),
    [
        (make_pod("test-pod", namespace="testns", node_name="node1"), [], False),
        (
            make_pod(
                "test-pod",
                namespace="testns",
                node_name="node1",
                volumes=[{"name": "e", "emptyDir": {}}],
            ),
            [],
            False,
        ),
        (pod_with_claims(BOUND_PVC), [], True),
        (pod_with_ephemeral("no-such-pvc"), [], True),
        (
            pod_with_ephemeral("test-volume"),
            [generic_ephemeral_pvc("test-volume", True), PV_BOUND],
            False,
        ),
        (
            pod_with_ephemeral("test-volume"),
            [generic_ephemeral_pvc("test-volume", False), PV_BOUND],
            True,
        ),
    ],
    ids=[
        "no-volumes",
        "no-pvcs",
        "pvc-not-found",
        "generic-ephemeral,no-pvc",
        "generic-ephemeral,with-pvc",
        "generic-ephemeral,wrong-pvc",
    ],
)
def test_find_pod_volumes_for_pods_without_plain_claims(pod, objects, should_fail):
    env = Env(*objects)
    if should_fail:
        with pytest.raises(ValueError):
            env.find_pod_volumes(pod, NODE_1)
        return
    pod_volumes, reasons = env.find_pod_volumes(pod, NODE_1)
    assert (reasons, described(pod_volumes)) == ([], (None, None))


WITH_PROVISIONING = {
    "one-provisioned": ([PROVISIONED_PVC], [], None, ["provisioned-pvc"], [], True),
    "two-unbound-pvcs,one-matched,one-provisioned": (
        [UNBOUND_PVC, PROVISIONED_PVC],
        [PV_NODE_1A],
        [("unbound-pvc", "pv-node1a")],
        ["provisioned-pvc"],
        [],
        True,
    ),
    "one-bound,one-provisioned": (
        [BOUND_PVC, PROVISIONED_PVC],
        [PV_BOUND],
        None,
        ["provisioned-pvc"],
        [],
        True,
    ),
    "one-binding,one-selected-node": (
        [BOUND_PVC, SELECTED_NODE_PVC],
        [PV_BOUND],
        None,
        ["provisioned-pvc"],
        [],
        True,
    ),
    "one-immediate-bound,one-provisioned": (
        [IMMEDIATE_BOUND_PVC, PROVISIONED_PVC],
        [PV_BOUND_IMMEDIATE],
        None,
        ["provisioned-pvc"],
        [],
        True,
    ),
    "invalid-provisioner": (
        [NO_PROVISIONER_PVC],
        [],
        None,
        None,
        [ERR_REASON_BIND_CONFLICT],
        False,
    ),
    "volume-topology-unsatisfied": (
        [TOPO_MISMATCH_PVC],
        [],
        None,
        None,
        [ERR_REASON_BIND_CONFLICT],
        False,
    ),
}


@pytest.mark.parametrize("drivers", list(CSI_DRIVERS.values()), ids=list(CSI_DRIVERS))
@pytest.mark.parametrize(
    ("claims", "pvs", "want_bindings", "want_provisions", "want_reasons", "needs_capacity"),
    list(WITH_PROVISIONING.values()),
    ids=list(WITH_PROVISIONING),
)
def test_find_pod_volumes_with_provisioning(
    drivers, claims, pvs, want_bindings, want_provisions, want_reasons, needs_capacity
):
    env = Env(*claims, *pvs, *drivers)
    pod_volumes, reasons = env.find_pod_volumes(pod_with_claims(*claims), NODE_1)
    tracks_capacity = bool(drivers) and drivers[0].manifest["spec"]["storageCapacity"]
    if needs_capacity and tracks_capacity:
        # The driver tracks capacity and no CSIStorageCapacity offers any.
        assert reasons == [ERR_REASON_NOT_ENOUGH_SPACE]
        assert described(pod_volumes)[1] is None
        return
    assert reasons == want_reasons
    assert described(pod_volumes) == (want_bindings, want_provisions)


def test_immediate_unbound_claims_fail_with_provisioning_too():
    env = Env(IMMEDIATE_UNBOUND_PVC)
    with pytest.raises(ValueError):
        env.find_pod_volumes(pod_with_claims(IMMEDIATE_UNBOUND_PVC), NODE_1)


@pytest.mark.parametrize(
    ("node", "csi_nodes", "want_reasons"),
    [
        (NODE_1_ZONE_1, [CSI_NODE_1_MIGRATED], []),
        (NODE_1_ZONE_1, [CSI_NODE_1_NOT_MIGRATED], []),
        (NODE_1_ZONE_1, [], []),
        (NODE_1_ZONE_2, [CSI_NODE_1_MIGRATED], [ERR_REASON_NODE_CONFLICT]),
    ],
    ids=[
        "pvc-bound",
        "pvc-bound,csinode-not-migrated",
        "pvc-bound,missing-csinode",
        "pvc-bound,node-different-zone",
    ],
)
def test_find_pod_volumes_with_csi_migration(node, csi_nodes, want_reasons):
    env = Env(BOUND_MIGRATION_PVC, MIGRATION_PV_BOUND, node, *csi_nodes)
    _, reasons = env.find_pod_volumes(pod_with_claims(BOUND_MIGRATION_PVC), node)
    assert reasons == want_reasons


def test_a_claim_provisioned_for_another_node_rules_this_node_out():
    claim = SELECTED_NODE_PVC
    env = Env(claim)
    other = NODE_1.deep_copy()
    other.metadata.name = "node2"
    _, reasons = env.find_pod_volumes(pod_with_claims(claim), other)
    assert reasons == [ERR_REASON_BIND_CONFLICT]


# -- capacity ----------------------------------------------------------------------------------

NODE_1_LABELS = {"nodeKey": "node1"}
NODE_2_LABELS = {"nodeKey": "node2"}


@pytest.mark.parametrize(
    ("capacities", "want_reasons"),
    [
        ([make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, {}, "1Gi")], []),
        ([make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "1Gi")], []),
        (
            [
                make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_2_LABELS, "1Gi"),
                make_capacity("net-2", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "1Gi"),
            ],
            [],
        ),
        ([], [ERR_REASON_NOT_ENOUGH_SPACE]),
        (
            [make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_2_LABELS, "1Gi")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
        (
            [make_capacity("net", "wrong-class", NODE_1_LABELS, "1Gi")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
        (
            [make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "1Mi")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
        (
            [make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "1Gi", "1Mi")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
        (
            [make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "0")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
        (
            [make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "1Gi", "0")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
        (
            [make_capacity("net", WAIT_CLASS_WITH_PROVISIONER, NODE_1_LABELS, "")],
            [ERR_REASON_NOT_ENOUGH_SPACE],
        ),
    ],
    ids=[
        "network-attached",
        "local-storage",
        "multiple",
        "no-storage",
        "wrong-node",
        "wrong-storage-class",
        "insufficient-storage",
        "insufficient-volume-size",
        "zero-storage",
        "zero-volume-size",
        "nil-storage",
    ],
)
def test_capacity(capacities, want_reasons):
    env = Env(PROVISIONED_PVC, make_csi_driver(PROVISIONER, storageCapacity=True), *capacities)
    pod_volumes, reasons = env.find_pod_volumes(pod_with_claims(PROVISIONED_PVC), NODE_1)
    assert reasons == want_reasons
    if not reasons:
        assert described(pod_volumes) == (None, ["provisioned-pvc"])


# -- Reserve: assume and revert ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("claims", "pvs", "static", "dynamic", "should_fail", "want_static", "want_dynamic"),
    [
        ([BOUND_PVC], [PV_BOUND], None, None, False, "all bound", None),
        (
            [UNBOUND_PVC],
            [PV_NODE_1A],
            [binding(UNBOUND_PVC, PV_NODE_1A)],
            None,
            False,
            [("unbound-pvc", "pv-node1a")],
            [],
        ),
        (
            [UNBOUND_PVC, UNBOUND_PVC_2],
            [PV_NODE_1A, PV_NODE_1B],
            [binding(UNBOUND_PVC, PV_NODE_1A), binding(UNBOUND_PVC_2, PV_NODE_1B)],
            None,
            False,
            [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
            [],
        ),
        (
            [UNBOUND_PVC],
            [PV_NODE_1A_BOUND],
            [binding(UNBOUND_PVC, PV_NODE_1A_BOUND)],
            None,
            False,
            [("unbound-pvc", "pv-node1a")],
            [],
        ),
        (
            [UNBOUND_PVC],
            [PV_NODE_1A],
            [binding(UNBOUND_PVC, PV_NODE_1A), binding(UNBOUND_PVC_2, PV_NODE_1B)],
            None,
            True,
            None,
            None,
        ),
        (
            [UNBOUND_PVC, PROVISIONED_PVC],
            [PV_NODE_1A],
            [binding(UNBOUND_PVC, PV_NODE_1A)],
            provisions(PROVISIONED_PVC),
            False,
            [("unbound-pvc", "pv-node1a")],
            ["provisioned-pvc"],
        ),
        (
            [UNBOUND_PVC, PROVISIONED_PVC_HIGHER_VERSION],
            [PV_NODE_1A],
            [binding(UNBOUND_PVC, PV_NODE_1A)],
            provisions(PROVISIONED_PVC_2),
            True,
            None,
            None,
        ),
    ],
    ids=[
        "all-bound",
        "one-binding",
        "two-bindings",
        "pv-already-bound",
        "tmpupdate-failed",
        "one-binding, one-pvc-provisioned",
        "one-binding, one-provision-tmpupdate-failed",
    ],
)
def test_assume_pod_volumes(claims, pvs, static, dynamic, should_fail, want_static, want_dynamic):
    env = Env(*claims, *pvs)
    pod = pod_with_claims(*claims)
    pod_volumes = PodVolumes(static, dynamic)
    if should_fail:
        with pytest.raises(Exception):  # noqa: B017 - upstream only checks that it fails
            env.binder.assume_pod_volumes(pod, "node1", pod_volumes)
        # Nothing stays assumed after a failure.
        for pv in pvs:
            assert env.binder.pv_cache.get(pv.name) is env.cluster.get("PersistentVolume", pv.name)
        return
    all_bound = env.binder.assume_pod_volumes(pod, "node1", pod_volumes)
    if want_static == "all bound":
        assert all_bound is True
        return
    assert all_bound is False
    assert described(pod_volumes) == (want_static, want_dynamic)
    for assumed in pod_volumes.static_bindings:
        cached = env.binder.pv_cache.get(assumed.pv.name)
        assert cached.spec.claim_ref.name == assumed.pvc.name
        assert cached.metadata.annotations["pv.kubernetes.io/bound-by-controller"] == "yes"
    for provision in pod_volumes.dynamic_provisions:
        cached = env.binder.pvc_cache.get(provision.pvc.key)
        assert cached.metadata.annotations["volume.kubernetes.io/selected-node"] == "node1"


def test_the_next_pod_does_not_get_a_pv_assumed_for_another_claim():
    env = Env(UNBOUND_PVC, UNBOUND_PVC_2, PV_NODE_1A, PV_NODE_1B)
    first = pod_with_claims(UNBOUND_PVC)
    pod_volumes, _ = env.find_pod_volumes(first, NODE_1)
    env.binder.assume_pod_volumes(first, "node1", pod_volumes)
    second = pod_with_claims(UNBOUND_PVC_2)
    pod_volumes, reasons = env.find_pod_volumes(second, NODE_1)
    assert reasons == []
    assert described(pod_volumes)[0] == [("unbound-pvc2", "pv-node1b")]


def test_revert_assumed_pod_volumes_restores_the_caches():
    env = Env(UNBOUND_PVC, PROVISIONED_PVC, PV_NODE_1A)
    pod = pod_with_claims(UNBOUND_PVC, PROVISIONED_PVC)
    pod_volumes = PodVolumes([binding(UNBOUND_PVC, PV_NODE_1A)], provisions(PROVISIONED_PVC))
    assert env.binder.assume_pod_volumes(pod, "node1", pod_volumes) is False
    assert env.binder.pv_cache.get("pv-node1a").spec.claim_ref is not None
    env.binder.revert_assumed_pod_volumes(pod_volumes)
    assert env.binder.pv_cache.get("pv-node1a").spec.claim_ref is None
    claim = env.binder.pvc_cache.get(PROVISIONED_PVC.key)
    assert "volume.kubernetes.io/selected-node" not in claim.metadata.annotations


# -- PreBind: write and check ------------------------------------------------------------------


def assumed(env: Env, pod, pod_volumes: PodVolumes) -> PodVolumes:
    env.binder.assume_pod_volumes(pod, "node1", pod_volumes)
    return pod_volumes


def test_binding_writes_the_prebound_pv_and_times_out_without_a_pv_controller():
    pod = pod_with_claims(UNBOUND_PVC)
    env = Env(UNBOUND_PVC, PV_NODE_1A, NODE_1, pod)
    pod_volumes = assumed(env, pod, PodVolumes([binding(UNBOUND_PVC, PV_NODE_1A)], None))
    with pytest.raises(BindingTimeoutError) as raised:
        env.binder.bind_pod_volumes(pod, "node1", pod_volumes)
    assert str(raised.value) == "binding volumes: context deadline exceeded"
    written = env.cluster.get("PersistentVolume", "pv-node1a")
    assert written.spec.claim_ref.name == "unbound-pvc"
    assert written.metadata.resource_version != PV_NODE_1A.metadata.resource_version


def test_binding_completes_when_the_cluster_finished_the_claim():
    pod = pod_with_claims(UNBOUND_PVC)
    finished = BOUND_PVC.deep_copy()
    finished.metadata.name = "unbound-pvc"
    finished.spec.volume_name = "pv-node1a"
    env = Env(finished, PV_NODE_1A, NODE_1, pod)
    env.binder.bind_pod_volumes(
        pod, "node1", PodVolumes([binding(UNBOUND_PVC, PV_NODE_1A_BOUND)], [])
    )


def test_dynamic_provisioning_annotates_the_claim_with_the_node():
    pod = pod_with_claims(PROVISIONED_PVC)
    env = Env(PROVISIONED_PVC, NODE_1, pod)
    pod_volumes = assumed(env, pod, PodVolumes(None, provisions(PROVISIONED_PVC)))
    with pytest.raises(BindingTimeoutError):
        env.binder.bind_pod_volumes(pod, "node1", pod_volumes)
    claim = env.cluster.get("PersistentVolumeClaim", "provisioned-pvc", "testns")
    assert claim.metadata.annotations["volume.kubernetes.io/selected-node"] == "node1"


@pytest.mark.parametrize(
    ("static", "dynamic", "message"),
    [
        (None, None, 'failed to get cached bindings for pod "testns/test-pod"'),
        (None, [], 'failed to get cached bindings for pod "testns/test-pod"'),
        ([], None, 'failed to get cached claims to provision for pod "testns/test-pod"'),
    ],
    ids=[
        "nothing-to-bind-nil",
        "nothing-to-bind-bindings-nil",
        "nothing-to-bind-provisionings-nil",
    ],
)
def test_bind_api_update_needs_the_assumed_lists(static, dynamic, message):
    pod = pod_with_claims()
    env = Env(NODE_1, pod)
    with pytest.raises(BindingError) as raised:
        env.binder.bind_pod_volumes(pod, "node1", PodVolumes(static, dynamic))
    assert str(raised.value) == message


def test_nothing_to_bind_succeeds_at_once():
    pod = pod_with_claims()
    env = Env(NODE_1, pod)
    env.binder.bind_pod_volumes(pod, "node1", PodVolumes([], []))


def test_a_refused_write_restores_what_was_not_written():
    pod = pod_with_claims(UNBOUND_PVC, UNBOUND_PVC_2)
    env = Env(UNBOUND_PVC, UNBOUND_PVC_2, PV_NODE_1A, PV_NODE_1B, NODE_1, pod)
    pod_volumes = assumed(
        env,
        pod,
        PodVolumes([binding(UNBOUND_PVC, PV_NODE_1A), binding(UNBOUND_PVC_2, PV_NODE_1B)], None),
    )
    env.cluster.refuse.add("pv-node1b")
    with pytest.raises(RuntimeError):
        env.binder.bind_pod_volumes(pod, "node1", pod_volumes)
    assert env.binder.pv_cache.get("pv-node1b").spec.claim_ref is None
    assert env.cluster.get("PersistentVolume", "pv-node1a").spec.claim_ref is not None


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("pod deleted", 'binding volumes: pod does not exist any more: pod "test-pod" not found'),
        ("claim ref reset", 'binding volumes: ClaimRef got reset for pv "pv-node1a"'),
        ("selected node dropped", 'binding volumes: provisioning failed for PVC "provisioned-pvc"'),
        (
            "annotations reset",
            'binding volumes: selectedNode annotation reset for PVC "provisioned-pvc"',
        ),
    ],
    ids=[
        "a pod deleted meanwhile fails the binding",
        "a PV whose claimRef lost its uid fails the binding",
        "a provisioner that dropped the selected node fails the binding",
        "a claim whose annotations were reset fails the binding",
    ],
)
def test_check_bindings_failures(case, message):
    pod = pod_with_claims(UNBOUND_PVC, PROVISIONED_PVC)
    objects = [UNBOUND_PVC, PROVISIONED_PVC, PV_NODE_1A, NODE_1]
    if case != "pod deleted":
        objects.append(pod)
    env = Env(*objects)
    static = (
        [binding(UNBOUND_PVC, PV_NODE_1A)] if case in ("pod deleted", "claim ref reset") else []
    )
    dynamic = provisions(PROVISIONED_PVC) if case not in ("pod deleted", "claim ref reset") else []
    pod_volumes = assumed(env, pod, PodVolumes(static, dynamic))
    original_update = env.cluster.update

    def sabotaged(obj):
        written = original_update(obj)
        if case == "claim ref reset" and obj.kind == "PersistentVolume":
            written.spec.claim_ref = type(written.spec.claim_ref)("testns", "unbound-pvc", "")
        if case == "selected node dropped" and obj.kind == "PersistentVolumeClaim":
            written.metadata.annotations["volume.kubernetes.io/selected-node"] = "node2"
        if case == "annotations reset" and obj.kind == "PersistentVolumeClaim":
            written.metadata.annotations.clear()
        return written

    env.cluster.update = sabotaged  # type: ignore[method-assign]
    with pytest.raises(BindingError) as raised:
        env.binder.bind_pod_volumes(pod, "node1", pod_volumes)
    assert str(raised.value) == message


def test_check_bindings_checks_node_affinity_of_the_bound_pv():
    pod = pod_with_claims(UNBOUND_PVC)
    pv = make_test_pv("pv-node1a", "node2", "5G", "1", None, "waitClass")
    env = Env(UNBOUND_PVC, pv, NODE_1, pod)
    pod_volumes = assumed(env, pod, PodVolumes([binding(UNBOUND_PVC, pv)], []))
    with pytest.raises(BindingError) as raised:
        env.binder.bind_pod_volumes(pod, "node1", pod_volumes)
    assert str(raised.value) == (
        'binding volumes: pv "pv-node1a" node affinity doesn\'t match node "node1": '
        "no matching NodeSelectorTerms"
    )
