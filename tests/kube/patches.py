"""JSON merge patch, strategic merge patch and JSON patch, as the API server applies them.

Strategic merge knows the merge keys of the lists clients patch (conditions by type, containers
by name, ...) and the ``$patch`` / ``$setElementOrder`` / ``$deleteFromPrimitiveList``
directives; every other list is replaced, as upstream does for lists without a strategy.
"""

from __future__ import annotations

import copy

from tests.kube.resources import ApiError, bad_request

MERGE_KEYS = {
    "conditions": "type",
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "ownerReferences": "uid",
    "taints": "key",
    "addresses": "type",
    "containerStatuses": "name",
    "initContainerStatuses": "name",
    "imagePullSecrets": "name",
    "podIPs": "ip",
    "resourceClaims": "name",
    "reservedFor": "uid",  # a ResourceClaim's status (Unreserve deletes by it)
    "drivers": "name",
}
MERGED_PRIMITIVE_LISTS = {"finalizers"}


def merge_patch(target: object, patch: object) -> object:
    """RFC 7386: objects merge, null deletes, everything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target: object, patch: object) -> object:
    """Merge like merge_patch, but lists with a merge key merge item by item."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return {}
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith(("$setElementOrder/", "$retainKeys")):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            name = key.split("/", 1)[1]
            result[name] = [item for item in result.get(name) or [] if item not in value]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and key in MERGE_KEYS:
            result[key] = _merge_list(result.get(key) or [], value, MERGE_KEYS[key])
        elif isinstance(value, list) and key in MERGED_PRIMITIVE_LISTS:
            existing = list(result.get(key) or [])
            merged = existing + [item for item in value if item not in existing]
            result[key] = _in_upstream_order(
                [item for item in merged if item in value],
                [item for item in merged if item not in value],
                existing,
                lambda item: item,
            )
        else:
            result[key] = strategic_merge_patch(result.get(key), value)
    return result


def _merge_list(current: list, patch: list, merge_key: str) -> list:
    if any(isinstance(item, dict) and item.get("$patch") == "replace" for item in patch):
        return [copy.deepcopy(i) for i in patch if not (isinstance(i, dict) and "$patch" in i)]
    original = [copy.deepcopy(item) for item in current]
    items = []
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            raise bad_request(f"map: {item} does not contain declared merge key: {merge_key}")
        if item.get("$patch") == "delete":
            original = [old for old in original if old.get(merge_key) != item[merge_key]]
        else:
            items.append(item)
    merged = list(original)
    for item in items:
        positions = [i for i, old in enumerate(merged) if old.get(merge_key) == item[merge_key]]
        if positions:
            merged[positions[0]] = strategic_merge_patch(merged[positions[0]], item)
        else:
            merged.append(strategic_merge_patch({}, item))
    patched = [item[merge_key] for item in items]
    return _in_upstream_order(
        sorted(
            (m for m in merged if m.get(merge_key) in patched),
            key=lambda m: patched.index(m.get(merge_key)),
        ),
        [m for m in merged if m.get(merge_key) not in patched],
        [old.get(merge_key) for old in original],
        lambda m: m.get(merge_key),
    )


def _in_upstream_order(patched: list, server_only: list, server_order: list, key) -> list:
    """Upstream's mergeSortedSlice: the patch's items in the patch's order, each object's own
    items slotted in before the first patched item that comes after them in the object; a
    patched item the object did not have goes before the object's own items, so a new
    condition lands first."""
    result = []
    i = j = 0
    while i < len(server_only) or j < len(patched):
        if j >= len(patched):
            result.append(server_only[i])
            i += 1
        elif i >= len(server_only):
            result.append(patched[j])
            j += 1
        else:
            left, right = key(server_only[i]), key(patched[j])
            if right in server_order and server_order.index(left) < server_order.index(right):
                result.append(server_only[i])
                i += 1
            else:
                result.append(patched[j])
                j += 1
    return result


def json_patch(target: dict, operations: list) -> dict:
    """RFC 6902 add / remove / replace / test (what clients send for a list body)."""
    document = copy.deepcopy(target)
    for operation in operations:
        op, path = operation.get("op"), operation.get("path", "")
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]
        if not parts:
            raise bad_request(f"the server rejected our request: empty path in {operation}")
        parent = _walk(document, parts[:-1])
        last = parts[-1]
        if op == "test":
            if _get(parent, last) != operation.get("value"):
                raise ApiError(422, "Invalid", f"testing value {path} failed")
        elif op == "remove":
            _remove(parent, last)
        elif op in ("add", "replace"):
            _set(parent, last, copy.deepcopy(operation.get("value")), insert=op == "add")
        else:
            raise bad_request(f"Unexpected kind: {op}")
    return document


def _walk(document: object, parts: list[str]) -> object:
    for part in parts:
        document = _get(document, part)
    return document


def _get(container: object, key: str) -> object:
    try:
        return container[int(key)] if isinstance(container, list) else container[key]
    except (KeyError, IndexError, ValueError, TypeError):
        raise ApiError(422, "Invalid", f"doc is missing path: {key}") from None


def _remove(container: object, key: str) -> None:
    _get(container, key)
    if isinstance(container, list):
        del container[int(key)]
    else:
        del container[key]


def _set(container: object, key: str, value: object, insert: bool) -> None:
    if isinstance(container, list):
        if key == "-":
            container.append(value)
        elif insert:
            container.insert(int(key), value)
        else:
            container[int(key)] = value
    elif isinstance(container, dict):
        if not insert:
            _get(container, key)
        container[key] = value
    else:
        raise ApiError(422, "Invalid", f"doc is missing path: {key}")
