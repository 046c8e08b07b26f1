"""Errors raised while reading Kubernetes manifests."""

from __future__ import annotations


class ObjectError(ValueError):
    """A manifest that cannot be read, naming the object, the field and the problem.

    The text reads like ``Pod "default/web": spec.containers[0].resources.requests.cpu: ...``
    so a user can find the offending line without a traceback.
    """

    def __init__(self, owner: str, field: str, problem: str) -> None:
        self.owner = owner
        self.field = field
        self.problem = problem
        where = f"{field}: " if field else ""
        super().__init__(f"{owner}: {where}{problem}")
