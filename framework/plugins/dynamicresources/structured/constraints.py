"""A claim's constraints across its devices: ``matchAttribute`` and ``distinctAttribute``.

Constraints are monotonic: once one refuses a device, adding more never helps, so the search
backtracks at once. Each tracks the devices added for the requests it names (all requests
when it names none, a request covering its subrequests); every successful ``add`` is undone
by exactly one ``remove`` with the same arguments.
"""

from __future__ import annotations

from framework.api.resource_slice import Device, DeviceAttribute
from framework.plugins.dynamicresources.structured.types import DeviceID


class Constraint:
    """The bookkeeping both kinds share; subclasses decide whether a value may join."""

    def __init__(self, request_names: list[str], attribute_name: str) -> None:
        self.request_names = set(request_names)
        self.attribute_name = attribute_name
        self.num_devices = 0

    def applies_to(self, request_name: str, sub_request_name: str) -> bool:
        if not self.request_names or request_name in self.request_names:
            return True
        return bool(sub_request_name) and f"{request_name}/{sub_request_name}" in (
            self.request_names
        )

    def add(
        self, request_name: str, sub_request_name: str, device: Device, device_id: DeviceID
    ) -> bool:
        """Whether the device may join; if so, it is counted in."""
        if not self.applies_to(request_name, sub_request_name):
            return True
        attribute = lookup_attribute(device, device_id, self.attribute_name)
        if attribute is None:
            return False
        if self.num_devices > 0 and not self._accepts(attribute):
            return False
        self._remember(request_name, attribute)
        self.num_devices += 1
        return True

    def remove(
        self, request_name: str, sub_request_name: str, device: Device, device_id: DeviceID
    ) -> None:
        if self.applies_to(request_name, sub_request_name):
            self._forget(request_name)
            self.num_devices -= 1

    def _accepts(self, attribute: DeviceAttribute) -> bool:
        raise NotImplementedError

    def _remember(self, request_name: str, attribute: DeviceAttribute) -> None:
        raise NotImplementedError

    def _forget(self, request_name: str) -> None:
        """Nothing to forget by default: only the count matters."""


class MatchAttributeConstraint(Constraint):
    """All devices have the attribute, with one value (the first device's)."""

    def __init__(self, request_names: list[str], attribute_name: str) -> None:
        super().__init__(request_names, attribute_name)
        self.attribute: DeviceAttribute | None = None

    def _accepts(self, attribute: DeviceAttribute) -> bool:
        return _same_value(attribute, self.attribute)

    def _remember(self, request_name: str, attribute: DeviceAttribute) -> None:
        if self.num_devices == 0:
            self.attribute = attribute


class DistinctAttributeConstraint(Constraint):
    """All devices have the attribute, each request's device with a value of its own."""

    def __init__(self, request_names: list[str], attribute_name: str) -> None:
        super().__init__(request_names, attribute_name)
        self.attributes: dict[str, DeviceAttribute] = {}

    def _accepts(self, attribute: DeviceAttribute) -> bool:
        kind = _value_kind(attribute)
        for other in self.attributes.values():
            if kind is None:
                return False
            if getattr(other, kind) is not None and getattr(other, kind) == getattr(
                attribute, kind
            ):
                return False
        return True

    def _remember(self, request_name: str, attribute: DeviceAttribute) -> None:
        # Keyed by request, as upstream: a second device of one request replaces the first.
        self.attributes[request_name] = attribute

    def _forget(self, request_name: str) -> None:
        self.attributes.pop(request_name, None)


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> DeviceAttribute | None:
    """The attribute by fully qualified name, or by its id when the domain is the driver."""
    attribute = device.attributes.get(name)
    if attribute is not None:
        return attribute
    domain, separator, identifier = name.partition("/")
    if not separator or domain != device_id.driver:
        return None
    return device.attributes.get(identifier)


_KINDS = ("string_value", "int_value", "bool_value", "version_value")


def _value_kind(attribute: DeviceAttribute) -> str | None:
    """Which value the attribute holds, checked in upstream's order."""
    for kind in _KINDS:
        if getattr(attribute, kind) is not None:
            return kind
    return None


def _same_value(attribute: DeviceAttribute, first: DeviceAttribute | None) -> bool:
    """Versions compare as strings: semver 2.0.0 requires their minimal form."""
    kind = _value_kind(attribute)
    if kind is None or first is None:
        return False
    return getattr(first, kind) is not None and getattr(first, kind) == getattr(attribute, kind)
