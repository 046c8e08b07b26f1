"""The Filter plugins and PreFilter extensions a cycle runs, worked out once per skip set.

PreFilter decides which plugins a cycle skips. Within the cycle, preemption's dry run filters
nodes and adds and removes pods hundreds of thousands of times, and each time the runtime
looped over every configured plugin to leave out the skipped ones. The skip set is frozen once
PreFilter has run and shared by every copy of the cycle state, so the plugins left are
remembered for it (a set that could still change is never remembered).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from framework.interface.plugins import FilterPlugin, PreFilterExtensions, PreFilterPlugin

Extensions = list[tuple["PreFilterPlugin", "PreFilterExtensions"]]


class FilterPoints(Protocol):
    """What CyclePlugins reads of its Framework (a protocol: no import cycle with it)."""

    filter_plugins: list[FilterPlugin]
    pre_filter_plugins: list[PreFilterPlugin]


class CyclePlugins:
    """A framework's plugins not skipped, for the last frozen skip set it was asked about."""

    __slots__ = ("_extensions", "_filters", "_framework", "_skip")

    def __init__(self, framework: FilterPoints) -> None:
        self._framework = framework
        self._skip: frozenset[str] | None = None
        self._filters: list[FilterPlugin] = []
        self._extensions: Extensions = []

    def filters(self, skip: Collection[str]) -> list[FilterPlugin]:
        """The Filter plugins not in ``skip``, in configuration order."""
        if skip is self._skip:
            return self._filters
        return self._refresh(skip)[0]

    def extensions(self, skip: Collection[str]) -> Extensions:
        """The PreFilter plugins not in ``skip`` that have extensions, with them, in order."""
        if skip is self._skip:
            return self._extensions
        return self._refresh(skip)[1]

    def _refresh(self, skip: Collection[str]) -> tuple[list[FilterPlugin], Extensions]:
        framework = self._framework
        filters = [p for p in framework.filter_plugins if p.name not in skip]
        extensions: Extensions = []
        for plugin in framework.pre_filter_plugins:
            if plugin.name in skip:
                continue
            found = plugin.pre_filter_extensions()
            if found is not None:
                extensions.append((plugin, found))
        if isinstance(skip, frozenset):
            self._skip, self._filters, self._extensions = skip, filters, extensions
        return filters, extensions
