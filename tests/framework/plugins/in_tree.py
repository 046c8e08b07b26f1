"""Registers an in-tree plugin class with ``framework_of`` (tests/framework/runtime/helpers.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from framework.interface.plugins import Plugin
from framework.plugins.feature import Features


class InTree:
    """A plugin class plus its feature switches, built by the framework like the registry does."""

    def __init__(self, cls: type[Plugin], features: Features | None = None) -> None:
        self.name = cls.name
        self.cls = cls
        self.features = features if features is not None else Features.from_gates()
        self.built: Plugin | None = None

    def factory(self) -> Callable[[Any, Any], Plugin]:
        def build(args: Any, handle: Any) -> Plugin:
            self.built = self.cls(args, handle, self.features)  # type: ignore[call-arg]
            return self.built

        return build
