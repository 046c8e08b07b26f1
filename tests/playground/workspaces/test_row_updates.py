"""update_rows writes many rows' columns in one statement, as saving each row would."""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground.workspaces.models import ClusterObject
from playground.workspaces.row_updates import update_rows

FIELDS = ["manifest", "node_name", "resource_version", "updated"]


def stored_rows(workspace, count: int) -> list[ClusterObject]:
    return ClusterObject.objects.bulk_create(
        ClusterObject(
            workspace=workspace,
            kind="Pod",
            namespace="default",
            name=f"web-{i}",
            uid=f"uid-{i}",
            manifest={"metadata": {"name": f"web-{i}"}},
        )
        for i in range(count)
    )


def test_the_given_columns_of_every_row_are_written_in_one_statement(workspace):
    rows = stored_rows(workspace, 3)
    for i, row in enumerate(rows):
        row.manifest = {"metadata": {"name": row.name}, "spec": {"nodeName": f"n{i}"}, "ñ": [i]}
        row.node_name, row.resource_version = f"n{i}", 10 + i
    with CaptureQueriesContext(connection) as queries:
        update_rows(rows, FIELDS)

    [statement] = [q["sql"] for q in queries]
    assert statement.startswith('3 times: UPDATE "workspaces_clusterobject"')
    for i, row in enumerate(ClusterObject.objects.order_by("name")):
        assert row.node_name == f"n{i}"
        assert row.resource_version == 10 + i
        assert row.manifest == {
            "metadata": {"name": row.name},
            "spec": {"nodeName": f"n{i}"},
            "ñ": [i],
        }


def test_columns_not_named_keep_what_is_stored_and_auto_now_is_stamped(workspace):
    rows = stored_rows(workspace, 2)
    stamped_before = {row.pk: row.updated for row in ClusterObject.objects.all()}
    for row in rows:
        row.node_name, row.phase = "n1", "Running"  # phase is not written
    update_rows(rows, ["node_name", "updated"])

    for row in ClusterObject.objects.all():
        assert (row.node_name, row.phase) == ("n1", "")
        assert row.updated > stamped_before[row.pk] - dt.timedelta(microseconds=1)
        assert row.updated >= max(stamped_before.values())


def test_no_rows_send_no_statement(workspace):
    with CaptureQueriesContext(connection) as queries:
        update_rows([], FIELDS)
    assert len(queries) == 0
