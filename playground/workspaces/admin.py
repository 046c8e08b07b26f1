"""Every model in the Django admin."""

from django.contrib import admin

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


@admin.register(models.SchedulingAttempt)
class SchedulingAttemptAdmin(admin.ModelAdmin):
    # "attempt 3 of pod default/web": the name and number every page uses ("View on site").
    list_display = ("__str__", "workspace", "result", "node", "created")
    list_filter = ("workspace", "result")
    search_fields = ("pod_key", "message")
    readonly_fields = ("number",)


@admin.register(models.AttemptTrace)
class AttemptTraceAdmin(admin.ModelAdmin):
    list_display = ("attempt", "event_count", "raw_size")
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
