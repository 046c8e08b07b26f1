"""Resource names and the rules on them that the pod model needs while it is read.

Kept apart from ``resources`` (which reads pods) so that ``pod`` can default pod-level
resources as the API server does without the two modules importing each other.
"""

from __future__ import annotations

RESOURCE_CPU = "cpu"
RESOURCE_MEMORY = "memory"
RESOURCE_HUGEPAGES_PREFIX = "hugepages-"
RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"

SUPPORTED_POD_LEVEL_RESOURCES = frozenset({RESOURCE_CPU, RESOURCE_MEMORY})


def is_supported_pod_level_resource(name: str) -> bool:
    return name in SUPPORTED_POD_LEVEL_RESOURCES or name.startswith(RESOURCE_HUGEPAGES_PREFIX)


def is_prefixed_native_resource(name: str) -> bool:
    """In the ``*kubernetes.io/`` namespace."""
    return RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_native_resource(name: str) -> bool:
    """Unprefixed names are implicitly in ``kubernetes.io/``."""
    return "/" not in name or is_prefixed_native_resource(name)


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith(RESOURCE_HUGEPAGES_PREFIX)


def is_overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepage_resource_name(name)
