"""Workspace operations the views, the commands and the tests share.

A workspace always has a configuration: it starts with the engine's default (what
kube-scheduler runs with given no file) as revision 1, and a revision is only ever added when
it loads, defaults and validates, so the scheduler service never meets a broken one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify

from framework.config.defaults import default_configuration, set_defaults
from framework.config.encode import to_yaml
from framework.config.load import ConfigError, load_config
from framework.config.validation import validate
from playground.workspaces import demo
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, Workspace

DEMO_SLUG = "demo"


@dataclass(frozen=True, slots=True)
class ConfigurationProblem:
    """Why a configuration was not accepted: upstream's field path (if any) and message."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def create_workspace(owner: Any, name: str, *, slug: str = "", description: str = "") -> Workspace:
    """A new workspace with the default configuration as revision 1.

    The slug is derived from the name when not given, and made unique with ``-2``, ``-3``...
    """
    with transaction.atomic():
        workspace = Workspace.objects.create(
            name=name,
            slug=_unique_slug(slug or slugify(name) or "workspace"),
            description=description,
            owner=owner,
        )
        SchedulerConfiguration.objects.create(
            workspace=workspace,
            revision=1,
            text=default_configuration_text(),
            created_by=owner,
            note="kube-scheduler's default configuration",
        )
    return workspace


def _unique_slug(base: str) -> str:
    taken = set(Workspace.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    if base not in taken:
        return base
    return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)


def default_configuration_text() -> str:
    """The default KubeSchedulerConfiguration, fully spelled out as kube-scheduler prints it."""
    return to_yaml(default_configuration())


def configuration_problems(text: str) -> list[ConfigurationProblem]:
    """Why the text is not a usable KubeSchedulerConfiguration, in upstream's words; [] if it is.

    ``load_config`` stops at the first decoding problem; validation reports every field.
    """
    if not text.strip():
        return [ConfigurationProblem("", "the configuration is empty")]
    try:
        cfg = load_config(text.encode())  # bytes: always the document, never a file name
    except ConfigError as err:
        return [ConfigurationProblem("", str(err))]
    set_defaults(cfg)
    return [ConfigurationProblem(error.field, error.body()) for error in validate(cfg)]


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
        list(Workspace.objects.select_for_update().filter(pk=workspace.pk).values_list("pk"))
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
    with transaction.atomic():
        workspace = create_workspace(
            user,
            "Demo",
            slug=DEMO_SLUG,
            description="Three zones, mixed node sizes, taints, running and pending pods.",
        )
        DatabaseCluster(workspace).add_many(demo.demo_manifests())
    return workspace
