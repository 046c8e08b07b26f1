"""Remembered selector verdicts: a compiled expression's answer for one published device.

A selector's result is a pure function of its expression and the device it reads (driver,
attributes, capacity, ``allowMultipleAllocations``), and cel-python takes about half a
millisecond to evaluate one. The allocator asks the same question for the same device on every
Filter call of every pod, so the answer is kept, which upstream (cel-go, microseconds per
evaluation) has no need to do.

Entries are keyed by identity: the device object of a ResourceSlice as the cluster stores it
and the compiled expression. Stored objects are never changed in place; an updated slice is a
new object with new devices, so its devices miss and the old entries age out. Each entry holds
both objects, so neither can be collected and its id reused while the entry lives. The cache is
bounded (least recently used first out).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from framework.api.resource_slice import Device as SliceDevice
from framework.plugins.dynamicresources.cel.compile import CompilationResult, Device

VERDICT_CACHE_SIZE = 50_000
"""Entries kept at most (a few hundred bytes each): the devices a large cluster's Filter calls
keep looking at, per distinct selector."""

_Entry = tuple[CompilationResult, SliceDevice, tuple[bool, str | None]]


class VerdictCache:
    """(expression, device, driver) -> ``device_matches``' answer, the last ``max_size``."""

    def __init__(self, max_size: int) -> None:
        self._max_size = max_size
        self._entries: OrderedDict[tuple[int, int, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def device_matches(
        self, expression: CompilationResult, device: SliceDevice, driver: str
    ) -> tuple[bool, str | None]:
        """What ``expression.device_matches`` says of the slice's device under its driver."""
        key = (id(expression), id(device), driver)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] is expression and entry[1] is device:
                self._entries.move_to_end(key)
                return entry[2]
        verdict = expression.device_matches(
            Device(driver, device.attributes, device.capacity, device.allow_multiple_allocations)
        )
        with self._lock:
            self._entries[key] = (expression, device, verdict)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max_size:
                self._entries.popitem(last=False)
        return verdict

    def __len__(self) -> int:
        return len(self._entries)


_VERDICTS = VerdictCache(VERDICT_CACHE_SIZE)


def device_matches(
    expression: CompilationResult, device: SliceDevice, driver: str
) -> tuple[bool, str | None]:
    """Through the process's verdict cache."""
    return _VERDICTS.device_matches(expression, device, driver)
