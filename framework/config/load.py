"""Loading a configuration file exactly as ``kube-scheduler --config`` does.

The text is YAML or JSON (JSON when it starts with ``{``). Its ``apiVersion`` and ``kind``
must name ``KubeSchedulerConfiguration`` in ``kubescheduler.config.k8s.io/v1``; decoding is
strict; then every in-tree plugin's args are decoded into their typed dataclass (checking any
apiVersion/kind they carry), while out-of-tree args stay as given. Every failure raises
:class:`ConfigError` with upstream's message. Loading does not default: call
:func:`framework.config.set_defaults` next.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from framework.api.field_errors import go_quote
from framework.config.decode import DecodeError, JsonObject, decode_strict, describe_json_value
from framework.config.types import (
    GROUP,
    KIND,
    PLUGIN_ARGS_TYPES,
    KubeSchedulerConfiguration,
    PluginConfig,
    args_type_for_plugin,
)

SCHEME = "pkg/scheduler/apis/config/scheme/scheme.go:29"
"""Where upstream's scheme is created: its name appears in "no kind is registered" errors."""

_VERSION = "v1"
_REGISTERED_KINDS = {KIND, *PLUGIN_ARGS_TYPES}
_TYPE_META_GO_TYPE = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
    'Kind string "json:\\"kind,omitempty\\"" }'
)


class ConfigError(ValueError):
    """A configuration that cannot be loaded; the message is upstream's."""


def load_config(source: str | bytes | Path) -> KubeSchedulerConfiguration:
    """Loads a configuration from a file or from the document itself.

    ``Path`` is a file; ``bytes`` is the document; a ``str`` is the document when it spans
    several lines or starts with ``{``, and a file name otherwise.
    """
    text = _read(source)
    data, duplicate_keys = _parse(text)
    _check_type_meta(data, text)
    try:
        cfg, strict_errors = decode_strict(data, KubeSchedulerConfiguration)
    except DecodeError as err:
        raise ConfigError(str(err)) from None
    if duplicate_keys:
        strict_errors.insert(0, duplicate_keys)
    strict_errors.extend(_decode_plugin_args(cfg))
    if strict_errors:
        raise ConfigError(_strict_decoding_error(strict_errors))
    return cfg


# --------------------------------------------------------------------------------------------
# Reading and parsing


def _read(source: str | bytes | Path) -> str:
    if isinstance(source, bytes):
        return source.decode("utf-8", errors="replace")
    if isinstance(source, str) and _is_document(source):
        return source
    name = str(source)
    try:
        if not name:
            raise FileNotFoundError(name)
        return Path(name).read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise ConfigError(f"open {name}: no such file or directory") from None
    except IsADirectoryError:
        raise ConfigError(f"read {name}: is a directory") from None
    except PermissionError:
        raise ConfigError(f"open {name}: permission denied") from None


def _is_document(text: str) -> bool:
    return "\n" in text or text.lstrip().startswith("{")


def _parse(text: str) -> tuple[Any, str | None]:
    """The first document, and go-yaml's strict error for repeated keys (None if none)."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text, object_pairs_hook=JsonObject), None
        except json.JSONDecodeError as err:
            raise ConfigError(f"couldn't get version/kind; json parse error: {err}") from None
    loader = _YamlLoader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except yaml.MarkedYAMLError as err:
        raise ConfigError(_yaml_error_message(err)) from None
    except yaml.YAMLError as err:
        raise ConfigError(f"yaml: {err}") from None
    finally:
        loader.dispose()
    return data, _duplicate_keys_error(loader.duplicate_keys)


class _YamlLoader(yaml.SafeLoader):
    """YAML as upstream reads it: timestamps stay strings, repeated keys are remembered."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicate_keys: list[tuple[int, Any]] = []

    def get_single_node(self) -> yaml.Node | None:
        # Only the first document counts, like go-yaml's Unmarshal.
        self.get_event()  # stream start
        return None if self.check_event(yaml.StreamEndEvent) else self.compose_document()

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = []
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                self.duplicate_keys.append((key_node.start_mark.line + 1, key))
            seen.append(key)
        return super().construct_mapping(node, deep=deep)


_YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

# PyYAML's wording for problems that go-yaml words differently.
_YAML_PROBLEMS = {
    "mapping values are not allowed here": "mapping values are not allowed in this context",
}


def _yaml_error_message(err: yaml.MarkedYAMLError) -> str:
    mark = err.problem_mark or err.context_mark
    problem = err.problem or err.context or "invalid YAML"
    problem = _YAML_PROBLEMS.get(problem, problem)
    return f"yaml: line {mark.line + 1}: {problem}" if mark else f"yaml: {problem}"


def _duplicate_keys_error(duplicates: list[tuple[int, Any]]) -> str | None:
    if not duplicates:
        return None
    lines = [f"line {line}: key {_go_syntax(key)} already set in map" for line, key in duplicates]
    return "yaml: unmarshal errors:\n  " + "\n  ".join(lines)


def _go_syntax(value: Any) -> str:
    """Go's ``%#v`` of a YAML key."""
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "<nil>" if value is None else str(value)


# --------------------------------------------------------------------------------------------
# apiVersion and kind


def _check_type_meta(data: Any, text: str) -> None:
    group, version, kind = _interpret(data)
    if not kind:
        raise ConfigError(f"Object 'Kind' is missing in '{text}'")
    if not version:
        raise ConfigError(f"Object 'apiVersion' is missing in '{text}'")
    if (group, version) != (GROUP, _VERSION) or kind not in _REGISTERED_KINDS:
        raise ConfigError(_not_registered(group, version, kind))
    if kind != KIND:
        raise ConfigError(
            f"couldn't decode as KubeSchedulerConfiguration, got {group}/{version}, Kind={kind}: "
        )


def _interpret(data: Any) -> tuple[str, str, str]:
    """(group, version, kind) as upstream's SimpleMetaFactory reads them."""
    if data is None:
        return "", "", ""
    if not isinstance(data, dict):
        raise ConfigError(
            "couldn't get version/kind; json parse error: json: cannot unmarshal "
            f"{describe_json_value(data)} into Go value of type {_TYPE_META_GO_TYPE}"
        )
    for key in ("apiVersion", "kind"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise ConfigError(
                "couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{describe_json_value(value)} into Go struct field .{key} of type string"
            )
    group, version = _parse_group_version(data.get("apiVersion") or "")
    return group, version, data.get("kind") or ""


def _parse_group_version(text: str) -> tuple[str, str]:
    if text in ("", "/"):
        return "", ""
    slashes = text.count("/")
    if slashes == 0:
        return "", text
    if slashes == 1:
        group, version = text.split("/")
        return group, version
    raise ConfigError(f"unexpected GroupVersion string: {text}")


def _not_registered(group: str, version: str, kind: str) -> str:
    group_version = f"{group}/{version}" if group else version
    return f'no kind "{kind}" is registered for version "{group_version}" in scheme "{SCHEME}"'


# --------------------------------------------------------------------------------------------
# Plugin args


def _decode_plugin_args(cfg: KubeSchedulerConfiguration) -> list[str]:
    """Types every in-tree plugin's args; returns strict errors, raises on anything else."""
    strict_errors = []
    for i, profile in enumerate(cfg.profiles):
        for j, plugin_config in enumerate(profile.plugin_config):
            where = f"decoding .profiles[{i}].pluginConfig[{j}]"
            try:
                errors = _decode_args(plugin_config)
            except ConfigError as err:
                raise ConfigError(f"{where}: {err}") from None
            if errors:
                strict_errors.append(
                    f"{where}: strict decoding error: decoding args for plugin "
                    f"{plugin_config.name}: {_strict_decoding_error(errors)}"
                )
    return strict_errors


def _decode_args(plugin_config: PluginConfig) -> list[str]:
    args_type = args_type_for_plugin(plugin_config.name)
    if args_type is None:
        # Out-of-tree: the plugin makes sense of its args itself; hand them over as plain data.
        plugin_config.args = _plain(plugin_config.args)
        return []
    name, raw = plugin_config.name, plugin_config.args
    expected_kind = args_type.KIND
    try:
        group, version, kind = _interpret(raw)
    except ConfigError as err:
        raise ConfigError(f"decoding args for plugin {name}: {err}") from None
    kind = kind or expected_kind
    if not group and not version:
        group, version = GROUP, _VERSION
    elif not version and group == GROUP:
        version = _VERSION
    if (group, version) != (GROUP, _VERSION) or kind not in _REGISTERED_KINDS:
        problem = _not_registered(group, version, kind)
        raise ConfigError(f"decoding args for plugin {name}: {problem}")
    if kind != expected_kind:
        raise ConfigError(
            f"args for plugin {name} were not of type {expected_kind}.{GROUP}, got {kind}.{group}"
        )
    try:
        args, errors = decode_strict(raw or {}, args_type)
    except DecodeError as err:
        raise ConfigError(f"decoding args for plugin {name}: {err}") from None
    plugin_config.args = args
    return errors


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _strict_decoding_error(errors: list[str]) -> str:
    return "strict decoding error: " + ", ".join(errors)
