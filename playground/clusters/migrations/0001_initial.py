"""Cluster connections (issue 12). The app's first migration, numbered after the workspaces
app's 0008 as the issue's plan names it: Django orders migrations by dependencies, not numbers."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import playground.workspaces.fields


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("workspaces", "0008_debugger"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ClusterConnection",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=100)),
                (
                    "in_cluster",
                    models.BooleanField(
                        default=False,
                        help_text="The service account of the pod the playground runs in.",
                    ),
                ),
                (
                    "kubeconfig_encrypted",
                    models.TextField(
                        blank=True,
                        editable=False,
                        help_text="Fernet token of the kubeconfig, never shown.",
                    ),
                ),
                ("context", models.CharField(blank=True, max_length=253)),
                (
                    "server",
                    models.CharField(
                        blank=True,
                        help_text="The API server's URL (from the kubeconfig).",
                        max_length=2048,
                    ),
                ),
                (
                    "namespaces",
                    models.CharField(
                        blank=True,
                        help_text="Namespaces to follow, separated by commas; empty follows all.",
                        max_length=2000,
                    ),
                ),
                (
                    "label_selector",
                    models.CharField(
                        blank=True,
                        help_text="Only objects these labels select (app=web).",
                        max_length=2000,
                    ),
                ),
                (
                    "second_scheduler",
                    models.BooleanField(
                        default=False,
                        help_text="Bind the cluster's pods whose schedulerName names a profile.",
                    ),
                ),
                (
                    "preemption",
                    models.BooleanField(
                        default=False,
                        help_text="Let the second scheduler delete victims to preempt.",
                    ),
                ),
                (
                    "last_test",
                    playground.workspaces.fields.JSONField(
                        blank=True,
                        editable=False,
                        help_text="The latest Test connection's report.",
                        null=True,
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("updated", models.DateTimeField(auto_now=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="cluster_connections",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "workspace",
                    models.ForeignKey(
                        blank=True,
                        help_text="The workspace standing for the cluster (none until connected).",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="cluster_connections",
                        to="workspaces.workspace",
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
                "constraints": [
                    models.UniqueConstraint(fields=("owner", "name"), name="unique_connection_name")
                ],
            },
        ),
    ]
