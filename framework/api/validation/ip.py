"""Upstream's checks of IP addresses and CIDR values in the fields that predate strict
validation (``IsValidIPForLegacyField``, ``IsValidCIDRForLegacyField``), with
StrictIPCIDRValidation on as in v1.36: IPv4 octets with leading zeros and IPv4-mapped IPv6
addresses are refused, each with its own message."""

from __future__ import annotations

import ipaddress
import re

from framework.api.field_errors import FieldError, invalid

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_SLOPPY_IPV4 = re.compile(r"[0-9]+(\.[0-9]+){3}")


def parse_ip_sloppy(value: str) -> IPAddress | None:
    """Go's ``ParseIPSloppy``: also reads IPv4 octets with leading zeros, as decimal."""
    if "%" in value:  # Go takes no IPv6 zone in an IP address
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        pass
    if _SLOPPY_IPV4.fullmatch(value):
        octets = [int(part) for part in value.split(".")]
        if all(octet <= 255 for octet in octets):
            return ipaddress.IPv4Address(".".join(str(octet) for octet in octets))
    return None


def validate_legacy_ip(value: str, path: str) -> list[FieldError]:
    """``IsValidIPForLegacyField`` for a new value."""
    address = parse_ip_sloppy(value)
    if address is None:
        detail = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
        return [invalid(path, value, detail)]
    errors: list[FieldError] = []
    if _has_leading_zeros(value):
        errors.append(invalid(path, value, "must not have leading 0s"))
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        errors.append(invalid(path, value, "must not be an IPv4-mapped IPv6 address"))
    return errors


def validate_legacy_cidr(value: str, path: str) -> list[FieldError]:
    """``IsValidCIDRForLegacyField`` for a new value."""
    address, _, prefix = value.partition("/")
    ip = parse_ip_sloppy(address)
    bits = 32 if isinstance(ip, ipaddress.IPv4Address) else 128
    if ip is None or not prefix.isdigit() or int(prefix) > bits:
        detail = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
        return [invalid(path, value, detail)]
    if _has_leading_zeros(address) or (len(prefix) > 1 and prefix.startswith("0")):
        return [invalid(path, value, "must not have leading 0s in IP or prefix length")]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return [invalid(path, value, "must not have an IPv4-mapped IPv6 address")]
    if ipaddress.ip_network(value, strict=False).network_address != ip:
        return [invalid(path, value, "must not have bits set beyond the prefix length")]
    return []


def is_ipv6(value: str) -> bool:
    return isinstance(parse_ip_sloppy(value), ipaddress.IPv6Address)


def _has_leading_zeros(value: str) -> bool:
    if ":" in value:
        return False
    return any(len(part) > 1 and part.startswith("0") for part in value.split("."))
