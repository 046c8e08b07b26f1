"""Upstream's content checks with their exact messages (label keys and values, DNS names,
integers). Each ``is_*`` function returns a list of problems, empty when the value is fine.
"""

from __future__ import annotations

import re

LABEL_VALUE_MAX_LENGTH = 63
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_LABEL_KEY_NAME_MAX_LENGTH = 63

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = f"{_DNS1123_LABEL_FMT}(\\.{_DNS1123_LABEL_FMT})*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_DECIMAL_INTEGER_MSG = "must be a valid decimal integer in canonical form"

_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_GO_INT_RE = re.compile(r"[+-]?[0-9]+")
_DECIMAL_INTEGER_RE = re.compile(r"0|-?[1-9][0-9]*")

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def max_len_error(length: int, unit: str = "bytes") -> str:
    # v1.36 checks labels with apimachinery's validate/content package, which says bytes;
    # object names are checked by util/validation, which says characters.
    return f"must be no more than {length} {unit}"


def empty_error() -> str:
    return "must be non-empty"


def regex_error(message: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def is_label_key(value: str) -> list[str]:
    """A label key (also called a qualified name): an optional DNS prefix, '/', and a name."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part " + empty_error())
        else:
            prefix_problems = is_dns1123_subdomain(prefix, length_unit="bytes")
            errors.extend("prefix part " + msg for msg in prefix_problems)
    if not name:
        errors.append("name part " + empty_error())
    elif _byte_length(name) > _LABEL_KEY_NAME_MAX_LENGTH:
        errors.append("name part " + max_len_error(_LABEL_KEY_NAME_MAX_LENGTH))
    if not _LABEL_KEY_RE.fullmatch(name):
        errors.append(
            "name part "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


is_qualified_name = is_label_key


def is_label_value(value: str) -> list[str]:
    errors: list[str] = []
    if _byte_length(value) > LABEL_VALUE_MAX_LENGTH:
        errors.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errors


def is_dns1123_label(value: str, length_unit: str = "characters") -> list[str]:
    """An RFC 1123 label (a namespace's or a container's name). ``length_unit`` is the word
    the length error uses: upstream's name checks say characters, its content checks bytes."""
    errors: list[str] = []
    if _byte_length(value) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_LABEL_MAX_LENGTH, length_unit))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_dns1123_subdomain(value: str, length_unit: str = "characters") -> list[str]:
    """An RFC 1123 subdomain (most objects' names; a label key's prefix, in bytes)."""
    errors: list[str] = []
    if _byte_length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH, length_unit))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_decimal_integer(value: str) -> list[str]:
    """An integer written the way people write it: no sign '+', no leading zeros."""
    if not value:
        return [empty_error()]
    if not _DECIMAL_INTEGER_RE.fullmatch(value):
        return [_DECIMAL_INTEGER_MSG]
    return []


def parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``: optional sign, digits only, in int64 range."""
    if not _GO_INT_RE.fullmatch(text):
        return None
    value = int(text)
    if value < _INT64_MIN or value > _INT64_MAX:
        return None
    return value


def _byte_length(text: str) -> int:
    return len(text.encode("utf-8"))


_PERCENT_FMT = "[0-9]+%"
_PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"
_PERCENT_RE = re.compile(_PERCENT_FMT)


def is_path_segment_name(value: str) -> list[str]:
    """What every object's name must be, whatever its kind: usable as one URL path segment."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in value]


def is_valid_percent(value: str) -> list[str]:
    if not _PERCENT_RE.fullmatch(value):
        return [regex_error(_PERCENT_MSG, _PERCENT_FMT, "1%", "93%")]
    return []


_PORT_NAME_CHARS = frozenset("-abcdefghijklmnopqrstuvwxyz0123456789")


def is_valid_port_num(port: int) -> list[str]:
    if 1 <= port <= 65535:
        return []
    return ["must be between 1 and 65535, inclusive"]


def is_valid_port_name(name: str) -> list[str]:
    """An IANA service name: what a named container or service port must be."""
    problems: list[str] = []
    if len(name) > 15:
        problems.append("must be no more than 15 characters")
    if not name or any(c not in _PORT_NAME_CHARS for c in name):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= c <= "z" for c in name):
        problems.append("must contain at least one letter (a-z)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not begin or end with a hyphen")
    return problems
