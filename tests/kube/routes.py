"""Request routing for the test API server: discovery, resources, subresources, SSARs.

Paths are split as upstream's RequestInfoFactory does, so authorization sees the same verb,
group, resource, subresource, namespace and name kube-apiserver would, and a denied request
gets the same message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.kube.resources import (
    ALL_VERBS,
    GROUP_VERSIONS,
    RESOURCES,
    ApiError,
    Attributes,
    Resource,
    bad_request,
    find_resource,
    method_not_allowed,
    page_not_found,
)
from tests.kube.selectors import field_selector, label_selector
from tests.kube.store import decode_continue, encode_continue

VERSION = {
    "major": "1",
    "minor": "36",
    "emulationMajor": "1",
    "emulationMinor": "36",
    "minCompatibilityMajor": "1",
    "minCompatibilityMinor": "35",
    "gitVersion": "v1.36.2",
    "gitCommit": "6b3bd1e1b8b9f9b0b6f5b1ac8a4c1d2e3f405162",
    "gitTreeState": "clean",
    "buildDate": "2026-10-14T09:12:41Z",
    "goVersion": "go1.26.2",
    "compiler": "gc",
    "platform": "linux/amd64",
}
PUBLIC_PATHS = ("/version", "/healthz", "/livez", "/readyz")
NAMESPACE_SUBRESOURCES = ("status", "finalize")
SSAR_GROUP = "authorization.k8s.io"
SUBRESOURCE_VERBS = {"status": ["get", "patch", "update"], "binding": ["create"]}


@dataclass(frozen=True)
class Target:
    """A parsed resource path."""

    resource: Resource
    namespace: str
    name: str
    subresource: str


class Router:
    """Answers one request: returns (code, body), or (code, None) when it streamed itself."""

    def __init__(self, handler, user: str, query: dict, body: object) -> None:
        self.handler = handler
        self.api = handler.api
        self.store = handler.api.store
        self.user = user
        self.query = query
        self.body = body

    def route(self, method: str, path: str) -> tuple[int, object]:
        path = "/" + path.strip("/")
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return self._non_resource(method, path, parts)
        if not rest:
            return self._non_resource(method, path, parts)
        if (group, rest) == (SSAR_GROUP, ["selfsubjectaccessreviews"]) and method == "POST":
            self._authorize(Attributes("create", group, "selfsubjectaccessreviews"))
            return 201, self._self_subject_access_review()
        target = self._target(group, version, rest)
        verb = self._verb(method, target)
        self._authorize(
            Attributes(
                verb,
                group,
                target.resource.plural,
                target.subresource,
                target.namespace,
                target.name,
            )
        )
        return self._dispatch(verb, target)

    # --- parsing and authorization ---------------------------------------------------------

    def _target(self, group: str, version: str, rest: list[str]) -> Target:
        namespace = ""
        if rest[0] == "namespaces" and len(rest) > 1:
            namespace = rest[1]
            if len(rest) > 2 and rest[2] not in NAMESPACE_SUBRESOURCES:
                rest = rest[2:]
        resource = find_resource(group, version, rest[0])
        if resource is None or len(rest) > 3:
            raise page_not_found()
        if resource.kind == "Namespace":
            namespace, rest = "", ["namespaces", *rest[1:]]
        name = rest[1] if len(rest) > 1 else ""
        sub = rest[2] if len(rest) > 2 else ""
        if sub and sub not in resource.subresources:
            raise page_not_found()
        if resource.namespaced and name and not namespace:
            raise page_not_found()
        return Target(resource, namespace, name, sub)

    def _verb(self, method: str, target: Target) -> str:
        if method == "GET":
            if target.name:
                return "get"
            return "watch" if parse_bool(self.query.get("watch")) else "list"
        verbs = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
        if method == "DELETE" and not target.name:
            return "deletecollection"
        if method not in verbs or (method != "POST" and not target.name):
            raise method_not_allowed(method, target.resource)
        return verbs[method]

    def _authorize(self, attrs: Attributes) -> None:
        if not self.api.allowed(self.user, attrs):
            raise attrs.forbidden(self.user)

    # --- resources -------------------------------------------------------------------------

    def _dispatch(self, verb: str, target: Target) -> tuple[int, object]:
        resource, ns, name, sub = target.resource, target.namespace, target.name, target.subresource
        if sub == "binding" or resource.kind == "Binding":
            if verb != "create":
                raise method_not_allowed(verb, resource)
            binding = self._object()
            self.store.bind(ns, name or (binding.get("metadata") or {}).get("name", ""), binding)
            return 201, {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Success",
                "code": 201,
            }
        if verb in ("list", "watch"):
            self._check_integers("timeoutSeconds", "limit")
        if verb == "get":
            return 200, self.store.get(resource, ns, name)
        if verb == "list":
            return 200, self._list(resource, ns)
        if verb == "watch":
            self.handler.stream_watch(resource, ns, self.query, self._match(resource))
            return 200, None
        if verb == "create":
            if name:
                raise method_not_allowed(verb, resource)
            return 201, self.store.create(resource, ns, self._object())
        if verb == "update":
            return 200, self.store.update(resource, ns, name, self._object(), sub)
        if verb == "patch":
            content_type = self.handler.headers.get("Content-Type", "")
            return 200, self.store.patch(resource, ns, name, content_type, self.body, sub)
        if verb == "delete":
            return 200, self.store.delete(resource, ns, name, self._delete_options())
        return 200, self._delete_collection(resource, ns)

    def _check_integers(self, *names: str) -> None:
        """ListOptions' integers, decoded as Go's strconv.ParseInt does."""
        for name in names:
            text = self.query.get(name)
            if text is not None and not re.fullmatch(r"[+-]?[0-9]+", text):
                raise bad_request(f'strconv.ParseInt: parsing "{text}": invalid syntax')

    def _object(self) -> dict:
        if not isinstance(self.body, dict):
            raise bad_request("the body of the request must be a JSON object")
        return self.body

    def _delete_options(self) -> dict:
        options = dict(self.body) if isinstance(self.body, dict) else {}
        if "gracePeriodSeconds" in self.query:
            options["gracePeriodSeconds"] = int(self.query["gracePeriodSeconds"])
        return options

    def _match(self, resource: Resource):
        labels = label_selector(self.query.get("labelSelector"))
        fields = field_selector(self.query.get("fieldSelector"), resource.field_labels)
        return lambda obj: labels(obj) and fields(obj)

    def _list(self, resource: Resource, namespace: str) -> dict:
        limit = int(self.query.get("limit") or 0)
        after = None
        token = self.query.get("continue")
        if token:
            _, after = decode_continue(token)
        self._check_list_version(self.query.get("resourceVersion", ""))
        items, rv, next_key, remaining = self.store.list(
            resource, namespace, self._match(resource), limit, after
        )
        metadata: dict = {"resourceVersion": str(rv)}
        if next_key is not None:
            metadata["continue"] = encode_continue(rv, next_key)
            metadata["remainingItemCount"] = remaining
        for item in items:
            item.pop("kind", None)
            item.pop("apiVersion", None)
        return {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version,
            "metadata": metadata,
            "items": items,
        }

    def _check_list_version(self, text: str) -> None:
        """A list is served from the newest state; a version from the future is a 504."""
        if not text or text == "0":
            return
        try:
            wanted = int(text)
        except ValueError:
            raise bad_request(f"invalid resource version: {text!r}") from None
        current = self.store.rv
        if wanted > current:
            raise ApiError(
                504,
                "Timeout",
                f"Too large resource version: {wanted}, current: {current}",
                {
                    "causes": [
                        {
                            "reason": "ResourceVersionTooLarge",
                            "message": "Too large resource version",
                        }
                    ],
                    "retryAfterSeconds": 1,
                },
            )
        if self.query.get("resourceVersionMatch") == "Exact" and wanted != current:
            raise ApiError(
                410, "Expired", f"too old resource version: {wanted} ({self.store.compacted})"
            )

    def _delete_collection(self, resource: Resource, namespace: str) -> dict:
        items, _, _, _ = self.store.list(resource, namespace, self._match(resource))
        deleted = [
            self.store.delete(
                resource, item["metadata"].get("namespace", ""), item["metadata"]["name"], {}
            )
            for item in items
        ]
        rv = str(self.store.rv)
        return {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version,
            "metadata": {"resourceVersion": rv},
            "items": deleted,
        }

    # --- authorization reviews -------------------------------------------------------------

    def _self_subject_access_review(self) -> dict:
        spec = (self._object().get("spec") or {}) if self.body else {}
        attrs = spec.get("resourceAttributes")
        if attrs:
            allowed = self.api.allowed(
                self.user,
                Attributes(
                    attrs.get("verb", ""),
                    attrs.get("group", ""),
                    attrs.get("resource", ""),
                    attrs.get("subresource", ""),
                    attrs.get("namespace", ""),
                    attrs.get("name", ""),
                ),
            )
        else:
            path = (spec.get("nonResourceAttributes") or {}).get("path", "")
            allowed = self.user != "system:anonymous" or path in PUBLIC_PATHS
        return {
            "kind": "SelfSubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": None},
            "spec": spec,
            "status": {"allowed": allowed},
        }

    # --- discovery and other non-resource paths --------------------------------------------

    def _non_resource(self, method: str, path: str, parts: list[str]) -> tuple[int, object]:
        if self.user == "system:anonymous" and path not in PUBLIC_PATHS:
            raise ApiError(
                403,
                "Forbidden",
                f'forbidden: User "system:anonymous" cannot {method.lower()} path "{path}"',
                {},
            )
        if method != "GET":
            raise page_not_found()
        if path == "/version":
            return 200, VERSION
        if path in ("/healthz", "/livez", "/readyz"):
            return 200, "ok"
        if parts == ["api"]:
            return 200, {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [
                    {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{self.api.port}"}
                ],
            }
        if parts == ["apis"]:
            groups = [_group(g) for g in GROUP_VERSIONS if g]
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        if len(parts) == 2 and parts[0] == "apis" and parts[1] in GROUP_VERSIONS:
            return 200, {"kind": "APIGroup", "apiVersion": "v1", **_group(parts[1])}
        group = "" if parts[:1] == ["api"] else parts[1] if len(parts) > 1 else None
        if group is not None and len(parts) in (2, 3) and GROUP_VERSIONS.get(group) == parts[-1]:
            return 200, _resource_list(group)
        raise page_not_found()


def parse_bool(text: str | None) -> bool:
    """Go's strconv.ParseBool, which the server's query decoding uses (the client sends True)."""
    return text in ("1", "t", "T", "true", "TRUE", "True")


def _group(group: str) -> dict:
    version = {"groupVersion": f"{group}/{GROUP_VERSIONS[group]}", "version": GROUP_VERSIONS[group]}
    return {"name": group, "versions": [version], "preferredVersion": version}


def _resource_list(group: str) -> dict:
    version = GROUP_VERSIONS[group]
    resources = []
    for resource in RESOURCES:
        if resource.group != group:
            continue
        resources.append(
            {
                "name": resource.plural,
                "singularName": resource.kind.lower(),
                "namespaced": resource.namespaced,
                "kind": resource.kind,
                "verbs": ALL_VERBS,
            }
        )
        for sub in resource.subresources:
            resources.append(
                {
                    "name": f"{resource.plural}/{sub}",
                    "singularName": "",
                    "namespaced": resource.namespaced,
                    "kind": "Binding" if sub == "binding" else resource.kind,
                    "verbs": SUBRESOURCE_VERBS[sub],
                }
            )
    if group == SSAR_GROUP:
        resources.append(
            {
                "name": "selfsubjectaccessreviews",
                "singularName": "selfsubjectaccessreview",
                "namespaced": False,
                "kind": "SelfSubjectAccessReview",
                "verbs": ["create"],
            }
        )
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": resources,
    }
