"""The order in which nodes are handed to a scheduling cycle: zones interleaved.

With node sampling (percentageOfNodesToScore) the scheduler stops after enough feasible nodes,
so the first nodes of the list matter. Upstream lists one node from each zone in turn, so a
sample spreads over zones instead of filling up with the first zone's nodes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework.api.node import Node

LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"


class NodeTreeError(LookupError):
    """A node the tree was asked to remove is not in it."""


class ZonesExhaustedError(NodeTreeError):
    """The tree counts more nodes than its zones hold; ``partial`` is what could be listed."""

    def __init__(self, partial: list[str]) -> None:
        super().__init__("all zones exhausted before reaching count of nodes expected")
        self.partial = partial


def get_zone_key(node: Node) -> str:
    """The node's failure zone as ``region:\\x00:zone``, or "" when it has neither label.

    The stable topology labels win over the deprecated beta ones when present (even if empty).
    The NUL byte keeps a colon inside a region or zone name from making two keys equal.
    """
    labels = node.metadata.labels
    if not labels:
        return ""
    zone = labels.get(LABEL_TOPOLOGY_ZONE, labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, ""))
    region = labels.get(LABEL_TOPOLOGY_REGION, labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTree:
    """Node names grouped by zone, zones in the order they were first seen.

    Not thread-safe; the Cache is its only user and holds its lock around every call.
    """

    __slots__ = ("num_nodes", "tree", "zones")

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        self.tree: dict[str, list[str]] = {}
        self.zones: list[str] = []
        self.num_nodes = 0
        for node in nodes:
            self.add_node(node)

    def add_node(self, node: Node) -> None:
        """Appends the node to its zone; a name already in that zone is ignored."""
        zone = get_zone_key(node)
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = [node.name]
        elif node.name in names:
            return
        else:
            names.append(node.name)
        self.num_nodes += 1

    def remove_node(self, node: Node) -> None:
        """Removes the node from the zone its labels point at; raises if it is not there."""
        zone = get_zone_key(node)
        names = self.tree.get(zone)
        if names is None or node.name not in names:
            raise NodeTreeError(
                f"node {_go_quote(node.name)} in group {_go_quote(zone)} was not found"
            )
        names.remove(node.name)
        if not names:
            self._remove_zone(zone)
        self.num_nodes -= 1

    def update_node(self, old: Node | None, new: Node) -> None:
        """Moves the node when its zone labels changed (a node's name never changes)."""
        old_zone = get_zone_key(old) if old is not None else ""
        if old_zone == get_zone_key(new):
            return
        if old is not None:
            # Upstream ignores a missing old entry here: the node may never have been added.
            with contextlib.suppress(NodeTreeError):
                self.remove_node(old)
        self.add_node(new)

    def list(self) -> list[str]:
        """All node names, round robin over zones: the first of each zone, then the second...

        Raises ZonesExhaustedError when the zones run out before ``num_nodes`` names were
        listed, which only a corrupt count can cause.
        """
        names: list[str] = []
        if not self.zones:
            return names
        exhausted = 0
        index = 0
        while len(names) < self.num_nodes:
            if exhausted >= len(self.zones):
                raise ZonesExhaustedError(names)
            for zone in self.zones:
                zone_names = self.tree[zone]
                if index < len(zone_names):
                    names.append(zone_names[index])
                elif index == len(zone_names):
                    exhausted += 1
            index += 1
        return names

    def _remove_zone(self, zone: str) -> None:
        del self.tree[zone]
        self.zones.remove(zone)


def _go_quote(text: str) -> str:
    """Go's %q, so the NUL inside a zone key shows as \\x00 in messages as upstream."""
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
