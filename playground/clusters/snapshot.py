"""Import: a one-shot copy of a connection's cluster into a new, ordinary workspace.

The copy is the mirror's initial list (a ``Mirror`` over the new workspace, ``sync()`` once),
so it follows the connection's selectors and kinds exactly as mirroring would. Then nothing
links the workspace to the cluster: it is edited, scheduled and exported like any other.

An import is all or nothing: if any kind cannot be listed (unreachable, 403...) the new
workspace is deleted and the error names the kind. The workspace is not built inside one
transaction because the lists can take long, and a transaction would hold the database's
write lock (SQLite) for all that time.
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils import timezone
from kubernetes.client import ApiClient

from framework.util.clock import RealClock
from playground.clusters.connecting import api_client
from playground.clusters.encryption import EncryptionKeyError
from playground.clusters.kubeconfig import KubeconfigError
from playground.clusters.mirror import Mirror
from playground.clusters.models import ClusterConnection
from playground.scheduling.workspace_deletion import delete_workspace
from playground.workspaces.models import Workspace
from playground.workspaces.services import create_workspace, workspace_name_problem

logger = logging.getLogger(__name__)


class ImportFailed(Exception):
    """Why an import made no workspace, in words for the page and the command."""


def default_name(connection: ClusterConnection) -> str:
    return f"{connection.name} import {timezone.now():%Y-%m-%d %H:%M:%S}"


def import_snapshot(
    connection: ClusterConnection,
    owner: Any,
    name: str = "",
    *,
    client: ApiClient | None = None,
) -> Workspace:
    """A new workspace of ``owner`` holding what the connection's cluster holds now (its
    selectors, every kind the mirror follows); ImportFailed if it cannot be made whole."""
    name = name.strip() or default_name(connection)
    problem = workspace_name_problem(owner, name)
    if problem:
        raise ImportFailed(f"workspace name “{name}”: {problem}")
    own_client = client is None
    if client is None:
        try:
            client = api_client(connection)
        except (KubeconfigError, EncryptionKeyError) as err:
            raise ImportFailed(f"import failed: {err}") from None
    workspace = create_workspace(
        owner, name, description=f"Imported from connection “{connection.name}”."
    )
    try:
        _copy(connection, workspace, client)
    except BaseException:
        delete_workspace(workspace)
        raise
    finally:
        if own_client:
            client.close()
    logger.info("connection %s imported into workspace %s", connection.pk, workspace.pk)
    return workspace


def _copy(connection: ClusterConnection, workspace: Workspace, client: ApiClient) -> None:
    mirror = Mirror(connection, workspace, client, RealClock())
    mirror.sync()
    errors = [kind["error"] for kind in mirror.state().values() if kind["error"]]
    if errors:
        others = f" (and {len(errors) - 1} other kinds failed)" if len(errors) > 1 else ""
        raise ImportFailed(f"import failed, nothing imported: {errors[0]}{others}")
