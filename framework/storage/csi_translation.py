"""In-tree volume plugins migrated to CSI drivers (``csi-translation-lib`` as of v1.36).

The scheduler counts and places in-tree volumes (GCE PD, AWS EBS, ...) as the CSI volumes they
have become: same driver name, a volume handle derived from the in-tree source, and (for some)
the PV's zone topology rewritten to the driver's topology key. RBD left the library before
v1.36, so it is not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from framework.api.core import PersistentVolume
from framework.api.node_affinity import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from framework.api.volume import Volume

LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_MULTI_ZONE_DELIMITER = "__"


@dataclass(frozen=True, slots=True)
class InTreePlugin:
    """An in-tree plugin, the CSI driver replacing it, and the manifest key of its source."""

    in_tree_name: str
    csi_driver: str
    source_key: str
    topology_key: str = ""
    """The driver's zone key a PV's zone labels translate to; "" when not translated."""


GCE_PD = InTreePlugin(
    "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "gcePersistentDisk", "topology.gke.io/zone"
)
AWS_EBS = InTreePlugin(
    "kubernetes.io/aws-ebs",
    "ebs.csi.aws.com",
    "awsElasticBlockStore",
    "topology.ebs.csi.aws.com/zone",
)
CINDER = InTreePlugin(
    "kubernetes.io/cinder",
    "cinder.csi.openstack.org",
    "cinder",
    "topology.cinder.csi.openstack.org/zone",
)
AZURE_DISK = InTreePlugin("kubernetes.io/azure-disk", "disk.csi.azure.com", "azureDisk")
AZURE_FILE = InTreePlugin("kubernetes.io/azure-file", "file.csi.azure.com", "azureFile")
VSPHERE = InTreePlugin("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", "vsphereVolume")
PORTWORX = InTreePlugin("kubernetes.io/portworx-volume", "pxd.portworx.com", "portworxVolume")

IN_TREE_PLUGINS = (GCE_PD, AWS_EBS, CINDER, AZURE_DISK, AZURE_FILE, VSPHERE, PORTWORX)
_BY_SOURCE = {plugin.source_key: plugin for plugin in IN_TREE_PLUGINS}
_BY_IN_TREE_NAME = {plugin.in_tree_name: plugin for plugin in IN_TREE_PLUGINS}

# The in-tree plugins whose CSI migration is on for good (the scheduler's own list).
CSI_MIGRATION_ON = frozenset(
    plugin.in_tree_name for plugin in (AWS_EBS, GCE_PD, AZURE_DISK, CINDER, PORTWORX)
)


class TranslationError(ValueError):
    """An in-tree source that cannot be expressed as a CSI volume."""


@dataclass(frozen=True, slots=True)
class CSISource:
    driver: str
    volume_handle: str


@dataclass(frozen=True, slots=True)
class TranslatedPV:
    """What the scheduler reads from a PV translated to CSI."""

    csi: CSISource
    node_affinity: NodeSelector | None


def plugin_for_pv(pv: PersistentVolume) -> InTreePlugin | None:
    """The migratable in-tree plugin serving the PV, if any (``IsPVMigratable``)."""
    return _BY_SOURCE.get(pv.spec.source_kind)


def plugin_for_volume(volume: Volume) -> InTreePlugin | None:
    """The migratable in-tree plugin serving an inline volume (``IsInlineMigratable``)."""
    return _BY_SOURCE.get(volume.source_kind)


def plugin_by_in_tree_name(name: str) -> InTreePlugin | None:
    """``IsMigratableIntreePluginByName`` / ``GetCSINameFromInTreeName``."""
    return _BY_IN_TREE_NAME.get(name)


# -- translation -----------------------------------------------------------------------------


def translate_in_tree_inline_volume_to_csi(volume: Volume, pod_namespace: str) -> CSISource:
    """The CSI driver and volume handle an inline in-tree volume becomes."""
    plugin = plugin_for_volume(volume)
    if plugin is None:
        raise TranslationError(
            f'could not find in-tree plugin translation logic for "{volume.name}"'
        )
    source = volume.source
    if plugin is AZURE_FILE:
        account = _storage_account_name(source.get("secretName", ""))
        namespace = pod_namespace or "default"
        share = source.get("shareName", "")
        return CSISource(plugin.csi_driver, f"#{account}#{share}#{volume.name}#{namespace}")
    if plugin is VSPHERE:
        return CSISource(plugin.csi_driver, source.get("volumePath", ""))
    return CSISource(plugin.csi_driver, _volume_handle(plugin, source, labels={}, inline=True))


def translate_in_tree_pv_to_csi(pv: PersistentVolume) -> TranslatedPV:
    """The CSI view of an in-tree PV: driver, handle and node affinity after translation."""
    plugin = plugin_for_pv(pv)
    if plugin is None:
        raise TranslationError(f'could not find in-tree plugin translation logic for "{pv.name}"')
    handle = _volume_handle(plugin, pv.spec.source, labels=pv.labels, inline=False)
    node_affinity = pv.spec.node_affinity
    if plugin.topology_key:
        node_affinity = _translate_topology(node_affinity, pv.labels, plugin.topology_key)
    return TranslatedPV(CSISource(plugin.csi_driver, handle), node_affinity)


def _volume_handle(
    plugin: InTreePlugin, source: dict[str, Any], labels: dict[str, str], inline: bool
) -> str:
    if plugin is AWS_EBS:
        return _ebs_volume_id(source.get("volumeID", ""))
    if plugin is GCE_PD:
        return _gce_volume_id(source.get("pdName", ""), labels, inline)
    if plugin is AZURE_DISK:
        # The API server defaults an Azure disk's kind to "Shared", which CSI cannot serve.
        kind = source.get("kind") or "Shared"
        if kind.lower() != "managed":
            raise TranslationError(f"kind({kind}) is not supported in csi migration")
        return source.get("diskURI", "")
    if plugin in (CINDER, PORTWORX):
        return source.get("volumeID", "")
    raise TranslationError(
        f"could not find in-tree plugin translation logic for {plugin.in_tree_name}"
    )


_AWS_VOLUME_ID = re.compile(r"^vol-[^/]*$")


def _ebs_volume_id(kubernetes_id: str) -> str:
    """``aws://<zone>/vol-...`` becomes ``vol-...``; any other id is used as it is."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    try:
        url = urlsplit(kubernetes_id)
    except ValueError as err:
        raise TranslationError(
            f"failed to translate Kubernetes ID to EBS Volume ID Invalid disk name "
            f"({kubernetes_id}): {err}"
        ) from err
    aws_id = url.path.strip("/")
    if not _AWS_VOLUME_ID.match(aws_id):
        raise TranslationError(
            "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume "
            f"({kubernetes_id})"
        )
    return aws_id


_UNSPECIFIED = "UNSPECIFIED"


def _gce_volume_id(pd_name: str, labels: dict[str, str], inline: bool) -> str:
    if inline:
        return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pd_name}"
    zones_label = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE) or labels.get(LABEL_TOPOLOGY_ZONE, "")
    zones = zones_label.split(LABEL_MULTI_ZONE_DELIMITER)
    if len(zones) == 1 and zones[0]:
        return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{pd_name}"
    if len(zones) > 1:
        region = _gce_region_from_zones(zones)
        return f"projects/{_UNSPECIFIED}/regions/{region}/disks/{pd_name}"
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pd_name}"


def _gce_region_from_zones(zones: list[str]) -> str:
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(
                "failed to get region from zones: zone in unexpected format, expected: "
                f"{{locale}}-{{region}}-{{zone}}, got: {zone}"
            )
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(
            f"failed to get region from zones: multiple or no regions gotten from zones, "
            f"got: map[{' '.join(f'{region}:{{}}' for region in sorted(regions))}]"
        )
    return regions.pop()


_ACCOUNT_SECRET = re.compile(r"azure-storage-account-(.+)-secret")


def _storage_account_name(secret_name: str) -> str:
    match = _ACCOUNT_SECRET.search(secret_name)
    return match.group(1) if match else secret_name


# -- topology --------------------------------------------------------------------------------


def _translate_topology(
    node_affinity: NodeSelector | None, labels: dict[str, str], csi_key: str
) -> NodeSelector | None:
    """The PV's zone constraint on the driver's key, and beta region labels moved to GA.

    The zone comes from the node affinity when it names one, otherwise from the PV's zone
    label. The input is never modified.
    """
    zone_label, region_label = _topology_labels(node_affinity, labels)
    if _topology_values(node_affinity, zone_label):
        node_affinity = _replace_topology(node_affinity, zone_label, csi_key)
    elif zone_label in labels:
        node_affinity = _add_topology(
            node_affinity, csi_key, labels[zone_label].split(LABEL_MULTI_ZONE_DELIMITER)
        )
    if region_label == LABEL_FAILURE_DOMAIN_BETA_REGION and _topology_values(
        node_affinity, region_label
    ):
        node_affinity = _replace_topology(node_affinity, region_label, LABEL_TOPOLOGY_REGION)
    return node_affinity


def _topology_labels(node_affinity: NodeSelector | None, labels: dict[str, str]) -> tuple[str, str]:
    """GA or beta zone and region keys, whichever the PV uses (node affinity first)."""
    ga = (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
    beta = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION)
    if _has_key(node_affinity, LABEL_TOPOLOGY_ZONE):
        return ga
    if _has_key(node_affinity, LABEL_FAILURE_DOMAIN_BETA_ZONE):
        return beta
    if LABEL_TOPOLOGY_ZONE in labels:
        return ga
    if LABEL_FAILURE_DOMAIN_BETA_ZONE in labels:
        return beta
    return ga


def _has_key(node_affinity: NodeSelector | None, key: str) -> bool:
    if node_affinity is None:
        return False
    return any(
        r.key == key for term in node_affinity.node_selector_terms for r in term.match_expressions
    )


def _topology_values(node_affinity: NodeSelector | None, key: str) -> list[str]:
    if node_affinity is None:
        return []
    values = {
        value
        for term in node_affinity.node_selector_terms
        for r in term.match_expressions
        if r.key == key
        for value in r.values
    }
    return sorted(values)


def _replace_topology(
    node_affinity: NodeSelector | None, old: str, new: str
) -> NodeSelector | None:
    if node_affinity is None or not node_affinity.node_selector_terms:
        return node_affinity
    terms = [
        NodeSelectorTerm(
            match_expressions=[
                NodeSelectorRequirement(new, r.operator, r.values) if r.key == old else r
                for r in term.match_expressions
            ],
            match_fields=list(term.match_fields),
        )
        for term in node_affinity.node_selector_terms
    ]
    return NodeSelector(terms)


def _add_topology(
    node_affinity: NodeSelector | None, key: str, zones: list[str]
) -> NodeSelector | None:
    """Every term also requires ``key In zones``; blank zones only leave things unchanged."""
    cleaned = sorted({zone.strip() for zone in zones if zone.strip()})
    if not cleaned:
        return node_affinity
    requirement = NodeSelectorRequirement(key, "In", tuple(cleaned))
    terms = list(node_affinity.node_selector_terms) if node_affinity is not None else []
    if not terms:
        terms = [NodeSelectorTerm()]
    return NodeSelector(
        [
            NodeSelectorTerm(
                match_expressions=[*term.match_expressions, requirement],
                match_fields=list(term.match_fields),
            )
            for term in terms
        ]
    )
