"""Every model in the Django admin.

Cluster objects are changed in the playground, whose every write goes through DatabaseCluster
and so reaches the scheduler service as a watch event (the ObjectChange log). The admin shows
them read-only, with a link to the object's YAML editor, and deletes them through
DatabaseCluster too: a pod deleted here leaves the scheduler's queue as one deleted on its page.
A workspace deleted here stops its scheduler service first, as one deleted from its page.
"""

from collections.abc import Iterable
from typing import Any

from django.contrib import admin
from django.db import transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from playground.scheduling.workspace_deletion import delete_workspace
from playground.workspaces import models
from playground.workspaces.cluster import DatabaseCluster


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows shown, never added or edited here: cluster objects (the playground edits them) and
    what the scheduler recorded.

    An editable form also renders a choice of every row a foreign key may point to: the trace's
    page listed every attempt of every workspace, and took over a second once there were a few
    thousand.
    """

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(models.Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    """A workspace deleted here goes as from its page: its scheduler service stops first."""

    list_display = ("name", "slug", "owner", "paused", "updated")
    prepopulated_fields = {"slug": ("name",)}
    filter_horizontal = ("members",)

    def delete_model(self, request: HttpRequest, obj: models.Workspace) -> None:
        delete_workspace(obj)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for workspace in queryset:
            delete_workspace(workspace)


@admin.register(models.SchedulerConfiguration)
class SchedulerConfigurationAdmin(admin.ModelAdmin):
    list_display = ("workspace", "revision", "feature_gates", "created", "created_by", "note")
    list_filter = ("workspace",)


@admin.register(models.ClusterObject)
class ClusterObjectAdmin(ReadOnlyAdmin):
    """Read and delete; adding and editing happen in the playground (see the module)."""

    list_display = (
        "workspace",
        "kind",
        "namespace",
        "name",
        "node_name",
        "resource_version",
        "edit_in_playground",
    )
    list_filter = ("workspace", "kind")
    search_fields = ("name", "namespace", "uid")
    fields = (
        "edit_in_playground",
        "workspace",
        "kind",
        "namespace",
        "name",
        "uid",
        "resource_version",
        "node_name",
        "manifest",
    )

    @admin.display(description="Change it in the playground")
    def edit_in_playground(self, row: models.ClusterObject) -> str:
        url = reverse("object", args=[row.workspace.slug, row.pk])
        return format_html('<a href="{}">Edit {} {} in its YAML editor</a>', url, row.kind, row.key)

    def delete_model(self, request: HttpRequest, obj: models.ClusterObject) -> None:
        _delete_objects([obj])

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        _delete_objects(queryset.order_by("workspace_id", "id"))


def _delete_objects(rows: Iterable[models.ClusterObject]) -> None:
    """Deletes through each workspace's DatabaseCluster, all or nothing."""
    with transaction.atomic():
        for row in rows:
            cluster = DatabaseCluster(row.workspace_id)
            stored = cluster.get(row.kind, row.name, row.namespace)
            if stored is not None:
                cluster.delete(stored)


@admin.register(models.ObjectChange)
class ObjectChangeAdmin(ReadOnlyAdmin):
    """The log the scheduler service follows: written with every change, never by hand."""

    list_display = ("id", "workspace", "event_type", "kind", "namespace", "name", "created")
    list_filter = ("workspace", "event_type", "kind")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(models.SchedulingAttempt)
class SchedulingAttemptAdmin(ReadOnlyAdmin):
    # "attempt 3 of pod default/web": the name and number every page uses ("View on site").
    list_display = ("__str__", "workspace", "result", "node", "created")
    list_filter = ("workspace", "result")
    list_select_related = ("workspace",)
    search_fields = ("pod_key", "message")
    readonly_fields = ("number",)


@admin.register(models.AttemptTrace)
class AttemptTraceAdmin(ReadOnlyAdmin):
    list_display = ("attempt", "event_count", "raw_size")
    list_select_related = ("attempt",)
    exclude = ("data",)


@admin.register(models.KubeEvent)
class KubeEventAdmin(admin.ModelAdmin):
    list_display = ("id", "workspace", "type", "reason", "regarding_name", "created")
    list_filter = ("workspace", "type", "reason")


@admin.register(models.SchedulerLease)
class SchedulerLeaseAdmin(admin.ModelAdmin):
    list_display = ("workspace", "holder", "generation", "renewed_at", "expires_at")


@admin.register(models.SchedulerCommand)
class SchedulerCommandAdmin(admin.ModelAdmin):
    list_display = ("id", "workspace", "kind", "created", "done_at", "outcome")
    list_filter = ("workspace", "kind")


@admin.register(models.SchedulerStatus)
class SchedulerStatusAdmin(admin.ModelAdmin):
    list_display = ("workspace", "revision", "feature_gates", "updated")
