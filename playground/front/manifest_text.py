"""A manifest as the YAML editor shows it, and the way back, with problems placed on lines.

Errors from the engine name a field path (``spec.containers[0].resources.requests.cpu``);
``locate`` finds the line that path starts on in the text the user typed, so the editor can
say where to look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from framework.api.errors import ObjectError
from playground.workspaces.manifest_lines import composed, field_line


@dataclass(frozen=True, slots=True)
class FieldProblem:
    field: str
    message: str
    line: int | None = None


class ManifestTextError(ValueError):
    """Text that is not one YAML mapping."""

    def __init__(self, problem: FieldProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def to_text(manifest: dict[str, Any]) -> str:
    """YAML in the manifest's own key order, as ``kubectl get -o yaml`` prints it."""
    return yaml.safe_dump(manifest, sort_keys=False, default_flow_style=False, allow_unicode=True)


def read_manifest(text: str) -> dict[str, Any]:
    """The one object the text holds; ManifestTextError (with a line when known) otherwise."""
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ManifestTextError(FieldProblem("", f"the YAML cannot be read: {err}", line)) from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        found = "nothing" if not documents else f"{len(documents)} documents"
        if len(documents) == 1:
            found = f"a {type(documents[0]).__name__}"
        message = f"expected one object (a YAML mapping), found {found}"
        raise ManifestTextError(FieldProblem("", message, None))
    return documents[0]


def object_problems(err: ObjectError, text: str) -> list[FieldProblem]:
    """Each problem of a refused object on the line of its field (an invalid object has
    several: kube-apiserver's validation lists them all)."""
    return [
        FieldProblem(field, f"{err.owner}: {message}", locate(text, where))
        for field, message, where in err.places()
    ]


def locate(text: str, field: str) -> int | None:
    """The 1-based line where ``field`` (or its deepest existing parent) starts in the text."""
    return field_line(composed(text), field) if field else None
