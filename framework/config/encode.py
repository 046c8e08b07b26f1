"""Encoding a configuration the way ``kube-scheduler --write-config-to`` writes it.

Go's JSON rules decide what appears: a nil pointer with ``omitempty`` is left out, one
without it prints ``null``; empty strings, numbers and lists with ``omitempty`` are left out,
but structs never are (so every extension point prints, ``{}`` when empty). Typed plugin args
carry their ``apiVersion`` and ``kind``. YAML keys are sorted as go-yaml sorts them and
durations print as Go's ``time.Duration`` does (``15s``, ``10m0s``).
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import functools
from datetime import timedelta
from typing import Any

import yaml

from framework.config.schema import TypeInfo, api_fields
from framework.config.types import API_VERSION, KubeSchedulerConfiguration
from framework.util.duration import format_duration

_NEVER_EMPTY = ("struct", "duration")


def to_dict(cfg: KubeSchedulerConfiguration) -> dict[str, Any]:
    """The configuration as the JSON-compatible dict upstream would serialise."""
    return to_json_value(cfg)


def to_yaml(cfg: KubeSchedulerConfiguration) -> str:
    """The configuration as YAML text, in the layout kube-scheduler prints."""
    return dump_yaml(to_dict(cfg))


def to_json_value(obj: Any) -> Any:
    """Any configuration dataclass (or list of them) in its v1 JSON form.

    Objects with a kind (the configuration, typed plugin args) carry apiVersion and kind.
    Plugins use this to hand embedded core types (a NodeAffinity, TopologySpreadConstraints)
    to the ``framework.api`` parsers, which read manifests.
    """
    if isinstance(obj, list):
        return [to_json_value(item) for item in obj]
    body = _encode_struct(obj)
    kind = getattr(type(obj), "KIND", None)
    return {"apiVersion": API_VERSION, "kind": kind, **body} if kind else body


def encode_plugin_args(args: Any) -> Any:
    """PluginConfig args: typed args gain apiVersion and kind, raw ones are copied as given."""
    if args is None:
        return None
    if dataclasses.is_dataclass(args):
        return to_json_value(args)
    return copy.deepcopy(args)


def dump_yaml(data: Any) -> str:
    """YAML text with go-yaml's key order and quoting (double quotes for strings that would
    otherwise read as another type, literal blocks for multi-line strings)."""
    return yaml.dump(_go_ordered(data), Dumper=_GoStyleDumper, sort_keys=False)


# --------------------------------------------------------------------------------------------
# Values


def _encode_struct(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in api_fields(type(obj)):
        value = getattr(obj, field.attr)
        if field.type.kind == "any":
            out[field.json] = encode_plugin_args(value)
        elif value is None:
            if not field.omitempty:
                out[field.json] = None
        elif field.omitempty and not field.type.nullable and _is_empty(value, field.type):
            continue
        else:
            out[field.json] = _encode_value(value, field.type)
    return out


def _is_empty(value: Any, info: TypeInfo) -> bool:
    return info.kind not in _NEVER_EMPTY and not value


def _encode_value(value: Any, info: TypeInfo) -> Any:
    kind = info.kind
    if kind == "struct":
        return _encode_struct(value)
    if kind == "list":
        assert info.item is not None
        return [_encode_value(item, info.item) for item in value]
    if kind == "map":
        return dict(value)
    if kind == "duration":
        return format_duration(value) if isinstance(value, timedelta) else value
    if kind == "bytes":
        return base64.b64encode(value).decode("ascii")
    if kind == "float" and float(value).is_integer():
        return int(value)
    return value


# --------------------------------------------------------------------------------------------
# YAML layout


def _go_ordered(data: Any) -> Any:
    if isinstance(data, dict):
        keys = sorted(data, key=functools.cmp_to_key(_go_yaml_key_compare))
        return {key: _go_ordered(data[key]) for key in keys}
    if isinstance(data, list):
        return [_go_ordered(item) for item in data]
    return data


def _go_yaml_key_compare(a: Any, b: Any) -> int:
    """go-yaml's map key order: numbers inside keys compare by value, letters by code point,
    and non-letters sort before letters."""
    left, right = str(a), str(b)
    for i in range(min(len(left), len(right))):
        x, y = left[i], right[i]
        if x == y:
            continue
        if x.isalpha() and y.isalpha():
            return -1 if x < y else 1
        if x.isalpha() or y.isalpha():
            return 1 if x.isalpha() else -1
        x_number, x_end = _digits_at(left, i)
        y_number, y_end = _digits_at(right, i)
        if x_number != y_number:
            return -1 if x_number < y_number else 1
        if x_end != y_end:
            return -1 if x_end < y_end else 1
        return -1 if x < y else 1
    return (len(left) > len(right)) - (len(left) < len(right))


def _digits_at(text: str, start: int) -> tuple[int, int]:
    end = start
    while end < len(text) and text[end].isdigit():
        end += 1
    return (int(text[start:end]) if end > start else 0), end


class _GoStyleEmitterMixin:
    def choose_scalar_style(self) -> str:
        event = self.event  # type: ignore[attr-defined]
        if not event.style and not event.implicit[0]:
            return '"'
        return super().choose_scalar_style()  # type: ignore[misc]


class _GoStyleDumper(_GoStyleEmitterMixin, yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_GoStyleDumper.add_representer(str, _represent_str)
