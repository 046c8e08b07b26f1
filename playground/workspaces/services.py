"""Workspace operations the views, the commands and the tests share.

A workspace always has a configuration: it starts with the engine's default (what
kube-scheduler runs with given no file) as revision 1, and a revision is only ever added when
it loads, defaults and validates, so the scheduler service never meets a broken one.
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
from framework.runtime.framework import Framework
from playground.scheduling.plugins import playground_registry
from playground.workspaces import demo
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, Workspace

DEMO_SLUG = "demo"
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
) -> Workspace:
    """A new workspace with the default configuration as revision 1, holding ``manifests``.

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
            text=default_configuration_text(),
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


def default_configuration_text() -> str:
    """The default KubeSchedulerConfiguration, fully spelled out as kube-scheduler prints it."""
    return to_yaml(default_configuration())


def configuration_problems(text: str) -> list[ConfigurationProblem]:
    """Why the text is not a usable KubeSchedulerConfiguration, in upstream's words; [] if it is."""
    return checked_configuration(text).problems


@dataclass(frozen=True, slots=True)
class CheckedConfiguration:
    """A configuration text as kube-scheduler would take it: its problems, or the defaulted
    configuration and each profile's framework."""

    problems: list[ConfigurationProblem]
    cfg: KubeSchedulerConfiguration | None = None
    frameworks: list[Framework] = field(default_factory=list)


def checked_configuration(text: str) -> CheckedConfiguration:
    """Loads, defaults and starts the configuration (``framework.config.startup``).

    ``load_config`` stops at the first decoding problem; validation reports every field.
    """
    if not text.strip():
        return CheckedConfiguration([ConfigurationProblem("", "the configuration is empty")])
    try:
        cfg = load_config(text.encode())  # bytes: always the document, never a file name
    except ConfigError as err:
        return CheckedConfiguration([ConfigurationProblem("", str(err))])
    set_defaults(cfg)
    startup = start_up(cfg, playground_registry())
    problems = [ConfigurationProblem(error.field, error.detail) for error in startup.errors]
    return CheckedConfiguration(problems, cfg, startup.frameworks)


def add_configuration_revision(
    workspace: Workspace, text: str, user: Any = None, note: str = ""
) -> tuple[SchedulerConfiguration | None, list[ConfigurationProblem]]:
    """The next revision if the text loads, defaults and validates; otherwise (None, problems).

    Revision numbers are taken under the workspace's row lock, so two saves never collide.
    """
    problems = configuration_problems(text)
    if problems:
        return None, problems
    with transaction.atomic():
        list(
            Workspace.objects.select_for_update(no_key=True)
            .filter(pk=workspace.pk)
            .values_list("pk")
        )
        latest = workspace.configurations.aggregate(latest=Max("revision"))["latest"] or 0
        revision = SchedulerConfiguration.objects.create(
            workspace=workspace, revision=latest + 1, text=text, created_by=user, note=note
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
    )
