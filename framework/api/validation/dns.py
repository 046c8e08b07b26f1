"""Upstream's checks of how a pod resolves names: its DNS settings (``validateDNSPolicy``,
``validatePodDNSConfig``), with RelaxedDNSSearchValidation on as in v1.36 (search domains
may hold underscores, and ``.`` alone is allowed), and its host aliases
(``ValidateHostAliases``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, invalid, not_supported, required
from framework.api.validation.content import is_dns1123_subdomain
from framework.api.validation.ip import validate_legacy_ip

Manifest = Mapping[str, Any]

DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
MAX_NAMESERVERS = 3
MAX_SEARCH_PATHS = 32
MAX_SEARCH_LIST_CHARS = 2048
_LABEL_WITH_UNDERSCORE = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_WITH_UNDERSCORE = f"{_LABEL_WITH_UNDERSCORE}(\\.{_LABEL_WITH_UNDERSCORE})*"
_SUBDOMAIN_WITH_UNDERSCORE_RE = re.compile(_SUBDOMAIN_WITH_UNDERSCORE)


def validate_dns_policy(policy: str | None, path: str) -> list[FieldError]:
    """Defaulted to ClusterFirst when not given."""
    if not policy or policy in DNS_POLICIES:
        return []
    return [not_supported(path, policy, DNS_POLICIES)]


def validate_dns_config(config: Manifest | None, policy: str | None, path: str) -> list[FieldError]:
    """``validatePodDNSConfig``: with policy None the config must name a nameserver."""
    if policy == "None":
        if config is None:
            return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not config.get("nameservers"):
            detail = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            return [required(f"{path}.nameservers", detail)]
    if config is None:
        return []
    errors: list[FieldError] = []
    nameservers = config.get("nameservers") or []
    if len(nameservers) > MAX_NAMESERVERS:
        detail = f"must not have more than {MAX_NAMESERVERS} nameservers"
        errors.append(invalid(f"{path}.nameservers", nameservers, detail))
    for index, nameserver in enumerate(nameservers):
        errors += validate_legacy_ip(nameserver, f"{path}.nameservers[{index}]")
    searches = config.get("searches") or []
    if len(searches) > MAX_SEARCH_PATHS:
        detail = f"must not have more than {MAX_SEARCH_PATHS} search paths"
        errors.append(invalid(f"{path}.searches", searches, detail))
    if len(" ".join(searches)) > MAX_SEARCH_LIST_CHARS:
        detail = (
            f"must not have more than {MAX_SEARCH_LIST_CHARS} characters (including spaces) in "
            "the search list"
        )
        errors.append(invalid(f"{path}.searches", searches, detail))
    for index, search in enumerate(searches):
        if search != ".":
            domain = search.removesuffix(".")
            where = f"{path}.searches[{index}]"
            errors += [invalid(where, domain, m) for m in _subdomain_with_underscore(domain)]
    for index, option in enumerate(config.get("options") or []):
        if not option.get("name"):
            errors.append(required(f"{path}.options[{index}]", "must not be empty"))
    return errors


def _subdomain_with_underscore(value: str) -> list[str]:
    problems: list[str] = []
    if len(value) > 253:
        problems.append("must be no more than 253 characters")
    if not _SUBDOMAIN_WITH_UNDERSCORE_RE.fullmatch(value):
        problems.append(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'_', '-' or '.', and must start and end with an alphanumeric character (e.g. "
            f"'example.com', regex used for validation is '{_SUBDOMAIN_WITH_UNDERSCORE}')"
        )
    return problems


def validate_host_aliases(aliases: list[Manifest], path: str) -> list[FieldError]:
    """Each alias an IP address and DNS names for it."""
    errors: list[FieldError] = []
    for index, alias in enumerate(aliases):
        errors += validate_legacy_ip(alias.get("ip") or "", f"{path}[{index}].ip")
        for name_index, hostname in enumerate(alias.get("hostnames") or []):
            where = f"{path}[{index}].hostnames[{name_index}]"
            errors += [invalid(where, hostname, msg) for msg in is_dns1123_subdomain(hostname)]
    return errors
