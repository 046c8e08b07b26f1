"""Kubeconfigs: parsed and checked before anything is stored, and made into API clients.

Only self-contained kubeconfigs are accepted: certificates and keys embedded as ``*-data``,
tokens inline. A path (``certificate-authority``, ``client-certificate``, ``client-key``,
``tokenFile``) names a file on the machine that uploaded it, not on the playground's, and a
kubeconfig that runs a program (``users[].user.exec``, ``auth-provider``) would run it on the
playground's workers: both are refused, the latter unless ``PLAYGROUND_ALLOW_EXEC_KUBECONFIG``
is ``true``. On the command line the files are on this machine: ``embed_files`` reads them
(as kubectl does) into the flattened form before the checks. Every error names its field the
way kubectl's paths do (``contexts[0].context.cluster: cluster "x" is not defined``) and
never quotes a credential.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from kubernetes.client import ApiClient, Configuration
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.incluster_config import load_incluster_config
from kubernetes.config.kube_config import load_kube_config_from_dict

ALLOW_EXEC_ENV = "PLAYGROUND_ALLOW_EXEC_KUBECONFIG"
MAX_KUBECONFIG_BYTES = 1024 * 1024

CONNECT_TIMEOUT_SECONDS = 5.0
READ_TIMEOUT_SECONDS = 30.0
"""Every request's timeouts unless the caller gives its own (a watch gives a longer read one)."""

FILE_REFERENCES = {
    "cluster": {"certificate-authority": "certificate-authority-data"},
    "user": {
        "client-certificate": "client-certificate-data",
        "client-key": "client-key-data",
        "tokenFile": "token",
    },
}
"""Fields that name a file, and the embedded field to use instead."""
EMBEDDED_DATA = {
    "cluster": ("certificate-authority-data",),
    "user": ("client-certificate-data", "client-key-data"),
}
PROGRAMS = ("exec", "auth-provider")


class KubeconfigError(ValueError):
    """A kubeconfig that cannot be used; the message starts with the field's path."""


@dataclass(frozen=True)
class Kubeconfig:
    """A checked kubeconfig document: its contexts, and the cluster each one points at."""

    document: dict[str, Any]
    contexts: tuple[str, ...]
    current_context: str

    def choose_context(self, name: str = "") -> str:
        """The context to use: the one named, else ``current-context``, else the only one."""
        if name:
            if name not in self.contexts:
                raise KubeconfigError(
                    f'context: "{name}" is not in the kubeconfig (it has: '
                    f"{', '.join(self.contexts)})"
                )
            return name
        if self.current_context:
            return self.current_context
        if len(self.contexts) == 1:
            return self.contexts[0]
        raise KubeconfigError(
            f"context: choose one (the kubeconfig has no current-context and "
            f"{len(self.contexts)} contexts: {', '.join(self.contexts)})"
        )

    def server(self, context: str) -> str:
        """The API server's URL of a context (not a secret: pages show it)."""
        cluster = _named(self.document, "contexts", context)["context"]["cluster"]
        return _named(self.document, "clusters", cluster)["cluster"]["server"]


def exec_allowed() -> bool:
    return os.getenv(ALLOW_EXEC_ENV, "").lower() in ("1", "true", "yes", "on")


def parse_kubeconfig(text: str) -> Kubeconfig:
    """The kubeconfig in the YAML text, checked (see the module); raises KubeconfigError."""
    if len(text.encode()) > MAX_KUBECONFIG_BYTES:
        raise KubeconfigError(f"kubeconfig: larger than {MAX_KUBECONFIG_BYTES // 1024} KiB")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise KubeconfigError(_yaml_problem(err)) from None
    if not isinstance(document, dict):
        raise KubeconfigError("kubeconfig: not a YAML mapping (a kubeconfig is kind: Config)")
    kind = document.get("kind", "Config")
    if kind != "Config":
        raise KubeconfigError(f'kind: "{kind}" is not Config')
    clusters = _entries(document, "clusters", "cluster", _check_cluster)
    users = _entries(document, "users", "user", _check_user)
    contexts = _entries(document, "contexts", "context", _check_context)
    for index, entry in enumerate(document["contexts"]):
        for field, defined in (("cluster", clusters), ("user", users)):
            target = entry["context"].get(field)
            if target not in defined:
                raise KubeconfigError(
                    f'contexts[{index}].context.{field}: {field} "{target}" is not defined'
                )
    if not contexts:
        raise KubeconfigError("contexts: the kubeconfig has no context")
    current = document.get("current-context") or ""
    if current and current not in contexts:
        raise KubeconfigError(f'current-context: context "{current}" is not defined')
    return Kubeconfig(document=document, contexts=tuple(contexts), current_context=current)


def embed_files(text: str, folder: str) -> str:
    """The kubeconfig with every file it names read in: the flattened form stored.

    For a kubeconfig read on this machine (``manage.py cluster add --kubeconfig``), such as the
    ones kind, minikube and kubeadm write: relative paths are relative to ``folder`` (the
    kubeconfig's own, as kubectl resolves them). Certificates and keys become ``*-data``
    (base64), ``tokenFile`` becomes ``token`` (its content without surrounding whitespace,
    as client-go reads it). An embedded value already there wins, as in client-go. Text that
    names no file is returned unchanged; a file that cannot be read raises KubeconfigError
    naming the field."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return text  # parse_kubeconfig says what is wrong with it
    if not isinstance(document, dict):
        return text
    changed = False
    for field, inner in (("clusters", "cluster"), ("users", "user")):
        entries = document.get(field)
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            body = entry.get(inner) if isinstance(entry, dict) else None
            if isinstance(body, dict):
                path = f"{field}[{index}].{inner}"
                changed = _embed_entry(body, path, FILE_REFERENCES[inner], folder) or changed
    return yaml.safe_dump(document, sort_keys=False) if changed else text


def _embed_entry(body: dict[str, Any], path: str, references: dict[str, str], folder: str) -> bool:
    changed = False
    for field, embedded in references.items():
        name = body.pop(field, None)
        if name is None:
            continue
        changed = True
        if body.get(embedded):
            continue
        if not isinstance(name, str) or not name:
            raise KubeconfigError(f"{path}.{field}: not a file path")
        file = os.path.join(folder, os.path.expanduser(name))
        try:
            with open(file, "rb") as handle:
                content = handle.read()
        except OSError as err:
            raise KubeconfigError(f"{path}.{field}: cannot read {file}: {err.strerror}") from None
        if embedded == "token":
            body[embedded] = content.decode(errors="replace").strip()
        else:
            body[embedded] = base64.b64encode(content).decode()
    return changed


def api_client_from_kubeconfig(kubeconfig: Kubeconfig, context: str) -> ApiClient:
    """An API client for a context of a checked kubeconfig, with timeouts and no retries.

    The official loader writes embedded certificates and keys to private temporary files
    (mode 0600, removed at exit) because urllib3 reads them from files.
    """
    configuration = Configuration()
    try:
        load_kube_config_from_dict(
            kubeconfig.document,
            context=context,
            client_configuration=configuration,
            persist_config=False,
        )
    except ConfigException as err:
        raise KubeconfigError(f"kubeconfig: {_without_secrets(str(err))}") from None
    return _client(configuration)


def in_cluster_api_client() -> ApiClient:
    """An API client with the service account of the pod the playground runs in."""
    configuration = Configuration()
    try:
        load_incluster_config(client_configuration=configuration)
    except ConfigException as err:
        raise KubeconfigError(
            f"in-cluster: not running inside a cluster's pod, or its service account is not "
            f"mounted ({err})"
        ) from None
    return _client(configuration)


class TimedApiClient(ApiClient):
    """An ApiClient whose requests time out unless the caller sets its own timeout."""

    def request(self, *args: Any, _request_timeout: Any = None, **kwargs: Any) -> Any:
        if _request_timeout is None:
            _request_timeout = (CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS)
        return super().request(*args, _request_timeout=_request_timeout, **kwargs)


POOL_SIZE = 32
"""Connections kept per client: the mirror holds a watch open per kind it follows (14 with
every kind in all namespaces), and the second scheduler's writes come beside them."""


def _client(configuration: Configuration) -> ApiClient:
    # Fail at once on a refused connection or a TLS error instead of retrying three times.
    configuration.retries = 0
    configuration.connection_pool_maxsize = POOL_SIZE
    return TimedApiClient(configuration)


def _entries(
    document: Mapping[str, Any], field: str, inner: str, check: Any
) -> dict[str, dict[str, Any]]:
    """name -> the inner mapping of each entry of a list (``clusters[i].cluster``)."""
    entries = document.get(field)
    if entries is None:
        entries = []
        document[field] = entries  # type: ignore[index]
    if not isinstance(entries, list):
        raise KubeconfigError(f"{field}: not a list")
    found: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        path = f"{field}[{index}]"
        if not isinstance(entry, dict):
            raise KubeconfigError(f"{path}: not a mapping")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise KubeconfigError(f"{path}.name: required")
        if name in found:
            raise KubeconfigError(f'{path}.name: "{name}" is defined twice')
        body = entry.get(inner)
        if not isinstance(body, dict):
            raise KubeconfigError(f"{path}.{inner}: required (a mapping)")
        check(body, f"{path}.{inner}")
        found[name] = body
    return found


def _check_cluster(cluster: Mapping[str, Any], path: str) -> None:
    server = cluster.get("server")
    if not isinstance(server, str) or not server:
        raise KubeconfigError(f"{path}.server: required")
    if not server.startswith(("https://", "http://")):
        raise KubeconfigError(f"{path}.server: {server!r} is not an http(s):// URL")
    _check_embedded(cluster, path, "cluster")


def _check_user(user: Mapping[str, Any], path: str) -> None:
    for program in PROGRAMS:
        if program in user and not exec_allowed():
            raise KubeconfigError(
                f"{path}.{program}: refused: this kubeconfig runs a program to get credentials, "
                f"which the playground does not run (set {ALLOW_EXEC_ENV}=true to allow it), "
                f"use a token or a client certificate instead"
            )
    _check_embedded(user, path, "user")
    if "token" in user and not isinstance(user["token"], str):
        raise KubeconfigError(f"{path}.token: not a string")
    if ("client-certificate-data" in user) != ("client-key-data" in user):
        raise KubeconfigError(f"{path}: client-certificate-data and client-key-data go together")


def _check_context(context: Mapping[str, Any], path: str) -> None:
    for field in ("cluster", "user"):
        if not isinstance(context.get(field), str) or not context.get(field):
            raise KubeconfigError(f"{path}.{field}: required")


def _check_embedded(body: Mapping[str, Any], path: str, kind: str) -> None:
    for field, instead in FILE_REFERENCES[kind].items():
        if field in body:
            raise KubeconfigError(
                f"{path}.{field}: refused: a file path is not uploaded with the kubeconfig; "
                f"embed the content as {instead} (kubectl config view --raw --flatten "
                f"--minify does)"
            )
    for field in EMBEDDED_DATA[kind]:
        if field in body:
            value = body[field]
            try:
                if not isinstance(value, str):
                    raise ValueError
                base64.b64decode(value, validate=True)
            except (ValueError, binascii.Error):
                raise KubeconfigError(f"{path}.{field}: not base64") from None


def _named(document: Mapping[str, Any], field: str, name: str) -> dict[str, Any]:
    return next(entry for entry in document[field] if entry["name"] == name)


def _yaml_problem(err: yaml.YAMLError) -> str:
    """Where and what, without PyYAML's quote of the line (which may hold a token)."""
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or "cannot be parsed"
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    return f"kubeconfig: not valid YAML: {problem}{where}"


def _without_secrets(message: str) -> str:
    """The official loader's messages name fields, not values; cut anything long just in case."""
    return message if len(message) <= 200 else message[:200] + "..."
