"""Upstream's ``ValidatePodTemplateSpec``: the pod template of a ReplicaSet, StatefulSet or
ReplicationController is checked as a pod's spec is, with the template's path
(``spec.template.spec.containers[0].image``).

A template is validated with less than a pod gets: no pod name (so no check of the claims
its ephemeral volumes would create), no ``matchLabelKeys`` merged into its selectors (only
the pod strategy merges them), no check of images' surrounding whitespace; its labels are
reported at ``<path>.labels``, not ``<path>.metadata.labels``, as upstream reports them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden
from framework.api.validation.meta import validate_annotations, validate_labels
from framework.api.validation.pod import validate_pod_spec
from framework.api.validation.pod_annotations import (
    validate_pod_specific_annotations,
    validate_profiles_match_annotations,
)

Manifest = Mapping[str, Any]


def validate_pod_template_spec(
    template: Manifest, path: str, extra_volumes: list[Manifest] | None = None
) -> list[FieldError]:
    """Labels, annotations and the spec, as ``ValidatePodTemplateSpec`` checks them.

    ``extra_volumes`` are volumes the controller adds to every pod it creates (a
    StatefulSet's claim templates); they come first, replacing volumes of the same name.
    """
    metadata = template.get("metadata") or {}
    spec = template.get("spec") or {}
    if extra_volumes:
        names = {volume.get("name") for volume in extra_volumes}
        own = [v for v in spec.get("volumes") or [] if v.get("name") not in names]
        spec = {**spec, "volumes": [*extra_volumes, *own]}
    errors = validate_labels(metadata.get("labels") or {}, f"{path}.labels")
    annotations = metadata.get("annotations") or {}
    errors += validate_annotations(annotations, f"{path}.annotations")
    errors += validate_pod_specific_annotations(annotations, spec, f"{path}.annotations")
    errors += validate_pod_spec(spec, {}, f"{path}.spec")
    errors += validate_profiles_match_annotations(annotations, spec, f"{path}.spec", is_pod=False)
    if spec.get("ephemeralContainers"):
        where = f"{path}.spec.ephemeralContainers"
        errors.append(forbidden(where, "ephemeral containers not allowed in pod template"))
    return errors
