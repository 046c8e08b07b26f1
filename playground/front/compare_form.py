"""The Compare page's form: what to schedule (the workspace, a snapshot or a recording) and
2-4 variants (a revision of the workspace's configuration, or pasted YAML).

Pasted YAML is checked as the profile editor checks it (``configuration_problems``, under the
gates of the workspace's current revision); every problem names its variant and field, and
everything typed stays in the form. ``?profile=<yaml>&name=<label>`` (the attempt page's
"Compare with these weights") fills a pasted variant beside the current revision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from framework.config.load import ConfigError
from framework.plugins.registry import in_tree_registry
from framework.simulator import SimulationError
from framework.simulator import checked_configuration as engine_configuration
from playground.compare.inputs import recording_text, recordings_of, workspace_text
from playground.compare.models import (
    RECORDING,
    SNAPSHOT,
    WORKSPACE,
    Comparison,
    ComparisonVariant,
)
from playground.front.manifest_text import FieldProblem
from playground.workspaces.models import SchedulerConfiguration, Workspace
from playground.workspaces.services import (
    configuration_problems,
    default_configuration_text,
    valid_feature_gates,
)

MIN_VARIANTS, MAX_VARIANTS = 2, 4
REVISION, PASTED, UNUSED = "revision", "yaml", ""
NAME_LENGTH = 200


@dataclass
class VariantChoice:
    """One slot of the form: ``kind`` (revision, yaml or unused), and what it names."""

    index: int
    kind: str = UNUSED
    revision: str = ""
    yaml: str = ""
    name: str = ""

    @property
    def prefix(self) -> str:
        return f"variant-{self.index}"

    @property
    def label(self) -> str:
        """How problems name it: "variant 2 (spread)"."""
        return f"variant {self.index + 1}" + (f" ({self.name})" if self.name else "")


@dataclass
class CompareForm:
    source: str = WORKSPACE
    snapshot: str = ""
    snapshot_workspace: str = ""
    recording: str = ""
    seed: str = "0"
    variants: list[VariantChoice] = field(default_factory=list)
    problems: list[FieldProblem] = field(default_factory=list)

    @classmethod
    def from_data(cls, data: Mapping[str, Any], files: Mapping[str, Any] | None = None):
        form = cls(
            source=data.get("source", WORKSPACE),
            snapshot=data.get("snapshot", ""),
            snapshot_workspace=data.get("snapshot_workspace", ""),
            recording=data.get("recording", ""),
            seed=data.get("seed", "0").strip() or "0",
        )
        for index in range(MAX_VARIANTS):
            prefix = f"variant-{index}"
            form.variants.append(
                VariantChoice(
                    index,
                    kind=data.get(f"{prefix}-kind", UNUSED),
                    revision=data.get(f"{prefix}-revision", ""),
                    yaml=data.get(f"{prefix}-yaml", ""),
                    name=data.get(f"{prefix}-name", "").strip(),
                )
            )
        upload = (files or {}).get("snapshot_file")
        if upload is not None:
            form._read_upload(upload)
        return form

    @classmethod
    def initial(cls, workspace: Workspace, query: Mapping[str, str]) -> CompareForm:
        """The current revision first; then the pasted profile of the link (``profile``,
        ``name``), or else the revision before the current one."""
        revisions = list(workspace.configurations.values_list("revision", flat=True)[:2])
        form = cls(variants=[VariantChoice(index) for index in range(MAX_VARIANTS)])
        first, second = form.variants[0], form.variants[1]
        if revisions:
            first.kind, first.revision = REVISION, str(revisions[0])
        else:
            first.kind, first.yaml = PASTED, default_configuration_text()
        if query.get("profile"):
            second.kind, second.yaml = PASTED, query["profile"]
            second.name = query.get("name", "").strip()[:NAME_LENGTH]
        elif len(revisions) > 1:
            second.kind, second.revision = REVISION, str(revisions[1])
        return form

    def _read_upload(self, upload: Any) -> None:
        if upload.size > settings.MAX_MANIFEST_BYTES:
            limit = settings.MAX_MANIFEST_BYTES // (1024 * 1024)
            self._problem("snapshot_file", f"the file is larger than {limit} MiB")
            return
        self.snapshot = upload.read().decode("utf-8", errors="replace")
        self.source = SNAPSHOT

    def _problem(self, where: str, message: str) -> None:
        self.problems.append(FieldProblem(where, message))

    # ------------------------------------------------------------------------------------------
    # Checking and saving

    def comparison(self, workspace: Workspace, user: Any) -> Comparison | None:
        """The comparison asked for, saved with its variants (tasks not sent yet); None, with
        ``problems``, when the form does not say one."""
        seed = self._seed()
        inputs = self._inputs(workspace, user)
        variants = self._variants(workspace)
        if self.problems or inputs is None or seed is None:
            return None
        source_label, text = inputs
        with transaction.atomic():
            comparison = Comparison.objects.create(
                workspace=workspace,
                created_by=user,
                source=self.source,
                source_label=source_label,
                inputs_text=text,
                seed=seed,
            )
            ComparisonVariant.objects.bulk_create(
                ComparisonVariant(comparison=comparison, index=index, **variant)
                for index, variant in enumerate(variants)
            )
        return comparison

    def _seed(self) -> int | None:
        try:
            return int(self.seed)
        except ValueError:
            self._problem("seed", f"must be a whole number, not {self.seed!r}")
            return None

    def _inputs(self, workspace: Workspace, user: Any) -> tuple[str, str] | None:
        """(where the inputs come from, their text)."""
        if self.source == WORKSPACE:
            return f"workspace {workspace.name}, as it was", workspace_text(workspace)
        if self.source == SNAPSHOT:
            return self._snapshot(user)
        if self.source == RECORDING:
            return self._recording(user)
        self._problem("source", f"must be workspace, snapshot or recording, not {self.source!r}")
        return None

    def _snapshot(self, user: Any) -> tuple[str, str] | None:
        pasted = self.snapshot.strip()
        if self.snapshot_workspace and pasted:
            self._problem("snapshot", "paste or upload a snapshot or pick a workspace, not both")
        elif self.snapshot_workspace:
            other = Workspace.objects.filter(slug=self.snapshot_workspace).first()
            if other is None or not other.can_access(user):
                self._problem("snapshot_workspace", f"no workspace {self.snapshot_workspace!r}")
                return None
            return f"an export of workspace {other.name}", workspace_text(other)
        elif pasted:
            return "a pasted snapshot", self.snapshot
        else:
            self._problem("snapshot", "paste or upload a snapshot (multi-document YAML)")
        return None

    def _recording(self, user: Any) -> tuple[str, str] | None:
        chosen = next((r for r in recordings_of(user) if str(r.pk) == self.recording), None)
        if chosen is None:
            self._problem("recording", "pick one of the stopped recordings listed")
            return None
        try:
            return str(chosen), recording_text(chosen)
        except OSError as err:
            self._problem("recording", f"its file cannot be read: {err.strerror or err}")
            return None

    def _variants(self, workspace: Workspace) -> list[dict[str, Any]]:
        """Each used slot as a variant row's fields, checked."""
        used = [choice for choice in self.variants if choice.kind != UNUSED]
        if not MIN_VARIANTS <= len(used) <= MAX_VARIANTS:
            self._problem("variants", f"choose {MIN_VARIANTS} to {MAX_VARIANTS} variants")
        current = workspace.current_configuration()
        gates = current.feature_gates if current is not None else ""
        rows = [self._variant(workspace, choice, gates) for choice in used]
        names = [row["name"] for row in rows if row]
        for name in sorted({name for name in names if names.count(name) > 1}):
            self._problem("variants", f"two variants are named {name!r}: name them apart")
        return [row for row in rows if row]

    def _variant(self, workspace: Workspace, choice: VariantChoice, gates: str) -> dict | None:
        row = self._checked_variant(workspace, choice, gates)
        if row is not None and not self._runs_in_tree(choice, row):
            return None
        return row

    def _runs_in_tree(self, choice: VariantChoice, row: dict[str, Any]) -> bool:
        """A comparison runs kube-scheduler's in-tree plugins only (as the command does): a
        profile with the playground's own plugins (WaitForApproval, LabelSelectorPermit: pods
        waiting for a person nobody is) is refused here, naming the plugin, rather than failing
        on the worker."""
        features = valid_feature_gates(row["feature_gates"])
        try:
            engine_configuration(row["config_text"], in_tree_registry(features), features)
        except (ConfigError, SimulationError) as err:
            field = "revision" if choice.kind == REVISION else "yaml"
            self._problem(
                f"{choice.prefix}-{field}",
                f"{choice.label}: comparisons run kube-scheduler's in-tree plugins only: {err}",
            )
            return False
        return True

    def _checked_variant(
        self, workspace: Workspace, choice: VariantChoice, gates: str
    ) -> dict | None:
        where = choice.prefix
        if len(choice.name) > NAME_LENGTH:
            self._problem(f"{where}-name", f"{choice.label}: at most {NAME_LENGTH} characters")
            return None
        if choice.kind == REVISION:
            stored = SchedulerConfiguration.objects.filter(
                workspace=workspace, revision=_number(choice.revision)
            ).first()
            if stored is None:
                self._problem(
                    f"{where}-revision", f"{choice.label}: no revision {choice.revision!r}"
                )
                return None
            return {
                "name": choice.name or f"revision {stored.revision}",
                "config_text": stored.text,
                "feature_gates": stored.feature_gates,
                "revision": stored.revision,
            }
        if choice.kind == PASTED:
            problems = configuration_problems(choice.yaml, gates)
            for problem in problems:
                self._problem(f"{where}-yaml", f"{choice.label}: {problem}")
            if problems:
                return None
            return {
                "name": choice.name or f"variant {choice.index + 1}",
                "config_text": choice.yaml,
                "feature_gates": gates,
            }
        self._problem(f"{where}-kind", f"{choice.label}: must be a revision or pasted YAML")
        return None


def _number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return -1
