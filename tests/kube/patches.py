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
            result[key] = existing + [item for item in value if item not in existing]
        else:
            result[key] = strategic_merge_patch(result.get(key), value)
    return result


def _merge_list(current: list, patch: list, merge_key: str) -> list:
    if any(isinstance(item, dict) and item.get("$patch") == "replace" for item in patch):
        return [copy.deepcopy(i) for i in patch if not (isinstance(i, dict) and "$patch" in i)]
    result = [copy.deepcopy(item) for item in current]
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            raise bad_request(f"map: {item} does not contain declared merge key: {merge_key}")
        positions = [i for i, old in enumerate(result) if old.get(merge_key) == item[merge_key]]
        if item.get("$patch") == "delete":
            result = [old for old in result if old.get(merge_key) != item[merge_key]]
        elif positions:
            result[positions[0]] = strategic_merge_patch(result[positions[0]], item)
        else:
            result.append(strategic_merge_patch({}, item))
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
