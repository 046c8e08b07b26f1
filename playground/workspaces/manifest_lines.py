"""Where a field of a manifest is in the text it came from, so a problem can name its line.

Errors name a field path (``spec.containers[0].resources.requests.cpu``); the line is where
that path (or its deepest part the text has) starts in the YAML or JSON a person typed.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\[([^\]]*)\]")


def field_line(node: yaml.Node | None, field: str) -> int | None:
    """The 1-based line where ``field`` (or its deepest existing parent) starts under ``node``
    (a composed document or list item); None without a field or a node."""
    if not field or node is None:
        return None
    line = None
    for key, index, bracket_key in _PATH_PART.findall(field):
        found = _child(node, key or bracket_key, index)
        if found is None:
            break
        node, line = found
    return line


def composed(text: str) -> yaml.Node | None:
    """The text's one document as YAML nodes (with their lines); None if it cannot be read."""
    try:
        return yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError:
        return None


def item_node(document: yaml.Node | None, index: int) -> yaml.Node | None:
    """The node of item ``index`` (0-based) of a list document: a list, or ``items`` of a
    ``kind: …List`` mapping."""
    if isinstance(document, yaml.MappingNode):
        document = next((v for k, v in document.value if k.value == "items"), None)
    if isinstance(document, yaml.SequenceNode) and index < len(document.value):
        return document.value[index]
    return None


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _child(node: Any, key: str, index: str) -> tuple[Any, int] | None:
    """The child node and the line it starts on (a mapping entry's line is its key's)."""
    if index and isinstance(node, yaml.SequenceNode):
        position = int(index)
        if position < len(node.value):
            item = node.value[position]
            return item, item.start_mark.line + 1
        return None
    if key and isinstance(node, yaml.MappingNode):
        for name, value in node.value:
            if name.value == key:
                return value, name.start_mark.line + 1
    return None
