"""The what-if form: a pending pod or a pasted manifest, and a profile.

A pasted manifest that cannot be a pod is refused with the field and the problem, placed on
its line like the object editor's, and the text stays in the form to be fixed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from framework.api.errors import ObjectError
from framework.api.pod import Pod
from framework.what_if import WhatIfError
from playground.front.manifest_text import (
    FieldProblem,
    ManifestTextError,
    object_problems,
    read_manifest,
)
from playground.scheduling.what_if import pasted_pod, profile_for, stored_pod
from playground.workspaces.models import Workspace

OWN_PROFILE = ""
"""The profile choice that means: the one the pod's schedulerName names, else the first."""


@dataclass
class WhatIfForm:
    """What the person asked: ``pod`` (a pending pod's uid) or ``manifest``, and ``profile``."""

    pod: str = ""
    manifest: str = ""
    profile: str = OWN_PROFILE
    problems: list[FieldProblem] = field(default_factory=list)

    @classmethod
    def from_data(cls, data: Mapping[str, str]) -> WhatIfForm:
        return cls(
            pod=data.get("pod", "").strip(),
            manifest=data.get("manifest", ""),
            profile=data.get("profile", OWN_PROFILE),
        )

    @property
    def asked(self) -> bool:
        """Whether a pod was named (a page opened by a plain link shows the form only)."""
        return bool(self.pod or self.manifest.strip())

    def resolve(self, workspace: Workspace, profiles: list[str]) -> tuple[Pod, str] | None:
        """The pod and the profile to run it through; None, with ``problems``, when the form
        does not say them."""
        pod = self._pod(workspace)
        if pod is None:
            return None
        if self.profile == OWN_PROFILE:
            return pod, profile_for(pod, profiles)
        if self.profile not in profiles:
            names = ", ".join(profiles)
            self._problem("profile", f"no profile {self.profile!r} (the profiles: {names})")
            return None
        return pod, self.profile

    def _pod(self, workspace: Workspace) -> Pod | None:
        pasted = self.manifest.strip()
        if self.pod and pasted:
            self._problem("", "pick a pending pod or paste a manifest, not both")
        elif self.pod:
            try:
                return stored_pod(workspace, self.pod)
            except WhatIfError as err:
                self._problem("pod", str(err))
        elif pasted:
            return self._pasted(workspace)
        else:
            self._problem("", "pick a pending pod or paste a pod manifest")
        return None

    def _pasted(self, workspace: Workspace) -> Pod | None:
        try:
            return pasted_pod(workspace, read_manifest(self.manifest))
        except ManifestTextError as err:
            self.problems.append(err.problem)
        except ObjectError as err:
            self.problems += object_problems(err, self.manifest)
        return None

    def _problem(self, field_name: str, message: str) -> None:
        self.problems.append(FieldProblem(field_name, message))
