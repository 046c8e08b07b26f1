"""In-tree to CSI translation as csi-translation-lib v1.36 does it (the parts scheduling reads)."""

from __future__ import annotations

import pytest

from framework.api.fields import Fields
from framework.api.volume import Volume
from framework.storage.csi_translation import (
    TranslationError,
    plugin_by_in_tree_name,
    plugin_for_pv,
    plugin_for_volume,
    translate_in_tree_inline_volume_to_csi,
    translate_in_tree_pv_to_csi,
)
from framework.storage.volume import check_node_affinity
from tests.framework.storage.builders import make_pv


def inline(**source: dict) -> Volume:
    return Volume.parse(Fields({"name": "v", **source}, "Pod"))


@pytest.mark.parametrize(
    ("source", "driver", "handle"),
    [
        ({"awsElasticBlockStore": {"volumeID": "vol-1"}}, "ebs.csi.aws.com", "vol-1"),
        (
            {"awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-abc"}},
            "ebs.csi.aws.com",
            "vol-abc",
        ),
        (
            {"gcePersistentDisk": {"pdName": "disk"}},
            "pd.csi.storage.gke.io",
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk",
        ),
        ({"cinder": {"volumeID": "c1"}}, "cinder.csi.openstack.org", "c1"),
        ({"portworxVolume": {"volumeID": "p1"}}, "pxd.portworx.com", "p1"),
        (
            {"azureDisk": {"diskName": "d", "diskURI": "uri", "kind": "Managed"}},
            "disk.csi.azure.com",
            "uri",
        ),
        (
            {"azureFile": {"secretName": "azure-storage-account-acct-secret", "shareName": "s"}},
            "file.csi.azure.com",
            "#acct#s#v#ns",
        ),
        (
            {"vsphereVolume": {"volumePath": "[ds] vol.vmdk"}},
            "csi.vsphere.vmware.com",
            "[ds] vol.vmdk",
        ),
    ],
    ids=[
        "an EBS volume id is the handle",
        "an aws:// id is reduced to the volume id",
        "an inline GCE disk has no zone",
        "a Cinder volume id is the handle",
        "a Portworx volume id is the handle",
        "a managed Azure disk's URI is the handle",
        "an Azure file share's handle names account, share, volume and namespace",
        "a vSphere volume path is the handle",
    ],
)
def test_inline_volumes_translate_to_their_csi_driver(source, driver, handle):
    translated = translate_in_tree_inline_volume_to_csi(inline(**source), "ns")
    assert (translated.driver, translated.volume_handle) == (driver, handle)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            {"awsElasticBlockStore": {"volumeID": "aws://us-east-1a/bad/id"}},
            "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume "
            "(aws://us-east-1a/bad/id)",
        ),
        (
            {"azureDisk": {"diskName": "d", "diskURI": "uri"}},
            "kind(Shared) is not supported in csi migration",
        ),
    ],
    ids=["a malformed aws:// id fails", "an Azure disk of the default Shared kind fails"],
)
def test_untranslatable_inline_volumes_fail_with_upstreams_message(source, message):
    with pytest.raises(TranslationError) as raised:
        translate_in_tree_inline_volume_to_csi(inline(**source), "ns")
    assert str(raised.value) == message


def test_rbd_is_no_longer_migratable_in_v1_36():
    assert plugin_for_volume(inline(rbd={"monitors": ["m"], "image": "i"})) is None
    assert plugin_by_in_tree_name("kubernetes.io/rbd") is None
    assert plugin_by_in_tree_name("kubernetes.io/aws-ebs").csi_driver == "ebs.csi.aws.com"


@pytest.mark.parametrize(
    ("labels", "handle"),
    [
        ({}, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
        (
            {"topology.kubernetes.io/zone": "us-east1-b"},
            "projects/UNSPECIFIED/zones/us-east1-b/disks/d",
        ),
        (
            {"failure-domain.beta.kubernetes.io/zone": "us-east1-b__us-east1-c"},
            "projects/UNSPECIFIED/regions/us-east1/disks/d",
        ),
    ],
    ids=["no zone label", "a zonal disk", "a regional disk over two zones"],
)
def test_gce_pd_volumes_take_their_zone_from_the_labels(labels, handle):
    pv = make_pv("pv", labels=labels, source={"gcePersistentDisk": {"pdName": "d"}})
    assert translate_in_tree_pv_to_csi(pv).csi.volume_handle == handle


def test_zones_of_different_regions_cannot_translate():
    pv = make_pv(
        "pv",
        labels={"topology.kubernetes.io/zone": "us-east1-b__europe-west1-c"},
        source={"gcePersistentDisk": {"pdName": "d"}},
    )
    with pytest.raises(TranslationError) as raised:
        translate_in_tree_pv_to_csi(pv)
    assert str(raised.value) == (
        "failed to get region from zones: multiple or no regions gotten from zones, "
        "got: map[europe-west1:{} us-east1:{}]"
    )


def test_a_pv_zone_label_becomes_node_affinity_on_the_drivers_topology_key():
    pv = make_pv(
        "pv",
        labels={"failure-domain.beta.kubernetes.io/zone": "us-east-1"},
        source={"gcePersistentDisk": {"pdName": "d"}},
    )
    affinity = translate_in_tree_pv_to_csi(pv).node_affinity
    assert check_node_affinity(affinity, {"topology.gke.io/zone": "us-east-1"}) is None
    assert check_node_affinity(affinity, {"topology.gke.io/zone": "us-east-2"}) is not None
    assert pv.spec.node_affinity is None


def test_node_affinity_zones_are_moved_to_the_drivers_key():
    pv = make_pv(
        "pv",
        node_affinity={
            "topology.kubernetes.io/zone": ["z1"],
            "failure-domain.beta.kubernetes.io/region": ["r1"],
        },
        source={"awsElasticBlockStore": {"volumeID": "vol-1"}},
    )
    affinity = translate_in_tree_pv_to_csi(pv).node_affinity
    keys = [r.key for r in affinity.node_selector_terms[0].match_expressions]
    assert keys == ["topology.ebs.csi.aws.com/zone", "failure-domain.beta.kubernetes.io/region"]


def test_a_csi_pv_is_not_an_in_tree_volume():
    assert (
        plugin_for_pv(make_pv("pv", source={"csi": {"driver": "d", "volumeHandle": "h"}})) is None
    )
