"""What every update is checked for (``ValidateObjectMetaAccessorUpdate``) and the helpers the
kinds' update rules share: immutable fields, and the spec diff upstream prints when it
refuses a change (a unified diff of the two values as indented JSON, three lines of
context, without file headers)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid

Manifest = Mapping[str, Any]
IMMUTABLE = "field is immutable"


def prepare_update(new: Manifest, old: Manifest) -> dict[str, Any]:
    """The new manifest as ``rest.BeforeUpdate`` hands it to validation: the stored
    generation; the stored creation and deletion timestamps when there are any (a change to
    them is ignored, not refused); uid, deletion grace period and, for an unconditional
    update, the resource version taken from the stored object when left out."""
    prepared = dict(new)
    metadata = dict(new.get("metadata") or {})
    stored = old.get("metadata") or {}
    _copy(stored, metadata, "generation")
    for key in ("creationTimestamp", "deletionTimestamp"):
        if stored.get(key):
            metadata[key] = stored[key]
    for key in ("uid", "deletionGracePeriodSeconds", "resourceVersion"):
        if metadata.get(key) is None or metadata.get(key) == "":
            _copy(stored, metadata, key)
    prepared["metadata"] = metadata
    return prepared


def _copy(source: Manifest, target: dict[str, Any], key: str) -> None:
    if source.get(key) is None:
        target.pop(key, None)
    else:
        target[key] = source[key]


def validate_object_meta_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """``ValidateObjectMetaUpdate``: a resource version, and name, namespace, uid and
    timestamps as stored (labels and annotations are checked as on create)."""
    errors: list[FieldError] = []
    if old.get("deletionTimestamp"):
        errors += _no_new_finalizers(new.get("finalizers") or [], old.get("finalizers") or [])
    if not new.get("resourceVersion") and old.get("resourceVersion"):
        detail = "must be specified for an update"
        errors.append(invalid("metadata.resourceVersion", "", detail))
    if (new.get("generation") or 0) < (old.get("generation") or 0):
        errors.append(invalid("metadata.generation", new.get("generation") or 0, _DECREMENTED))
    for key in (
        "name",
        "namespace",
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ):
        errors += validate_immutable(new.get(key), old.get(key), f"metadata.{key}")
    return errors


_DECREMENTED = "must not be decremented"


def _no_new_finalizers(new: list[str], old: list[str]) -> list[FieldError]:
    added = [f for f in new if f not in old]
    if not added:
        return []
    shown = "[]string{" + ", ".join(json.dumps(f) for f in added) + "}"
    detail = (
        "no new finalizers can be added if the object is being deleted, "
        f"found new finalizers {shown}"
    )
    return [forbidden("metadata.finalizers", detail)]


def validate_immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    """``ValidateImmutableField``: the new value, refused when it differs."""
    if semantically_equal(new, old):
        return []
    return [invalid(path, _shown(new), IMMUTABLE)]


def _shown(value: Any) -> Any:
    # A Go zero value prints as such: a missing string as "", a missing pointer as null.
    return "" if value is None else value


def semantically_equal(a: Any, b: Any) -> bool:
    """Equal as upstream's ``Semantic.DeepEqual`` sees decoded objects: a missing field, null,
    and an empty string, list or map are the same."""
    return normalized(a) == normalized(b)


def normalized(value: Any) -> Any:
    if isinstance(value, Mapping):
        kept = {k: normalized(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if not _is_empty(v)}
    if isinstance(value, list | tuple):
        return [normalized(v) for v in value]
    return value


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def spec_diff(old: Any, new: Any) -> str:
    """Upstream's ``diff.Diff(old, new)``: a unified diff of both as indented JSON."""
    before = _pretty(old).split("\n")
    after = _pretty(new).split("\n")
    lines = difflib.unified_diff(
        [line + "\n" for line in before], [line + "\n" for line in after], n=3, lineterm="\n"
    )
    return "".join(line for line in lines if not line.startswith(("--- ", "+++ ")))


def _pretty(value: Any) -> str:
    text = json.dumps(value, indent=1, ensure_ascii=False)
    # Go's encoder escapes these for HTML safety.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
