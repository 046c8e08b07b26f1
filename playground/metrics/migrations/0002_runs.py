"""Samples become runs of unchanged samples (``MetricsSample.until``). A sample stored before
is a run of one: it ends where it starts."""

from django.db import migrations, models


def _runs_of_one(apps, schema_editor):
    samples = apps.get_model("metrics", "MetricsSample").objects
    samples.update(until=models.F("taken_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("metrics", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="metricssample",
            name="until",
            field=models.DateTimeField(null=True),
        ),
        migrations.RunPython(_runs_of_one, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="metricssample",
            name="until",
            field=models.DateTimeField(db_index=True),
        ),
        migrations.AlterField(
            model_name="metricssample",
            name="taken_at",
            field=models.DateTimeField(),
        ),
        migrations.RemoveIndex(
            model_name="metricssample",
            name="metrics_met_workspa_c541df_idx",
        ),
        migrations.AddIndex(
            model_name="metricssample",
            index=models.Index(
                fields=["workspace", "until"], name="metrics_met_workspa_ae08ab_idx"
            ),
        ),
    ]
