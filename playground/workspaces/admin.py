"""Every model in the Django admin."""

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from playground.workspaces import models


@admin.register(models.Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "owner", "paused", "updated")
    prepopulated_fields = {"slug": ("name",)}
    filter_horizontal = ("members",)


@admin.register(models.SchedulerConfiguration)
class SchedulerConfigurationAdmin(admin.ModelAdmin):
    list_display = ("workspace", "revision", "created", "created_by", "note")
    list_filter = ("workspace",)


@admin.register(models.ClusterObject)
class ClusterObjectAdmin(admin.ModelAdmin):
    list_display = ("workspace", "kind", "namespace", "name", "node_name", "resource_version")
    list_filter = ("workspace", "kind")
    search_fields = ("name", "namespace", "uid")


@admin.register(models.ObjectChange)
class ObjectChangeAdmin(admin.ModelAdmin):
    list_display = ("id", "workspace", "event_type", "kind", "namespace", "name", "created")
    list_filter = ("workspace", "event_type", "kind")


class RecordAdmin(admin.ModelAdmin):
    """What the scheduler recorded: shown, never added or edited by hand.

    An editable form also renders a choice of every row a foreign key may point to: the trace's
    page listed every attempt of every workspace, and took over a second once there were a few
    thousand.
    """

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(models.SchedulingAttempt)
class SchedulingAttemptAdmin(RecordAdmin):
    list_display = ("id", "workspace", "pod_key", "result", "node", "created")
    list_filter = ("workspace", "result")
    list_select_related = ("workspace",)
    search_fields = ("pod_key", "message")


@admin.register(models.AttemptTrace)
class AttemptTraceAdmin(RecordAdmin):
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
    list_display = ("workspace", "updated")
