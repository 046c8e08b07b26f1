"""Attempts get their pod's numbers 1, 2, 3... (existing rows in the order they were stored)."""

from django.db import migrations, models

NUMBER_EXISTING = """
UPDATE workspaces_schedulingattempt SET number = (
    SELECT COUNT(*) FROM workspaces_schedulingattempt AS earlier
    WHERE earlier.workspace_id = workspaces_schedulingattempt.workspace_id
      AND earlier.pod_uid = workspaces_schedulingattempt.pod_uid
      AND earlier.id <= workspaces_schedulingattempt.id
)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("workspaces", "0005_stop_command"),
    ]

    operations = [
        migrations.AddField(
            model_name="schedulingattempt",
            name="number",
            field=models.PositiveIntegerField(
                default=0, help_text="The pod's attempts are numbered 1, 2, 3... in order."
            ),
        ),
        migrations.AlterField(
            model_name="schedulingattempt",
            name="cycle",
            field=models.PositiveIntegerField(
                default=0,
                help_text="The scheduling queue's cycle counter when the attempt began "
                "(internal: it restarts with every new scheduler, so pages show the attempt's "
                "number instead).",
            ),
        ),
        migrations.RunSQL(NUMBER_EXISTING, migrations.RunSQL.noop),
        migrations.AddConstraint(
            model_name="schedulingattempt",
            constraint=models.UniqueConstraint(
                fields=("workspace", "pod_uid", "number"), name="unique_attempt_number"
            ),
        ),
    ]
