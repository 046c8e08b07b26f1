"""Comparisons in the Django admin, read-only: a comparison is made by the Compare page and
changed only by its tasks (an edit here would contradict the report it keeps)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from playground.compare.models import Comparison, ComparisonVariant


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class VariantInline(admin.TabularInline):
    model = ComparisonVariant
    fields = ("index", "name", "revision", "state", "trace_state", "settled", "total", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Comparison)
class ComparisonAdmin(ReadOnly):
    list_display = ("pk", "workspace", "created", "created_by", "source", "state")
    list_filter = ("state", "source")
    exclude = ("inputs_text", "report")
    inlines = [VariantInline]
