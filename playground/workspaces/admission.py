"""What the API server checks on an object's identity before storing it, beyond parsing.

The playground stores objects as a cluster would: names and namespaces must be what an API
server could store. Admission plugins (Priority, NamespaceLifecycle) are the engine's,
``framework.admission``, shared with ``simulate``.
"""

from __future__ import annotations

from collections.abc import Callable

from framework.api.errors import ObjectError
from framework.api.field_errors import invalid
from framework.api.meta import KubeObject
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain


def validate_names(obj: KubeObject) -> None:
    """Raises ObjectError when the name or namespace could not be stored by an API server."""
    check = is_dns1123_label if obj.kind == "Namespace" else is_dns1123_subdomain
    _check_name(obj, "metadata.name", obj.name, check)
    if obj.namespace:
        _check_name(obj, "metadata.namespace", obj.namespace, is_dns1123_label)


def _check_name(obj: KubeObject, field: str, value: str, check: Callable[[str], list[str]]) -> None:
    problems = check(value)
    if problems:
        raise ObjectError(obj.describe(), field, invalid(field, value, "; ".join(problems)).body())
