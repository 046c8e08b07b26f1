"""The kinds the test API server serves, and the Status errors it answers with.

Messages, reasons and codes are those of k8s.io/apimachinery/pkg/api/errors and the apiserver's
handlers, so a client (and the product's error messages built on them) sees what a real
kube-apiserver v1.36 sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPTIMISTIC_LOCK_MESSAGE = (
    "the object has been modified; please apply your changes to the latest version and try again"
)
ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@dataclass(frozen=True)
class Resource:
    """One REST resource: where it lives, what it is called, and how it behaves."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    subresources: tuple[str, ...] = ()
    field_labels: tuple[str, ...] = ()
    store: str = ""
    """The storage key; two resources with the same key share objects (events)."""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """The GroupResource string upstream errors print: pods, leases.coordination.k8s.io."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def storage_key(self) -> str:
        return self.store or self.qualified

    @property
    def has_status(self) -> bool:
        return "status" in self.subresources


POD_FIELDS = ("spec.nodeName", "spec.schedulerName", "status.phase", "spec.restartPolicy")
RESOURCE_SLICE_FIELDS = ("spec.nodeName", "spec.driver")

RESOURCES: tuple[Resource, ...] = (
    Resource("", "v1", "nodes", "Node", False, ("status",), ("spec.unschedulable",)),
    Resource("", "v1", "pods", "Pod", True, ("status", "binding"), POD_FIELDS),
    Resource("", "v1", "bindings", "Binding", True),
    Resource("", "v1", "namespaces", "Namespace", False, ("status",), ("status.phase",)),
    Resource("", "v1", "persistentvolumes", "PersistentVolume", False, ("status",)),
    Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, ("status",)),
    Resource("", "v1", "services", "Service", True, ("status",)),
    Resource("", "v1", "replicationcontrollers", "ReplicationController", True, ("status",)),
    Resource("", "v1", "events", "Event", True, (), ("involvedObject.name", "reason"), "events"),
    Resource("apps", "v1", "replicasets", "ReplicaSet", True, ("status",)),
    Resource("apps", "v1", "statefulsets", "StatefulSet", True, ("status",)),
    Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", False),
    Resource("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    Resource("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    Resource("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", True),
    Resource("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", False, ("status",)),
    Resource("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False),
    Resource(
        "resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False, (), RESOURCE_SLICE_FIELDS
    ),
    Resource("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True, ("status",)),
    Resource("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, ("status",)),
    Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
    Resource("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", False),
    Resource("coordination.k8s.io", "v1", "leases", "Lease", True),
    Resource("events.k8s.io", "v1", "events", "Event", True, (), ("regarding.name",), "events"),
)
GROUP_VERSIONS: dict[str, str] = {
    **{r.group: r.version for r in RESOURCES},
    "authorization.k8s.io": "v1",
}


def find_resource(group: str, version: str, plural: str) -> Resource | None:
    for resource in RESOURCES:
        if (resource.group, resource.version, resource.plural) == (group, version, plural):
            return resource
    return None


def resource_for_kind(kind: str, api_version: str | None = None) -> Resource:
    """The resource of a kind; ``Event`` is core/v1 unless api_version says events.k8s.io/v1."""
    for resource in RESOURCES:
        if resource.kind == kind and (api_version is None or resource.api_version == api_version):
            return resource
    raise KeyError(f"the test API server does not serve kind {kind!r} ({api_version})")


@dataclass
class ApiError(Exception):
    """An error the server answers with, as a metav1.Status."""

    code: int
    reason: str
    message: str
    details: dict | None = field(default=None)

    def status(self) -> dict:
        body = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body


def _details(resource: Resource | None, name: str) -> dict:
    details: dict = {}
    if name:
        details["name"] = name
    if resource is not None and resource.group:
        details["group"] = resource.group
    if resource is not None:
        details["kind"] = resource.plural
    return details


def not_found(resource: Resource, name: str) -> ApiError:
    return ApiError(
        404, "NotFound", f'{resource.qualified} "{name}" not found', _details(resource, name)
    )


def already_exists(resource: Resource, name: str) -> ApiError:
    return ApiError(
        409,
        "AlreadyExists",
        f'{resource.qualified} "{name}" already exists',
        _details(resource, name),
    )


def conflict(qualified: str, resource: Resource | None, name: str, why: str) -> ApiError:
    """errors.NewConflict; ``qualified`` may be a subresource such as ``pods/binding``."""
    details = _details(resource, name)
    if resource is not None:
        details["kind"] = qualified.split(".")[0]
    return ApiError(
        409, "Conflict", f'Operation cannot be fulfilled on {qualified} "{name}": {why}', details
    )


def forbidden(resource: Resource | None, plural: str, group: str, name: str, why: str) -> ApiError:
    """errors.NewForbidden for a GroupResource and an authorizer's message."""
    qualified = f"{plural}.{group}" if group else plural
    subject = f'{qualified} "{name}"' if name else qualified
    details = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = plural
    return ApiError(403, "Forbidden", f"{subject} is forbidden: {why}", details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def unauthorized() -> ApiError:
    """What the authentication filter answers for a missing, wrong or expired credential."""
    return ApiError(401, "Unauthorized", "Unauthorized")


def expired(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def page_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})


def method_not_allowed(verb: str, resource: Resource) -> ApiError:
    return ApiError(
        405,
        "MethodNotAllowed",
        f'{verb} is not supported on resources of kind "{resource.qualified}"',
        {"kind": resource.plural},
    )


@dataclass(frozen=True)
class Attributes:
    """What the authorizer sees of a request (upstream's authorizer.Attributes)."""

    verb: str
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""

    def forbidden(self, user: str) -> ApiError:
        target = f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        where = f'in the namespace "{self.namespace}"' if self.namespace else "at the cluster scope"
        why = (
            f'User "{user}" cannot {self.verb} resource "{target}" in API group "{self.group}" '
            f"{where}"
        )
        return forbidden(None, self.resource, self.group, self.name, why)
