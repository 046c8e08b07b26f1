"""What kube-scheduler writes to the API server, written the way it writes it.

The second scheduler makes exactly these calls, through the official client:

- **bind**: ``POST pods/{name}/binding`` with a Binding naming the pod's uid and the node
  (upstream's DefaultBinder). The server answers 201 with a Status, which the Python client
  cannot read as a V1Binding (kubernetes-client/python#825): the call is made with
  ``_preload_content=False``, and so are the others (nothing here needs their answers). Each
  answer is still read to its end (``drained``): only then does urllib3 give the connection
  back to its pool, and an answer left unread made every call open a new TLS connection.
- **pod status**: a strategic-merge patch of ``pods/{name}/status`` holding the difference
  between the old and the new status, as upstream's ``util.PatchPodStatus`` computes it with
  ``CreateTwoWayMergePatch``: the PodScheduled condition (``lastTransitionTime`` moves only
  when its status changes, as ``UpdatePodCondition`` does) and ``nominatedNodeName`` (null
  to clear it). DisruptionTarget on a preemption victim goes the same way.
- **pod group status**: a strategic-merge patch of ``podgroups/{name}/status``
  (``scheduling.k8s.io/v1alpha2``) setting the PodGroupScheduled condition, as upstream's
  ``util.PatchPodGroupStatus`` sends the difference ``apimeta.SetStatusCondition`` made
  (``lastTransitionTime`` moves only when the condition's status changes).
- **victims**: ``DELETE pods/{name}`` (after the DisruptionTarget patch).
- **events**: ``events.k8s.io/v1`` Events as client-go's events recorder makes them: named
  ``<object>.<hex of unix nanoseconds>``, ``eventTime`` a MicroTime, ``reportingController``
  the profile's schedulerName and ``reportingInstance`` ``<schedulerName>-<hostname>``.

Nothing here logs a request or a response body.
"""

from __future__ import annotations

import json
import logging
import socket
from datetime import UTC, datetime
from typing import Any

from kubernetes.client import ApiClient, CoreV1Api, EventsV1Api
from kubernetes.client.exceptions import ApiException

from framework.cluster.interface import BindError, NotFoundError
from framework.util.clock import Clock
from playground.clusters.leader import micro_time
from playground.clusters.problems import describe

logger = logging.getLogger(__name__)

NOT_FOUND = 404
POD_GROUP_API = "scheduling.k8s.io/v1alpha2"


class LiveWrites:
    """The API calls of kube-scheduler, on one cluster."""

    def __init__(self, api_client: ApiClient, clock: Clock, hostname: str | None = None) -> None:
        self.client = api_client
        self.core = CoreV1Api(api_client)
        self.events = EventsV1Api(api_client)
        self.clock = clock
        self.hostname = hostname or socket.gethostname()

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """Binds through the Binding subresource; a refusal raises BindError with the
        server's message."""
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": namespace, "uid": uid},
            "target": {"kind": "Node", "name": node_name},
        }
        try:
            drained(
                self.core.create_namespaced_pod_binding(
                    name, namespace, binding, _preload_content=False
                )
            )
        except Exception as err:
            raise BindError(server_message(err)) from None

    def patch_pod_status(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """Sends a strategic-merge patch of the pod's status (a dict is sent as one)."""
        try:
            drained(
                self.core.patch_namespaced_pod_status(
                    name, namespace, patch, _preload_content=False
                )
            )
        except ApiException as err:
            if err.status == NOT_FOUND:
                raise NotFoundError(server_message(err)) from None
            raise

    def patch_pod_group_status(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """Sends a strategic-merge patch of the PodGroup's status."""
        path = f"/apis/{POD_GROUP_API}/namespaces/{namespace}/podgroups/{name}/status"
        try:
            drained(
                self.client.call_api(
                    path,
                    "PATCH",
                    header_params={
                        "Content-Type": "application/strategic-merge-patch+json",
                        "Accept": "application/json",
                    },
                    body=patch,
                    auth_settings=["BearerToken"],
                    _preload_content=False,
                    _return_http_data_only=True,
                )
            )
        except ApiException as err:
            if err.status == NOT_FOUND:
                raise NotFoundError(server_message(err)) from None
            raise

    def delete_pod(self, namespace: str, name: str) -> None:
        try:
            drained(self.core.delete_namespaced_pod(name, namespace, _preload_content=False))
        except ApiException as err:
            if err.status == NOT_FOUND:
                raise NotFoundError(server_message(err)) from None
            raise

    def create_event(
        self,
        regarding: dict[str, Any],
        related: dict[str, Any] | None,
        event_type: str,
        reason: str,
        action: str,
        note: str,
        reporting_controller: str,
        at: float | None = None,
    ) -> None:
        """Creates the event made at ``at`` (default: now); a failure is logged (upstream's
        recorder drops it too)."""
        now = self.clock.now() if at is None else at
        namespace = regarding.get("namespace") or "default"
        event = {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {
                "name": f"{regarding['name']}.{int(now * 1e9):x}",
                "namespace": namespace,
            },
            "eventTime": micro_time(now),
            "reportingController": reporting_controller,
            "reportingInstance": f"{reporting_controller}-{self.hostname}",
            "action": action,
            "reason": reason,
            "regarding": regarding,
            "note": note,
            "type": event_type,
        }
        if related is not None:
            event["related"] = related
        try:
            drained(self.events.create_namespaced_event(namespace, event, _preload_content=False))
        except Exception as err:
            logger.warning(
                "event %s of %s/%s was not recorded: %s",
                reason,
                namespace,
                regarding["name"],
                describe(err),
            )


def status_patch(
    status: dict[str, Any],
    condition: dict[str, str] | None,
    nominated_node_name: str | None,
    now: float,
) -> dict[str, Any] | None:
    """The strategic-merge patch from ``status`` to it with ``condition`` set and
    ``nominatedNodeName`` changed (None: unchanged); None when nothing changes."""
    patch: dict[str, Any] = {}
    conditions = [dict(c) for c in status.get("conditions") or []]
    if condition is not None:
        changed = _set_condition(conditions, condition, now)
        if changed is not None:
            patch["$setElementOrder/conditions"] = [{"type": c["type"]} for c in conditions]
            patch["conditions"] = [changed]
    if nominated_node_name is not None and nominated_node_name != (
        status.get("nominatedNodeName") or ""
    ):
        patch["nominatedNodeName"] = nominated_node_name or None
    return {"status": patch} if patch else None


def pod_group_status_patch(
    old: dict[str, Any], new: dict[str, Any], now: float
) -> dict[str, Any] | None:
    """The strategic-merge patch from a PodGroup's ``old`` status to ``new`` (the engine's,
    which carries no times), each changed condition given a ``lastTransitionTime`` as
    ``apimeta.SetStatusCondition`` does: now, or the old one while its status stays."""
    before = {c.get("type"): c for c in old.get("conditions") or []}
    conditions = [dict(c) for c in new.get("conditions") or []]
    changed = []
    for condition in conditions:
        previous = before.get(condition.get("type")) or {}
        kept = previous.get("status") == condition.get("status")
        condition["lastTransitionTime"] = previous.get("lastTransitionTime") if kept else None
        condition["lastTransitionTime"] = condition["lastTransitionTime"] or _time(now)
        if condition != previous:
            changed.append(condition)
    if not changed:
        return None
    order = [{"type": c.get("type")} for c in conditions]
    return {"status": {"$setElementOrder/conditions": order, "conditions": changed}}


def _set_condition(
    conditions: list[dict[str, Any]], condition: dict[str, str], now: float
) -> dict[str, Any] | None:
    """Sets the condition in the list as UpdatePodCondition does; returns its patch entry (the
    whole condition when new, the merge key and changed fields otherwise), None if unchanged."""
    wanted = {
        "type": condition["type"],
        "status": condition["status"],
        "lastProbeTime": None,
        "lastTransitionTime": _time(now),
        "reason": condition.get("reason", ""),
        "message": condition.get("message", ""),
    }
    wanted = {key: value for key, value in wanted.items() if value != ""}
    for index, old in enumerate(conditions):
        if old.get("type") != condition["type"]:
            continue
        if old.get("status") == wanted["status"]:
            wanted["lastTransitionTime"] = old.get("lastTransitionTime")
        changes = {
            key: wanted.get(key)
            for key in sorted({*old, *wanted})
            if key != "type" and old.get(key) != wanted.get(key)
        }
        if not changes:
            return None
        conditions[index] = wanted
        return {"type": condition["type"], **changes}
    conditions.append(wanted)
    return dict(sorted(wanted.items()))


def drained(response: Any) -> None:
    """Reads an answer to its end, which hands its connection back to the client's pool."""
    response.drain_conn()
    response.release_conn()


def _time(seconds: float) -> str:
    """metav1.Time: RFC 3339 to the second, UTC."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def server_message(err: BaseException) -> str:
    """The server's Status message (never the client's exception text, which quotes response
    headers), or the kind of failure."""
    if isinstance(err, ApiException) and err.body:
        try:
            message = json.loads(err.body).get("message")
        except (ValueError, AttributeError):
            message = None
        if message:
            return str(message)
    return describe(err)
