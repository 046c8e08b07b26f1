"""The test API server's storage: objects, one global resourceVersion, and the change history.

Like etcd behind kube-apiserver, every write takes the next revision of a single counter; the
history of changes feeds watches from any revision not yet compacted. Admission and registry
behaviour the scheduler depends on is reproduced: namespace existence, pod defaults and
priority from its PriorityClass, status kept apart from spec, graceful deletion of bound pods,
and the pods/binding subresource.
"""

from __future__ import annotations

import base64
import bisect
import copy
import datetime
import json
import secrets
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from tests.kube import patches
from tests.kube.resources import (
    OPTIMISTIC_LOCK_MESSAGE,
    RESOURCES,
    ApiError,
    Resource,
    already_exists,
    bad_request,
    conflict,
    expired,
    forbidden,
    not_found,
    resource_for_kind,
)

INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
DEFAULT_GRACE_SECONDS = 30
Key = tuple[str, str]


@dataclass(frozen=True)
class Change:
    """One write: the revision it took and the object before and after (None when absent)."""

    rv: int
    store: str
    old: dict | None
    new: dict | None
    gone: dict | None = None
    """For a deletion: the object as the DELETED event shows it (at the deletion's revision)."""

    @property
    def type(self) -> str:
        if self.old is None:
            return "ADDED"
        return "DELETED" if self.new is None else "MODIFIED"

    @property
    def object(self) -> dict:
        return self.new if self.new is not None else self.gone


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Store:
    """Thread-safe objects keyed by storage key and (namespace, name)."""

    def __init__(self) -> None:
        self.changed = threading.Condition(threading.RLock())
        self.rv = 0
        self.compacted = 0
        self.objects: dict[str, dict[Key, dict]] = {}
        self.history: list[Change] = []
        for name in INITIAL_NAMESPACES:
            self.create(resource_for_kind("Namespace"), "", {"metadata": {"name": name}})

    # --- reads -----------------------------------------------------------------------------

    def get(self, resource: Resource, namespace: str, name: str) -> dict:
        with self.changed:
            obj = self._bucket(resource).get((namespace, name))
            if obj is None:
                raise not_found(resource, name)
            return present(resource, obj)

    def list(
        self,
        resource: Resource,
        namespace: str,
        match: Callable[[dict], bool],
        limit: int = 0,
        after: Key | None = None,
    ) -> tuple[list[dict], int, Key | None, int]:
        """Matching objects sorted by key (as etcd returns them), the list's revision, and for
        a limited list the key to continue after and how many items remain."""
        with self.changed:
            found = [
                (key, shown)
                for key, obj in sorted(self._bucket(resource).items())
                if (not namespace or key[0] == namespace)
                and (after is None or key > after)
                and match(shown := present(resource, obj))
            ]
            if limit and len(found) > limit:
                page = found[:limit]
                return [o for _, o in page], self.rv, page[-1][0], len(found) - limit
            return [o for _, o in found], self.rv, None, 0

    def changes_after(self, rv: int) -> list[Change]:
        """Every change with a revision above ``rv``; 410 when some of them were compacted."""
        with self.changed:
            if rv < self.compacted:
                raise expired(f"too old resource version: {rv} ({self.compacted})")
            start = bisect.bisect_right(self.history, rv, key=lambda change: change.rv)
            return self.history[start:]

    def compact(self) -> int:
        """Forget the history up to now: watches and lists from older revisions get 410."""
        with self.changed:
            self.compacted = self.rv
            self.history.clear()
            self.changed.notify_all()
            return self.compacted

    # --- writes ----------------------------------------------------------------------------

    def create(
        self, resource: Resource, namespace: str, body: dict, keep_status: bool = False
    ) -> dict:
        """Create as the registry does; a pod's status starts Pending unless ``keep_status``
        (test setup writing straight to the store, as a kubelet's later status would)."""
        with self.changed:
            obj = stored(resource, copy.deepcopy(body))
            meta = obj.setdefault("metadata", {})
            self._check_namespace(resource, namespace, meta)
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = meta["generateName"] + secrets.token_hex(3)[:5]
            if not meta.get("name"):
                raise ApiError(
                    422,
                    "Invalid",
                    f'{resource.kind} "" is invalid: metadata.name: Required value: name or '
                    "generateName is required",
                    {"kind": resource.kind, "group": resource.group}
                    if resource.group
                    else {"kind": resource.kind},
                )
            key = (namespace if resource.namespaced else "", meta["name"])
            if key in self._bucket(resource):
                raise already_exists(resource, meta["name"])
            for field in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"):
                meta.pop(field, None)
            meta.update(uid=str(uuid.uuid4()), creationTimestamp=now())
            if resource.namespaced:
                meta["namespace"] = namespace
            if "spec" in obj or resource.kind in ("Pod", "ReplicaSet", "StatefulSet"):
                meta["generation"] = 1
            if resource.kind == "Pod" and not keep_status:
                obj["status"] = {"phase": "Pending"}
            self._admit(resource, obj)
            return present(resource, self._write(resource, key, obj))

    def update(
        self, resource: Resource, namespace: str, name: str, body: dict, subresource: str = ""
    ) -> dict:
        with self.changed:
            old = self._existing(resource, namespace, name)
            obj = stored(resource, copy.deepcopy(body))
            meta = obj.setdefault("metadata", {})
            if meta.get("name", name) != name:
                raise bad_request(
                    f"the name of the object ({meta.get('name')}) does not match the name on "
                    f"the URL ({name})"
                )
            wanted = meta.get("resourceVersion")
            if wanted and wanted != old["metadata"]["resourceVersion"]:
                raise conflict(resource.qualified, resource, name, OPTIMISTIC_LOCK_MESSAGE)
            return present(resource, self._replace(resource, old, obj, subresource))

    def patch(
        self,
        resource: Resource,
        namespace: str,
        name: str,
        content_type: str,
        patch: object,
        subresource: str = "",
    ) -> dict:
        with self.changed:
            old = self._existing(resource, namespace, name)
            current = present(resource, old)
            if content_type.startswith("application/json-patch+json"):
                if not isinstance(patch, list):
                    raise bad_request(
                        "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
                    )
                merged = patches.json_patch(current, patch)
            elif not isinstance(patch, dict):
                raise bad_request(
                    "json: cannot unmarshal array into Go value of type map[string]interface {}"
                )
            elif content_type.startswith("application/strategic-merge-patch+json"):
                merged = patches.strategic_merge_patch(current, patch)
            elif content_type.startswith("application/merge-patch+json"):
                merged = patches.merge_patch(current, patch)
            else:
                raise ApiError(
                    415,
                    "UnsupportedMediaType",
                    f"the body of the request was in an unknown format - accepted media types "
                    f"include: application/json-patch+json, application/merge-patch+json, "
                    f"application/strategic-merge-patch+json (got {content_type})",
                )
            wanted = (
                (patch.get("metadata") or {}).get("resourceVersion")
                if isinstance(patch, dict)
                else None
            )
            if wanted and wanted != old["metadata"]["resourceVersion"]:
                raise conflict(resource.qualified, resource, name, OPTIMISTIC_LOCK_MESSAGE)
            return present(
                resource, self._replace(resource, old, stored(resource, merged), subresource)
            )

    def delete(self, resource: Resource, namespace: str, name: str, options: dict) -> dict:
        with self.changed:
            old = self._existing(resource, namespace, name)
            self._check_preconditions(resource, old, options.get("preconditions") or {})
            if resource.kind == "Namespace":
                self._delete_namespace_contents(name)
            if resource.kind == "Pod":
                # A pod is always deleted gracefully, as upstream's registry does: first written
                # with its deletionTimestamp (MODIFIED), then, with no grace left, removed.
                grace = self._grace_period(old, options.get("gracePeriodSeconds"))
                old = self._mark_deleting(resource, old, grace)
                if grace > 0:
                    return present(resource, old)
            return present(resource, self._remove(resource, old))

    def bind(self, namespace: str, name: str, binding: dict) -> None:
        """POST pods/{name}/binding: set spec.nodeName once, as the registry's BindingREST."""
        pods = resource_for_kind("Pod")
        with self.changed:
            meta = binding.get("metadata") or {}
            target = (binding.get("target") or {}).get("name")
            if meta.get("name", name) != name:
                raise bad_request("name in URL does not match name in Binding object")
            if not target:
                raise ApiError(
                    422,
                    "Invalid",
                    f'Binding.core "{name}" is invalid: target.name: Required value',
                )
            old = self._existing(pods, namespace, name)
            self._check_preconditions(
                pods, old, {"uid": meta.get("uid"), "resourceVersion": meta.get("resourceVersion")}
            )
            why = self._unbindable(old)
            if why:
                raise conflict("pods/binding", pods, name, why)
            pod = copy.deepcopy(old)
            pod["spec"]["nodeName"] = target
            pod.setdefault("status", {}).pop("nominatedNodeName", None)
            if meta.get("annotations"):
                pod["metadata"].setdefault("annotations", {}).update(meta["annotations"])
            set_condition(pod["status"], {"type": "PodScheduled", "status": "True"})
            self._write(pods, (namespace, name), pod, old)

    # --- helpers ---------------------------------------------------------------------------

    def _bucket(self, resource: Resource) -> dict[Key, dict]:
        return self.objects.setdefault(resource.storage_key, {})

    def _existing(self, resource: Resource, namespace: str, name: str) -> dict:
        obj = self._bucket(resource).get((namespace if resource.namespaced else "", name))
        if obj is None:
            raise not_found(resource, name)
        return obj

    def _write(self, resource: Resource, key: Key, obj: dict, old: dict | None = None) -> dict:
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self._bucket(resource)[key] = obj
        self._record(resource, old, obj)
        return obj

    def _remove(self, resource: Resource, old: dict) -> dict:
        self.rv += 1
        gone = copy.deepcopy(old)
        gone["metadata"]["resourceVersion"] = str(self.rv)
        del self._bucket(resource)[(old["metadata"].get("namespace", ""), old["metadata"]["name"])]
        self._record(resource, old, None, gone)
        return gone

    def _record(
        self, resource: Resource, old: dict | None, new: dict | None, gone: dict | None = None
    ) -> None:
        copies = (copy.deepcopy(o) for o in (old, new, gone))
        self.history.append(Change(self.rv, resource.storage_key, *copies))
        self.changed.notify_all()

    def _replace(self, resource: Resource, old: dict, obj: dict, subresource: str) -> dict:
        """Write ``obj`` over ``old`` keeping what the request may not change."""
        meta = obj.setdefault("metadata", {})
        for field in (
            "uid",
            "creationTimestamp",
            "namespace",
            "name",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ):
            if field in old["metadata"]:
                meta[field] = old["metadata"][field]
            else:
                meta.pop(field, None)
        if subresource == "status":
            obj = {**copy.deepcopy(old), "status": obj.get("status", {})}
        elif resource.has_status:
            obj["status"] = copy.deepcopy(old.get("status", {}))
        if obj.get("spec") != old.get("spec") and "generation" in old["metadata"]:
            obj["metadata"]["generation"] = old["metadata"]["generation"] + 1
        obj["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if obj == old:
            return old
        key = (old["metadata"].get("namespace", ""), old["metadata"]["name"])
        return self._write(resource, key, obj, old)

    def _check_namespace(self, resource: Resource, namespace: str, meta: dict) -> None:
        if not resource.namespaced:
            return
        if meta.get("namespace", namespace) != namespace:
            raise bad_request(
                "the namespace of the provided object does not match the namespace sent on the "
                "request"
            )
        namespaces = resource_for_kind("Namespace")
        if ("", namespace) not in self._bucket(namespaces):
            raise not_found(namespaces, namespace)

    def _admit(self, resource: Resource, obj: dict) -> None:
        if resource.kind == "Pod":
            self._admit_pod(obj)
        elif resource.kind == "Namespace":
            obj.setdefault("status", {})["phase"] = "Active"
            obj.setdefault("spec", {"finalizers": ["kubernetes"]})
            labels = obj["metadata"].setdefault("labels", {})
            labels["kubernetes.io/metadata.name"] = obj["metadata"]["name"]

    def _admit_pod(self, pod: dict) -> None:
        """Defaults and the Priority admission plugin, which fill what the scheduler reads."""
        spec = pod.setdefault("spec", {})
        spec.setdefault("schedulerName", "default-scheduler")
        spec.setdefault("restartPolicy", "Always")
        spec.setdefault("dnsPolicy", "ClusterFirst")
        spec.setdefault("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
        spec.setdefault("enableServiceLinks", True)
        pod.setdefault("status", {}).setdefault("phase", "Pending")
        name = pod["metadata"]["name"]
        priority, policy = 0, "PreemptLowerPriority"
        classes = self._bucket(resource_for_kind("PriorityClass")).values()
        chosen = spec.get("priorityClassName")
        found = (
            [c for c in classes if c["metadata"]["name"] == chosen]
            if chosen
            else [c for c in classes if c.get("globalDefault")]
        )
        if chosen and not found:
            raise forbidden(
                None, "pods", "", name, f"no PriorityClass with name {chosen} was found"
            )
        if found:
            priority = found[0].get("value", 0)
            policy = found[0].get("preemptionPolicy", policy)
            spec["priorityClassName"] = found[0]["metadata"]["name"]
        if "priority" in spec and spec["priority"] != priority:
            raise forbidden(
                None,
                "pods",
                "",
                name,
                f"the integer value of priority ({spec['priority']}) must not be provided in pod "
                f"spec; priority admission controller computed {priority} from the given "
                f"PriorityClass name",
            )
        spec["priority"] = priority
        spec.setdefault("preemptionPolicy", policy)

    @staticmethod
    def _check_preconditions(resource: Resource, obj: dict, preconditions: dict) -> None:
        meta = obj["metadata"]
        key = f"/registry/{resource.plural}/{meta.get('namespace', '')}/{meta['name']}".replace(
            "//", "/"
        )
        for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
            wanted = preconditions.get(field)
            if wanted and wanted != meta[field]:
                why = (
                    f"StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, "
                    f"AdditionalErrorMsg: Precondition failed: {label} in precondition: "
                    f"{wanted}, {label} in object meta: {meta[field]}"
                )
                raise conflict(resource.qualified, resource, meta["name"], why)

    @staticmethod
    def _unbindable(pod: dict) -> str:
        name = pod["metadata"]["name"]
        if pod["metadata"].get("deletionTimestamp"):
            return f"pod {name} is being deleted, cannot be assigned to a host"
        if pod["spec"].get("nodeName"):
            return f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"'
        if pod["spec"].get("schedulingGates"):
            return f"pod {name} has non-empty .spec.schedulingGates"
        return ""

    @staticmethod
    def _grace_period(pod: dict, grace: int | None) -> int:
        """Bound, running pods wait for their kubelet; unbound or finished ones go at once."""
        if grace is None:
            grace = pod["spec"].get("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
        unbound = not pod["spec"].get("nodeName")
        finished = pod.get("status", {}).get("phase") in ("Succeeded", "Failed")
        return 0 if unbound or finished else max(grace, 0)

    def _mark_deleting(self, resource: Resource, old: dict, grace: int) -> dict:
        """Stamp the deletion; a later delete may only shorten the grace period."""
        meta = old["metadata"]
        if meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds", 0) <= grace:
            return old
        pod = copy.deepcopy(old)
        at = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=grace)
        pod["metadata"]["deletionTimestamp"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        pod["metadata"]["deletionGracePeriodSeconds"] = grace
        return self._write(
            resource, (old["metadata"]["namespace"], old["metadata"]["name"]), pod, old
        )

    def _delete_namespace_contents(self, namespace: str) -> None:
        done = set()
        for resource in RESOURCES:
            if resource.namespaced and resource.storage_key not in done:
                done.add(resource.storage_key)
                for (ns, _), obj in list(self._bucket(resource).items()):
                    if ns == namespace:
                        self._remove(resource, obj)


def set_condition(status: dict, condition: dict) -> None:
    """Add or update a condition by type, stamping lastTransitionTime when status changes."""
    conditions = status.setdefault("conditions", [])
    for existing in conditions:
        if existing.get("type") == condition["type"]:
            if existing.get("status") != condition["status"]:
                existing["lastTransitionTime"] = now()
            existing.update(condition)
            return
    conditions.append({**condition, "lastProbeTime": None, "lastTransitionTime": now()})


# --- the two Event APIs share one storage, kept in the core/v1 shape -------------------------

_EVENT_FIELDS = (  # (events.k8s.io/v1 name, core/v1 name)
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
)


def stored(resource: Resource, obj: dict) -> dict:
    """The object as storage keeps it (events.k8s.io Events become core/v1 Events)."""
    obj.pop("kind", None)
    obj.pop("apiVersion", None)
    if resource.storage_key == "events" and resource.group:
        for new, old in _EVENT_FIELDS:
            if new in obj:
                obj[old] = obj.pop(new)
    return obj


def present(resource: Resource, obj: dict) -> dict:
    """A copy of a stored object as ``resource``'s API version shows it, kind included."""
    obj = copy.deepcopy(obj)
    if resource.storage_key == "events" and resource.group:
        for new, old in _EVENT_FIELDS:
            if old in obj:
                obj[new] = obj.pop(old)
    return {"kind": resource.kind, "apiVersion": resource.api_version, **obj}


def encode_continue(rv: int, after: Key) -> str:
    return base64.b64encode(json.dumps({"rv": rv, "after": list(after)}).encode()).decode()


def decode_continue(token: str) -> tuple[int, Key]:
    try:
        data = json.loads(base64.b64decode(token))
        return int(data["rv"]), (data["after"][0], data["after"][1])
    except (ValueError, KeyError, IndexError, TypeError):
        raise bad_request(
            "continue key is not valid: incorrect encoded start resourceVersion "
            "(version meta.k8s.io/v1)"
        ) from None
