"""Whether an in-tree plugin's volumes count as CSI volumes on a node."""

from __future__ import annotations

from typing import Any

from framework.storage.csi_translation import CSI_MIGRATION_ON


def is_csi_migration_on(csi_node: Any | None, plugin_name: str) -> bool:
    """Migration is on for good for the listed plugins, on nodes that have a CSINode."""
    if csi_node is None or not plugin_name:
        return False
    return plugin_name in CSI_MIGRATION_ON
