"""The RuntimeClass admission plugin, as kube-apiserver runs it on every pod it creates.

Mutating (before validation): a pod naming a RuntimeClass that does not exist is refused; the
class's ``overhead.podFixed`` becomes the pod's ``spec.overhead`` (a different one given is
refused), and its ``scheduling`` joins the pod's node selector (a conflicting value refused)
and tolerations (merged as upstream's ``MergeTolerations``: only the wider of two kept).
Validating (after validation): the pod's overhead must be its class's, and a pod without a
class with overhead may not set one. Refusals are upstream's Forbidden texts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from framework.api.errors import ObjectError
from framework.api.quantity import Quantity, QuantityError
from framework.api.runtime_class import RuntimeClass

RuntimeClasses = Callable[[str], RuntimeClass | None]
"""The RuntimeClass of a name, or None: the plugin's lister."""

OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
OVERHEAD_WITHOUT_CLASS = (
    "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
)


def admit_pod(manifest: dict[str, Any], owner: str, classes: RuntimeClasses) -> None:
    """The mutating step, in place on a new pod's manifest (``Admit``); ObjectError refuses."""
    spec = manifest.setdefault("spec", {})
    runtime_class = _runtime_class(spec, owner, classes)
    if runtime_class is None:
        return
    pod_fixed = _pod_fixed(runtime_class)
    if pod_fixed is not None:
        if spec.get("overhead") and not _same_resources(spec["overhead"], pod_fixed):
            raise ObjectError(owner, "", OVERHEAD_MISMATCH)
        spec["overhead"] = dict(pod_fixed)
    scheduling = runtime_class.manifest.get("scheduling")
    if scheduling:
        _set_scheduling(spec, scheduling, owner)


def validate_pod(manifest: Mapping[str, Any], owner: str, classes: RuntimeClasses) -> None:
    """The validating step (``Validate``) on the admitted pod; ObjectError refuses."""
    spec = manifest.get("spec") or {}
    runtime_class = _runtime_class(spec, owner, classes)
    pod_fixed = _pod_fixed(runtime_class) if runtime_class is not None else None
    if pod_fixed is not None:
        if not _same_resources(spec.get("overhead"), pod_fixed):
            raise ObjectError(owner, "", OVERHEAD_MISMATCH)
    elif spec.get("overhead") is not None:
        raise ObjectError(owner, "", OVERHEAD_WITHOUT_CLASS)


def _runtime_class(spec: Mapping[str, Any], owner: str, classes: RuntimeClasses) -> Any:
    name = spec.get("runtimeClassName")
    if name is None:
        return None
    found = classes(name)
    if found is None:
        raise ObjectError(owner, "", f'pod rejected: RuntimeClass "{name}" not found')
    return found


def _pod_fixed(runtime_class: RuntimeClass) -> Mapping[str, Any] | None:
    overhead = runtime_class.manifest.get("overhead")
    return overhead.get("podFixed") if isinstance(overhead, Mapping) else None


def _same_resources(given: Any, wanted: Mapping[str, Any]) -> bool:
    """Semantic equality of two resource lists: the same names, equal quantities (``1`` and
    ``1000m`` are one), nil and empty alike."""
    given = given or {}
    if not isinstance(given, Mapping) or set(given) != set(wanted):
        return False
    try:
        return all(Quantity.parse(str(given[k])) == Quantity.parse(str(wanted[k])) for k in wanted)
    except QuantityError:
        return False  # validation names the quantity


def _set_scheduling(spec: dict[str, Any], scheduling: Mapping[str, Any], owner: str) -> None:
    selector = dict(spec.get("nodeSelector") or {})
    for key, value in (scheduling.get("nodeSelector") or {}).items():
        if key in selector and selector[key] != value:
            raise ObjectError(
                owner,
                "",
                f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                f"pod.spec.nodeSelector[{key}] = {selector[key]}",
            )
        selector[key] = value
    if selector:
        spec["nodeSelector"] = selector
    merged = merge_tolerations(spec.get("tolerations") or [], scheduling.get("tolerations") or [])
    if merged:
        spec["tolerations"] = merged


def merge_tolerations(first: list[dict], second: list[dict]) -> list[dict]:
    """Both lists in one; a toleration another one covers is dropped (the first of equals
    kept), as upstream's ``MergeTolerations``."""
    every = [*first, *second]
    merged: list[dict] = []
    for index, toleration in enumerate(every):
        if any(_is_superset(kept, toleration) for kept in merged):
            continue
        if any(
            other != toleration and _is_superset(other, toleration) for other in every[index + 1 :]
        ):
            continue
        merged.append(toleration)
    return merged


def _is_superset(wider: Mapping[str, Any], toleration: Mapping[str, Any]) -> bool:
    """Whether ``wider`` tolerates everything ``toleration`` does."""
    if wider == toleration:
        return True
    key, wider_key = toleration.get("key", ""), wider.get("key", "")
    operator = wider.get("operator", "")
    if key != wider_key and (wider_key != "" or operator != "Exists"):
        return False
    effect = wider.get("effect", "")
    if toleration.get("effect", "") != effect and effect != "":
        return False
    if effect == "NoExecute" and wider.get("tolerationSeconds") is not None:
        seconds = toleration.get("tolerationSeconds")
        if seconds is None or seconds > wider["tolerationSeconds"]:
            return False
    if operator in ("Equal", ""):
        return toleration.get("operator", "") == "Equal" and toleration.get(
            "value", ""
        ) == wider.get("value", "")
    return operator == "Exists"
