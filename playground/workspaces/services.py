"""Workspace operations the views, the commands and the tests share.

A workspace always has a configuration: it starts with the engine's default (what
kube-scheduler runs with given no file) as revision 1, and a revision is only ever added when
it loads, defaults and validates, so the scheduler service never meets a broken one. A
revision holds both of kube-scheduler's start-up inputs, ``--config`` and ``--feature-gates``:
the gates decide the configuration's defaults (the default profile's plugins, plugin args) and
what its validation allows, so the one is never checked without the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify

from framework.config.defaults import default_configuration, set_defaults
from framework.config.encode import to_yaml
from framework.config.load import ConfigError, load_config
from framework.config.startup import start_up
from framework.config.types import KubeSchedulerConfiguration
from framework.features import DEFAULT_FEATURE_GATES, FeatureGateError, FeatureGates
from framework.runtime.framework import Framework
from playground.scheduling.plugins import playground_registry
from playground.workspaces import demo
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, Workspace

DEMO_SLUG = "demo"
FEATURE_GATES_FIELD = "--feature-gates"
"""How problems with a revision's feature gates name their field: kube-scheduler's flag."""
NAME_WITHOUT_SLUG = (
    "use at least one letter (a to z) or digit: the workspace's address is made of them"
)


@dataclass(frozen=True, slots=True)
class ConfigurationProblem:
    """Why a configuration was not accepted: upstream's field path (if any) and message."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def create_workspace(
    owner: Any,
    name: str,
    *,
    slug: str = "",
    description: str = "",
    manifests: Iterable[Mapping[str, Any]] = (),
    feature_gates: str = "",
) -> Workspace:
    """A new workspace with the default configuration as revision 1 (run with
    ``feature_gates``, valid ones), holding ``manifests``.

    The slug is derived from the name when not given (ValueError if the name has no letter or
    digit to derive it from), and made unique with ``-2``, ``-3``...
    """
    base = slug or slugify(name)
    if not base:
        raise ValueError(f"workspace name {name!r}: {NAME_WITHOUT_SLUG}")
    with transaction.atomic():
        workspace = Workspace.objects.create(
            name=name, slug=_unique_slug(base), description=description, owner=owner
        )
        SchedulerConfiguration.objects.create(
            workspace=workspace,
            revision=1,
            text=default_configuration_text(feature_gates),
            feature_gates=valid_feature_gates(feature_gates).to_string(),
            created_by=owner,
            note="kube-scheduler's default configuration",
        )
        manifests = list(manifests)
        if manifests:
            DatabaseCluster(workspace).add_many(manifests)
    return workspace


def workspace_name_problem(owner: Any, name: str) -> str:
    """Why ``owner`` cannot give a new workspace this name, or "" when it can.

    The address (slug) is made of the name's letters and digits, and a person tells their
    workspaces apart by name, so two of one owner's never share one (whatever the case).
    """
    if not slugify(name):
        return NAME_WITHOUT_SLUG
    taken = Workspace.objects.filter(owner=owner, name__iexact=name.strip()).first()
    if taken is not None:
        return f"you already have a workspace named “{taken.name}”: choose another name"
    return ""


def _unique_slug(base: str) -> str:
    taken = set(Workspace.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    if base not in taken:
        return base
    return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)


def default_configuration_text(feature_gates: str = "") -> str:
    """The default KubeSchedulerConfiguration under the gates (valid ones), fully spelled out as
    kube-scheduler prints it (with ``GangScheduling`` on, the default profile names it)."""
    return to_yaml(default_configuration(valid_feature_gates(feature_gates)))


def valid_feature_gates(text: str) -> FeatureGates:
    """The gates a ``--feature-gates`` value sets; ValueError with every problem if it is bad."""
    features, problems = parsed_feature_gates(text)
    if features is None:
        raise ValueError("\n".join(str(problem) for problem in problems))
    return features


def configuration_problems(text: str, feature_gates: str = "") -> list[ConfigurationProblem]:
    """Why the text is not a usable KubeSchedulerConfiguration under the gates, in upstream's
    words; [] if it is."""
    return checked_configuration(text, feature_gates).problems


@dataclass(frozen=True, slots=True)
class CheckedConfiguration:
    """A configuration text and feature gates as kube-scheduler would take them: their
    problems, or the gates, the defaulted configuration and each profile's framework."""

    problems: list[ConfigurationProblem]
    cfg: KubeSchedulerConfiguration | None = None
    frameworks: list[Framework] = field(default_factory=list)
    features: FeatureGates | None = None


def checked_configuration(text: str, feature_gates: str = "") -> CheckedConfiguration:
    """Reads the gates, then loads, defaults and starts the configuration under them
    (``framework.config.startup``).

    Bad gates come alone, as kube-scheduler stops at its flags before reading ``--config``;
    ``load_config`` stops at the first decoding problem; validation reports every field.
    """
    features, problems = parsed_feature_gates(feature_gates)
    if features is None:
        return CheckedConfiguration(problems)
    if not text.strip():
        return CheckedConfiguration([ConfigurationProblem("", "the configuration is empty")])
    try:
        cfg = load_config(text.encode())  # bytes: always the document, never a file name
    except ConfigError as err:
        return CheckedConfiguration([ConfigurationProblem("", str(err))])
    set_defaults(cfg, features)
    startup = start_up(cfg, playground_registry(features), features)
    problems = [ConfigurationProblem(error.field, error.detail) for error in startup.errors]
    return CheckedConfiguration(problems, cfg, startup.frameworks, features)


def parsed_feature_gates(text: str) -> tuple[FeatureGates | None, list[ConfigurationProblem]]:
    """The gates a ``--feature-gates`` value sets (empty: the v1.36 defaults), or None and every
    problem, each named with the field, in upstream's words (unknown gate, locked gate, missing
    dependency, a value that is not a boolean)."""
    if not text.strip():
        return DEFAULT_FEATURE_GATES, []
    try:
        return FeatureGates.from_string(text), []
    except FeatureGateError as err:
        lines = str(err).splitlines()
        return None, [ConfigurationProblem(FEATURE_GATES_FIELD, line) for line in lines]


@dataclass(frozen=True, slots=True)
class SchedulerSettings:
    """What a workspace's kube-scheduler starts with: the defaulted configuration
    (``--config``) and the feature gates (``--feature-gates``)."""

    cfg: KubeSchedulerConfiguration
    features: FeatureGates = DEFAULT_FEATURE_GATES


def default_settings() -> SchedulerSettings:
    """kube-scheduler started with neither flag."""
    return SchedulerSettings(default_configuration())


def revision_settings(workspace_id: int, revision: int | None) -> SchedulerSettings:
    """A revision's settings (the defaults when None), checked as when it was saved.

    Revisions are validated before they are saved; one that is not valid any more (an engine
    upgrade) raises ValueError with the reasons.
    """
    if revision is None:
        return default_settings()
    stored = SchedulerConfiguration.objects.get(workspace_id=workspace_id, revision=revision)
    checked = checked_configuration(stored.text, stored.feature_gates)
    if checked.problems:
        raise ValueError("\n".join(str(problem) for problem in checked.problems))
    return SchedulerSettings(checked.cfg, checked.features)


def add_configuration_revision(
    workspace: Workspace,
    text: str,
    user: Any = None,
    note: str = "",
    feature_gates: str = "",
) -> tuple[SchedulerConfiguration | None, list[ConfigurationProblem]]:
    """The next revision if the gates are valid and the text loads, defaults and validates
    under them; otherwise (None, problems). The gates are stored as their overrides of the
    defaults, by name (``FeatureGates.to_string``).

    Revision numbers are taken under the workspace's row lock, so two saves never collide.
    """
    checked = checked_configuration(text, feature_gates)
    if checked.problems:
        return None, checked.problems
    with transaction.atomic():
        list(
            Workspace.objects.select_for_update(no_key=True)
            .filter(pk=workspace.pk)
            .values_list("pk")
        )
        latest = workspace.configurations.aggregate(latest=Max("revision"))["latest"] or 0
        revision = SchedulerConfiguration.objects.create(
            workspace=workspace,
            revision=latest + 1,
            text=text,
            feature_gates=checked.features.to_string(),
            created_by=user,
            note=note,
        )
    return revision, []


def demo_workspace(user: Any) -> Workspace:
    """The demo workspace (slug ``demo``), created with its cluster the first time."""
    existing = Workspace.objects.filter(slug=DEMO_SLUG).first()
    if existing is not None:
        return existing
    return create_workspace(
        user,
        "Demo",
        slug=DEMO_SLUG,
        description=demo.DESCRIPTION,
        manifests=demo.demo_manifests(),
        feature_gates=demo.FEATURE_GATES,
    )
