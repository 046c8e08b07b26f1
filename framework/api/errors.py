"""Errors raised while reading Kubernetes manifests."""

from __future__ import annotations

from collections.abc import Sequence

from framework.api.field_errors import FieldError, aggregate_message


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

    def parts(self) -> list[tuple[str, str]]:
        """(field, problem) for each problem, so a form can show each on its own line."""
        return [(self.field, self.problem)]

    def places(self) -> list[tuple[str, str, str]]:
        """(field, problem, where) for each problem: ``where`` is the path of the field in
        the manifest the problem is on (the field itself, unless it has none to show)."""
        return [(field, problem, field) for field, problem in self.parts()]


class StrictDecodingError(ObjectError):
    """Fields the kind does not have, refused as kube-apiserver's strict field validation does:
    ``strict decoding error: unknown field "spec.containerz", unknown field "..."``."""

    def __init__(self, owner: str, errors: list[str], paths: Sequence[str] = ()) -> None:
        self.errors = errors
        self.paths = list(paths)
        """Where each unknown field is in the manifest, in the order of ``errors``."""
        super().__init__(owner, "", "strict decoding error: " + ", ".join(errors))

    def places(self) -> list[tuple[str, str, str]]:
        """Each unknown field on its own, in upstream's words for it, at its path: it names
        no field of the kind, so no field is shown, but it has a place in the text."""
        if len(self.paths) != len(self.errors):
            return super().places()
        return [
            ("", f"strict decoding error: {error}", path)
            for error, path in zip(self.errors, self.paths, strict=True)
        ]


class InvalidObjectError(ObjectError):
    """An object kube-apiserver's validation refuses, with every problem it reports.

    Reads like upstream's ``Pod "web" is invalid: [spec.containers: Required value, ...]``,
    the object named as everywhere else here; ``errors`` holds each field error. With one
    error, ``field`` and ``problem`` are that error's, as for any other ObjectError.
    """

    def __init__(self, owner: str, errors: Sequence[FieldError]) -> None:
        self.errors = list(errors)
        if len(self.errors) == 1:
            super().__init__(owner, self.errors[0].field, self.errors[0].body())
        else:
            super().__init__(owner, "", "is invalid: " + aggregate_message(self.errors))
        ValueError.__init__(self, f"{owner} is invalid: {aggregate_message(self.errors)}")

    def parts(self) -> list[tuple[str, str]]:
        return [(error.field, error.body()) for error in self.errors]
