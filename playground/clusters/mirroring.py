"""Start and stop mirroring: linking a connection to the workspace that stands for its cluster.

"Start mirroring" makes a workspace named after the connection (its owner's, with the default
configuration) and links it; the watchdog, or the page at once, starts the mirror, which fills
it from the cluster. "Stop mirroring" unlinks it: the running mirror notices within a second
and ends, and the workspace stays, as an ordinary one holding the cluster's last known state.
Shared by the pages and ``manage.py cluster``.
"""

from __future__ import annotations

from django.db import transaction

from playground.clusters.models import ClusterConnection
from playground.workspaces.models import Workspace
from playground.workspaces.services import create_workspace, workspace_name_problem


class MirroringError(ValueError):
    """Why mirroring cannot start (or stop); the message names the problem."""


def start_mirroring(connection: ClusterConnection, name: str = "") -> Workspace:
    """Links a new workspace named ``name`` (default: the connection's) to the connection.

    Raises MirroringError when it mirrors already or the name is taken.
    """
    if connection.workspace_id is not None:
        raise MirroringError(
            f'connection "{connection.name}" mirrors workspace "{connection.workspace}" already'
        )
    name = (name or connection.name).strip()
    problem = workspace_name_problem(connection.owner, name)
    if problem:
        raise MirroringError(f"workspace name: {problem}")
    with transaction.atomic():
        workspace = create_workspace(
            connection.owner,
            name,
            description=f'Mirror of the cluster of connection "{connection.name}".',
        )
        connection.workspace = workspace
        connection.save(update_fields=["workspace", "updated"])
    return workspace


def stop_mirroring(connection: ClusterConnection) -> Workspace | None:
    """Unlinks the connection's workspace (which stays, editable); returns it."""
    workspace = connection.workspace
    if workspace is None:
        raise MirroringError(f'connection "{connection.name}" mirrors no workspace')
    connection.workspace = None
    connection.second_scheduler = False
    connection.save(update_fields=["workspace", "second_scheduler", "updated"])
    return workspace


def mirrored_by(workspace: Workspace) -> ClusterConnection | None:
    """The connection whose cluster the workspace stands for, if any: its objects come from
    that cluster, so the browser may not edit them."""
    return ClusterConnection.objects.filter(workspace=workspace).first()
