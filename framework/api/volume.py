"""Pod volumes: the sources scheduling plugins look at, plus the raw source for the rest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from framework.api.fields import Fields

# Keys of v1.VolumeSource; a volume has exactly one of them.
_SOURCE_KEYS = (
    "persistentVolumeClaim",
    "ephemeral",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "iscsi",
    "rbd",
    "csi",
    "azureDisk",
    "azureFile",
    "cinder",
    "cephfs",
    "fc",
    "flexVolume",
    "flocker",
    "glusterfs",
    "hostPath",
    "emptyDir",
    "secret",
    "configMap",
    "downwardAPI",
    "projected",
    "nfs",
    "gitRepo",
    "image",
    "photonPersistentDisk",
    "portworxVolume",
    "quobyte",
    "scaleIO",
    "storageos",
    "vsphereVolume",
)


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaimVolumeSource:
    claim_name: str
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class GCEPersistentDiskVolumeSource:
    pd_name: str
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class AWSElasticBlockStoreVolumeSource:
    volume_id: str
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class ISCSIVolumeSource:
    target_portal: str
    iqn: str
    lun: int = 0
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class RBDVolumeSource:
    monitors: tuple[str, ...]
    image: str
    pool: str = "rbd"
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class CSIVolumeSource:
    driver: str
    read_only: bool = False


@dataclass(slots=True)
class Volume:
    """A named volume; ``source_kind`` is the manifest key of its source (``csi``, ...)."""

    name: str
    source_kind: str = ""
    source: dict[str, Any] = field(default_factory=dict)
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    ephemeral: dict[str, Any] | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    csi: CSIVolumeSource | None = None

    @classmethod
    def parse(cls, f: Fields) -> Volume:
        volume = cls(name=f.string("name"))
        for key in _SOURCE_KEYS:
            if f.has(key):
                volume.source_kind = key
                volume.source = dict(f.mapping(key).data)
                break
        volume._read_known_sources(f)
        return volume

    def _read_known_sources(self, f: Fields) -> None:
        if (pvc := f.optional_mapping("persistentVolumeClaim")) is not None:
            self.persistent_volume_claim = PersistentVolumeClaimVolumeSource(
                pvc.string("claimName"), pvc.boolean("readOnly")
            )
        if (ephemeral := f.optional_mapping("ephemeral")) is not None:
            self.ephemeral = dict(ephemeral.data)
        if (gce := f.optional_mapping("gcePersistentDisk")) is not None:
            self.gce_persistent_disk = GCEPersistentDiskVolumeSource(
                gce.string("pdName"), gce.boolean("readOnly")
            )
        if (aws := f.optional_mapping("awsElasticBlockStore")) is not None:
            self.aws_elastic_block_store = AWSElasticBlockStoreVolumeSource(
                aws.string("volumeID"), aws.boolean("readOnly")
            )
        if (iscsi := f.optional_mapping("iscsi")) is not None:
            self.iscsi = ISCSIVolumeSource(
                iscsi.string("targetPortal"),
                iscsi.string("iqn"),
                iscsi.integer("lun"),
                iscsi.boolean("readOnly"),
            )
        if (rbd := f.optional_mapping("rbd")) is not None:
            self.rbd = RBDVolumeSource(
                tuple(rbd.string_list("monitors")),
                rbd.string("image"),
                rbd.string("pool", "rbd"),
                rbd.boolean("readOnly"),
            )
        if (csi := f.optional_mapping("csi")) is not None:
            self.csi = CSIVolumeSource(csi.string("driver"), csi.boolean("readOnly"))
