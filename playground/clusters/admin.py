"""Connections in the Django admin: credentials never shown, never editable here.

A kubeconfig is replaced by uploading a new one on the connection's Settings page or with
``manage.py cluster``; the admin shows only that one is stored. The switches that let the
playground act on a cluster (second scheduler, preemption) are read-only here too: the page
asks for a confirmation before the second scheduler starts binding real pods.
"""

from django.contrib import admin
from django.http import HttpRequest

from playground.clusters.models import ClusterConnection, Recording, Replay


@admin.register(ClusterConnection)
class ClusterConnectionAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "mode", "server", "context", "workspace", "second_scheduler")
    list_filter = ("in_cluster", "second_scheduler")
    search_fields = ("name", "server", "context")
    fields = (
        "name",
        "owner",
        "workspace",
        "in_cluster",
        "server",
        "context",
        "credentials",
        "namespaces",
        "label_selector",
        "second_scheduler",
        "preemption",
        "created",
        "updated",
    )
    readonly_fields = (
        "owner",
        "in_cluster",
        "server",
        "context",
        "credentials",
        "second_scheduler",
        "preemption",
        "created",
        "updated",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a connection is tested before it is stored: the page or the command

    @admin.display(description="Credentials")
    def credentials(self, obj: ClusterConnection) -> str:
        if obj.in_cluster:
            return "the service account of the playground's pod"
        if not obj.kubeconfig_encrypted:
            return "none"
        return "stored encrypted; replace them by uploading a kubeconfig on the connection's page"


@admin.register(Recording)
class RecordingAdmin(admin.ModelAdmin):
    """Recordings are started and stopped on the connection's page (the mirror writes them)."""

    list_display = ("connection", "started_at", "stopped_at", "events", "objects_at_start")
    readonly_fields = ("connection", "file", "events", "objects_at_start")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Replay)
class ReplayAdmin(admin.ModelAdmin):
    list_display = ("recording", "workspace", "speed", "state", "applied", "total")
    readonly_fields = ("recording", "workspace", "speed", "state", "applied", "total", "error")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a replay is a task: the connection's page or manage.py cluster replay
