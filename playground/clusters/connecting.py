"""A connection's API client, and Test connection for a stored or a new connection.

Shared by the pages and ``manage.py cluster``, so both accept and refuse the same things.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from kubernetes.client import ApiClient

from playground.clusters.access import AccessReport, check_access
from playground.clusters.encryption import EncryptionKeyError
from playground.clusters.kubeconfig import (
    Kubeconfig,
    KubeconfigError,
    api_client_from_kubeconfig,
    in_cluster_api_client,
    parse_kubeconfig,
)
from playground.clusters.models import ClusterConnection

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Target:
    """How to reach a cluster, before it is stored: a checked kubeconfig and context, or the
    in-cluster account."""

    kubeconfig_text: str = ""
    context: str = ""
    in_cluster: bool = False
    kubeconfig: Kubeconfig | None = None

    @property
    def server(self) -> str:
        return self.kubeconfig.server(self.context) if self.kubeconfig else ""

    def client(self) -> ApiClient:
        if self.in_cluster:
            return in_cluster_api_client()
        assert self.kubeconfig is not None
        return api_client_from_kubeconfig(self.kubeconfig, self.context)


def target_from_text(text: str, context: str = "") -> Target:
    """The target a kubeconfig text and context name; raises KubeconfigError."""
    kubeconfig = parse_kubeconfig(text)
    return Target(
        kubeconfig_text=text, context=kubeconfig.choose_context(context), kubeconfig=kubeconfig
    )


def target_of(connection: ClusterConnection) -> Target:
    """The stored connection's target; raises KubeconfigError or EncryptionKeyError."""
    if connection.in_cluster:
        return Target(in_cluster=True)
    return target_from_text(connection.kubeconfig_text(), connection.context)


def api_client(connection: ClusterConnection) -> ApiClient:
    """The stored connection's API client (for the mirror and the second scheduler)."""
    return target_of(connection).client()


def probe(target: Target) -> AccessReport:
    """Test connection for a target; every failure is the report's problem."""
    try:
        client = target.client()
    except KubeconfigError as err:
        return AccessReport(problem=str(err))
    with client:
        return check_access(client, target.server)


def retest(connection: ClusterConnection) -> AccessReport:
    """Test connection for a stored connection, kept as its ``last_test``."""
    try:
        report = probe(target_of(connection))
    except (KubeconfigError, EncryptionKeyError) as err:
        report = AccessReport(problem=str(err))
    connection.last_test = report.to_dict()
    connection.save(update_fields=["last_test", "updated"])
    logger.info(
        "connection %s tested: %s",
        connection.pk,
        report.problem or f"{report.version}, {len(report.denied())} mirror permissions denied",
    )
    return report


def create_connection(
    owner: object,
    name: str,
    target: Target,
    report: AccessReport,
    *,
    namespaces: str = "",
    label_selector: str = "",
) -> ClusterConnection:
    """Stores a connection in one transaction, with the report of the test it passed (or that
    its owner chose to save anyway)."""
    connection = ClusterConnection(
        name=name,
        owner=owner,
        in_cluster=target.in_cluster,
        context="" if target.in_cluster else target.context,
        server=target.server,
        namespaces=namespaces,
        label_selector=label_selector,
        last_test=report.to_dict(),
    )
    connection.set_kubeconfig(target.kubeconfig_text)
    with transaction.atomic():
        connection.save()
    logger.info("connection %s (%s) created", connection.pk, connection.mode)
    return connection
