"""Test connection: the server's version and what the credentials may do.

Each permission the playground may need is asked of the server with a
SelfSubjectAccessReview, the question ``kubectl auth can-i`` asks: the mirror needs list and
watch of every kind the engine reads; the second scheduler binds pods, patches their status,
creates events, holds a Lease and writes ResourceClaims' allocations; preemption deletes pods.
The report answers each one allowed or denied, and says which of the denied ones the
connection's switches need.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kubernetes.client import (
    ApiClient,
    AuthorizationV1Api,
    V1ResourceAttributes,
    V1SelfSubjectAccessReview,
    V1SelfSubjectAccessReviewSpec,
    VersionApi,
)

from playground.clusters.problems import describe

MIRROR, SECOND_SCHEDULER, PREEMPTION = "mirror", "second scheduler", "preemption"
WORKLOAD_API = "mirror, if the cluster serves the workload API"
"""The alpha ``scheduling.k8s.io/v1alpha2`` kinds: most clusters do not serve them (and their
roles do not name them), so a denial there is no warning."""

WATCHED_KINDS = (
    ("", "nodes"),
    ("", "pods"),
    ("", "namespaces"),
    ("scheduling.k8s.io", "priorityclasses"),
    ("", "persistentvolumes"),
    ("", "persistentvolumeclaims"),
    ("storage.k8s.io", "storageclasses"),
    ("storage.k8s.io", "csinodes"),
    ("storage.k8s.io", "csidrivers"),
    ("storage.k8s.io", "csistoragecapacities"),
    ("storage.k8s.io", "volumeattachments"),
    ("resource.k8s.io", "deviceclasses"),
    ("resource.k8s.io", "resourceslices"),
    ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceclaimtemplates"),
    ("policy", "poddisruptionbudgets"),
    ("", "services"),
    ("apps", "replicasets"),
    ("apps", "statefulsets"),
    ("", "replicationcontrollers"),
    ("node.k8s.io", "runtimeclasses"),
)
"""(API group, resource) of every kind the engine reads: the mirror lists and watches them."""
WATCHED_ALPHA_KINDS = (("scheduling.k8s.io", "workloads"), ("scheduling.k8s.io", "podgroups"))
"""Kinds the mirror lists and watches while the cluster serves them (``WORKLOAD_API``)."""


@dataclass(frozen=True)
class Permission:
    """One question for the server: may I ``verb`` this resource (or its subresource)?"""

    verb: str
    group: str
    resource: str
    subresource: str = ""
    needed_for: str = MIRROR

    @property
    def label(self) -> str:
        """As kubectl names it: ``list persistentvolumes``, ``create pods/binding``,
        ``get leases.coordination.k8s.io``."""
        resource = f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        return f"{self.verb} {resource}{'.' + self.group if self.group else ''}"


PERMISSIONS: tuple[Permission, ...] = (
    *(
        Permission(verb, group, resource)
        for group, resource in WATCHED_KINDS
        for verb in ("list", "watch")
    ),
    *(
        Permission(verb, group, resource, needed_for=WORKLOAD_API)
        for group, resource in WATCHED_ALPHA_KINDS
        for verb in ("list", "watch")
    ),
    Permission("create", "", "pods", "binding", SECOND_SCHEDULER),
    Permission("patch", "", "pods", "status", SECOND_SCHEDULER),
    Permission("create", "", "events", needed_for=SECOND_SCHEDULER),
    Permission("create", "events.k8s.io", "events", needed_for=SECOND_SCHEDULER),
    Permission("get", "coordination.k8s.io", "leases", needed_for=SECOND_SCHEDULER),
    Permission("update", "coordination.k8s.io", "leases", needed_for=SECOND_SCHEDULER),
    Permission("create", "coordination.k8s.io", "leases", needed_for=SECOND_SCHEDULER),
    # DynamicResources' PreBind, Unreserve and PostFilter (see live_claims): the claim read
    # fresh, its finalizer added, its status written; changing allocation or reservedFor also
    # needs the resourceclaims/binding permission (DRAResourceClaimGranularStatusAuthorization,
    # on in v1.36); the claim for DRA extended resources is created and deleted.
    *(
        Permission(verb, "resource.k8s.io", "resourceclaims", subresource, SECOND_SCHEDULER)
        for verb, subresource in (
            ("get", ""),
            ("update", ""),
            ("update", "status"),
            ("patch", "status"),
            ("update", "binding"),
            ("patch", "binding"),
            ("create", ""),
            ("delete", ""),
        )
    ),
    Permission("delete", "", "pods", needed_for=PREEMPTION),
)


@dataclass
class Answer:
    """The server's answer for one permission (``reason`` as the authorizer gave it)."""

    label: str
    needed_for: str
    allowed: bool
    reason: str = ""


@dataclass
class AccessReport:
    """What Test connection found; ``problem`` is set when the server could not be asked.

    Stored as JSON on the connection (``last_test``): it holds no credential.
    """

    version: str = ""
    problem: str = ""
    answers: list[Answer] = field(default_factory=list)

    @property
    def reached(self) -> bool:
        """The server answered with these credentials (permissions may still be denied)."""
        return not self.problem

    def denied(self, needs: tuple[str, ...] = (MIRROR,)) -> list[Answer]:
        """Denied answers among the permissions the given uses need."""
        return [a for a in self.answers if not a.allowed and a.needed_for in needs]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> AccessReport | None:
        if not data:
            return None
        answers = [Answer(**answer) for answer in data.get("answers", [])]
        return cls(
            version=data.get("version", ""), problem=data.get("problem", ""), answers=answers
        )


def needs_of(second_scheduler: bool, preemption: bool) -> tuple[str, ...]:
    """The uses a connection's switches turn on."""
    return (
        MIRROR,
        *((SECOND_SCHEDULER,) if second_scheduler else ()),
        *((PREEMPTION,) if second_scheduler and preemption else ()),
    )


def check_access(client: ApiClient, server: str = "") -> AccessReport:
    """The report for a client (see the module); failures are in ``problem``, never raised."""
    report = AccessReport()
    try:
        report.version = VersionApi(client).get_code().git_version
        authorization = AuthorizationV1Api(client)
        for permission in PERMISSIONS:
            report.answers.append(_ask(authorization, permission))
    except Exception as err:  # every failure is the report's problem, worded by describe()
        report.problem = describe(err, server)
        report.answers = []
    return report


def _ask(authorization: AuthorizationV1Api, permission: Permission) -> Answer:
    review = V1SelfSubjectAccessReview(
        spec=V1SelfSubjectAccessReviewSpec(
            resource_attributes=V1ResourceAttributes(
                verb=permission.verb,
                group=permission.group,
                resource=permission.resource,
                subresource=permission.subresource or None,
            )
        )
    )
    status = authorization.create_self_subject_access_review(review).status
    return Answer(
        label=permission.label,
        needed_for=permission.needed_for,
        allowed=bool(status.allowed),
        reason=status.reason or status.evaluation_error or "",
    )
