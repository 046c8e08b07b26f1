"""Validation of PersistentVolume and PersistentVolumeClaim (TestValidatePersistentVolumes,
TestValidatePersistentVolumeClaim), StorageClass (TestValidateStorageClass) and CSINode
(TestValidateCSINode), with upstream's paths and messages."""

from __future__ import annotations

import pytest

from framework.api.validation.objects import validate_manifest

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
MODES = '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'


def errors(kind: str, manifest: dict) -> list[str]:
    namespaced = kind == "PersistentVolumeClaim"
    return [str(e) for e in validate_manifest(kind, namespaced, {"kind": kind, **manifest})]


def pv(name="foo", **spec):
    base = {
        "capacity": {"storage": "10G"},
        "accessModes": ["ReadWriteOnce"],
        "hostPath": {"path": "/foo", "type": ""},
    }
    return {"metadata": {"name": name}, "spec": {**base, **spec}}


def without(manifest, key):
    del manifest["spec"][key]
    return manifest


PV_CASES = [
    ("good-volume", pv(), []),
    ("good-volume-with-storage-class", pv(storageClassName="valid"), []),
    ("good-volume-with-retain-policy", pv(persistentVolumeReclaimPolicy="Retain"), []),
    ("good-volume-with-volume-mode", pv(volumeMode="Block"), []),
    (
        "invalid-accessmode",
        pv(accessModes=["fakemode"]),
        [f'spec.accessModes: Unsupported value: "fakemode": supported values: {MODES}'],
    ),
    (
        "invalid-reclaimpolicy",
        pv(persistentVolumeReclaimPolicy="fakeReclaimPolicy"),
        [
            'spec.persistentVolumeReclaimPolicy: Unsupported value: "fakeReclaimPolicy": '
            'supported values: "Delete", "Recycle", "Retain"'
        ],
    ),
    (
        "invalid-volume-mode",
        pv(volumeMode="fakeVolumeMode"),
        [
            'spec.volumeMode: Unsupported value: "fakeVolumeMode": supported values: "Block", '
            '"Filesystem"'
        ],
    ),
    ("with-read-write-once-pod", pv(accessModes=["ReadWriteOncePod"]), []),
    (
        "with-read-write-once-pod-and-others",
        pv(accessModes=["ReadWriteOncePod", "ReadWriteMany"]),
        ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"],
    ),
    (
        "unexpected-namespace",
        {**pv(), "metadata": {"name": "foo", "namespace": "unexpected-namespace"}},
        ["metadata.namespace: Forbidden: not allowed on this type"],
    ),
    (
        "missing-volume-source",
        without(pv(), "hostPath"),
        ["spec: Required value: must specify a volume type"],
    ),
    (
        "bad-name",
        pv("123*Bad(Name"),
        [f'metadata.name: Invalid value: "123*Bad(Name": {SUBDOMAIN}'],
    ),
    (
        "missing-capacity",
        without(pv(), "capacity"),
        [
            "spec.capacity: Required value",
            # Absent: a nil list, printed as null (kube-apiserver v1.36.2's answer).
            'spec.capacity: Unsupported value: null: supported values: "storage"',
        ],
    ),
    (
        "empty-capacity",
        {**pv(), "spec": {**pv()["spec"], "capacity": {}}},
        [
            "spec.capacity: Required value",
            'spec.capacity: Unsupported value: {}: supported values: "storage"',
        ],
    ),
    (
        "bad-volume-zero-capacity",
        pv(capacity={"storage": "0"}),
        ['spec.capacity[storage]: Invalid value: "0": must be greater than zero'],
    ),
    ("missing-accessmodes", without(pv(), "accessModes"), ["spec.accessModes: Required value"]),
    (
        "too-many-sources",
        pv(gcePersistentDisk={"pdName": "foo", "fsType": "ext4"}),
        ["spec.gcePersistentDisk: Forbidden: may not specify more than 1 volume type"],
    ),
    (
        "host mount of / with recycle reclaim policy",
        pv(hostPath={"path": "/"}, persistentVolumeReclaimPolicy="Recycle"),
        [
            "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a "
            "hostPath mount of '/'"
        ],
    ),
    (
        "host mount of / with recycle reclaim policy 2",
        pv(hostPath={"path": "/a/.."}, persistentVolumeReclaimPolicy="Recycle"),
        [
            "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a "
            "hostPath mount of '/'"
        ],
    ),
    (
        "invalid-storage-class-name",
        pv(storageClassName="-invalid-"),
        [f'spec.storageClassName: Invalid value: "-invalid-": {SUBDOMAIN}'],
    ),
    (
        "volume-empty-node-affinity",
        pv(nodeAffinity={}),
        ["spec.nodeAffinity.required: Required value: must specify required node constraints"],
    ),
    (
        "volume-bad-node-affinity",
        pv(
            nodeAffinity={
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"operator": "In", "values": ["x"]}]}
                    ]
                }
            }
        ),
        [
            "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: Invalid "
            'value: "": name part must be non-empty',
            "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: Invalid "
            "value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
    ),
    (
        "a local volume without node affinity",
        without(pv(local={"path": "/mnt/disks/ssd1"}), "hostPath"),
        ["spec.nodeAffinity: Required value: Local volume requires node affinity"],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"), [c[1:] for c in PV_CASES], ids=[c[0] for c in PV_CASES]
)
def test_persistent_volume_validation(manifest, expected):
    assert errors("PersistentVolume", manifest) == expected


def pvc(**spec):
    base = {
        "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
        "resources": {"requests": {"storage": "10G"}},
    }
    return {"metadata": {"name": "foo", "namespace": "ns"}, "spec": {**base, **spec}}


PVC_CASES = [
    ("good-claim", pvc(), []),
    ("with-read-write-once-pod", pvc(accessModes=["ReadWriteOncePod"]), []),
    (
        "with-read-write-once-pod-and-others",
        pvc(accessModes=["ReadWriteOncePod", "ReadWriteMany"]),
        ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"],
    ),
    (
        "invalid-claim-zero-capacity",
        pvc(resources={"requests": {"storage": "0G"}}),
        ['spec.resources[storage]: Invalid value: "0": must be greater than zero'],
    ),
    (
        "invalid-label-selector",
        pvc(
            selector={
                "matchExpressions": [{"key": "key2", "operator": "InvalidOp", "values": ["v"]}]
            }
        ),
        [
            'spec.selector.matchExpressions[0].operator: Invalid value: "InvalidOp": not a valid '
            "selector operator"
        ],
    ),
    (
        "invalid-accessmode",
        pvc(accessModes=["fakemode"]),
        [f'spec.accessModes: Unsupported value: "fakemode": supported values: {MODES}'],
    ),
    (
        "no-access-modes",
        pvc(accessModes=[]),
        ["spec.accessModes: Required value: at least 1 access mode is required"],
    ),
    (
        "no-resource-requests",
        pvc(resources={}),
        ["spec.resources[storage]: Required value"],
    ),
    (
        "invalid-resource-requests",
        pvc(resources={"requests": {"memory": "10G"}}),
        ["spec.resources[storage]: Required value"],
    ),
    (
        "negative-storage-request",
        pvc(resources={"requests": {"storage": "-10G"}}),
        ['spec.resources[storage]: Invalid value: "-10G": must be greater than zero'],
    ),
    (
        "invalid-storage-class-name",
        pvc(storageClassName="-invalid-"),
        [f'spec.storageClassName: Invalid value: "-invalid-": {SUBDOMAIN}'],
    ),
    (
        "invalid-volume-mode",
        pvc(volumeMode="fakeVolumeMode"),
        [
            'spec.volumeMode: Unsupported value: "fakeVolumeMode": supported values: "Block", '
            '"Filesystem"'
        ],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"), [c[1:] for c in PVC_CASES], ids=[c[0] for c in PVC_CASES]
)
def test_persistent_volume_claim_validation(manifest, expected):
    assert errors("PersistentVolumeClaim", manifest) == expected


def storage_class(**fields):
    return {"metadata": {"name": "foo"}, "provisioner": "kubernetes.io/foo-provisioner", **fields}


STORAGE_CLASS_CASES = [
    ("a valid class", storage_class(reclaimPolicy="Retain", volumeBindingMode="Immediate"), []),
    (
        "namespace is present",
        {**storage_class(), "metadata": {"name": "foo", "namespace": "bar"}},
        ["metadata.namespace: Forbidden: not allowed on this type"],
    ),
    (
        "invalid provisioner",
        storage_class(provisioner="kubernetes.io/invalid/provisioner"),
        [
            'provisioner: Invalid value: "kubernetes.io/invalid/provisioner": a valid label key '
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
            "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
            "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ],
    ),
    ("missing provisioner", storage_class(provisioner=""), ["provisioner: Required value"]),
    (
        "empty parameter name",
        storage_class(parameters={"": "value"}),
        ['parameters: Invalid value: "": field can not be empty.'],
    ),
    (
        "invalid reclaimpolicy",
        storage_class(reclaimPolicy="invalid"),
        ['reclaimPolicy: Unsupported value: "invalid": supported values: "Delete", "Retain"'],
    ),
    (
        "invalid binding mode",
        storage_class(volumeBindingMode="foo"),
        [
            'volumeBindingMode: Unsupported value: "foo": supported values: "Immediate", '
            '"WaitForFirstConsumer"'
        ],
    ),
    (
        "duplicate topology terms and values",
        storage_class(
            allowedTopologies=[
                {"matchLabelExpressions": [{"key": "zone", "values": ["a", "a"]}]},
                {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]},
                {"matchLabelExpressions": [{"key": "zone", "values": []}]},
            ]
        ),
        [
            'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
            'allowedTopologies[1].matchLabelExpressions: Duplicate value: ""',
            "allowedTopologies[2].matchLabelExpressions[0].values: Required value",
        ],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [c[1:] for c in STORAGE_CLASS_CASES],
    ids=[c[0] for c in STORAGE_CLASS_CASES],
)
def test_storage_class_validation(manifest, expected):
    assert errors("StorageClass", manifest) == expected


def csi_node(*drivers):
    return {"metadata": {"name": "foo"}, "spec": {"drivers": list(drivers)}}


CSI_NODE_CASES = [
    (
        "a valid node",
        csi_node(
            {
                "name": "io.kubernetes.storage.csi.driver",
                "nodeID": "n1",
                "topologyKeys": ["company.com/zone1"],
                "allocatable": {"count": 3},
            }
        ),
        [],
    ),
    (
        "a driver name that is not a subdomain",
        csi_node({"name": "io.kubernetes.storage.csi.driver@", "nodeID": "n1"}),
        ['spec.drivers[0].name: Invalid value: "io.kubernetes.storage.csi.driver@": ' + SUBDOMAIN],
    ),
    (
        "a driver without a node ID",
        csi_node({"name": "io.kubernetes.storage.csi.driver"}),
        ["spec.drivers[0].nodeID: Required value"],
    ),
    (
        "a negative allocatable count",
        csi_node(
            {
                "name": "io.kubernetes.storage.csi.driver",
                "nodeID": "n1",
                "allocatable": {"count": -1},
            }
        ),
        [
            "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or "
            "equal to 0"
        ],
    ),
    (
        "the same driver twice and a topology key twice",
        csi_node(
            {"name": "a.csi.io", "nodeID": "n1", "topologyKeys": ["zone", "zone"]},
            {"name": "a.csi.io", "nodeID": "n1"},
        ),
        [
            'spec.drivers[0]: Duplicate value: "zone"',
            'spec.drivers[1].name: Duplicate value: "a.csi.io"',
        ],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"), [c[1:] for c in CSI_NODE_CASES], ids=[c[0] for c in CSI_NODE_CASES]
)
def test_csi_node_validation(manifest, expected):
    assert errors("CSINode", manifest) == expected
