"""``config expand FILE``: the plugins each profile really runs, per extension point, in order.

The effective list is what the runtime builds (multiPoint expansion, precedence, weights), so
this builds real frameworks instead of re-deriving the rules from the configuration.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import yaml

from framework.runtime.framework import Framework, FrameworkError
from framework.runtime.registry import Registry


def effective_plugins(profile: Any, registry: Registry) -> dict[str, list[dict[str, Any]]]:
    """Extension point -> ordered plugins (score plugins with their weight)."""
    framework = Framework(registry, profile)
    points: dict[str, list[dict[str, Any]]] = {}
    for point, plugins in framework.list_plugins().items():
        points[point] = [
            {"name": name, "weight": weight} if weight is not None else {"name": name}
            for name, weight in plugins
        ]
    return points


def expand_configuration(cfg: Any, registry: Registry) -> dict[str, Any]:
    return {
        "profiles": [
            {
                "schedulerName": profile.scheduler_name,
                "extensionPoints": effective_plugins(profile, registry),
            }
            for profile in cfg.profiles
        ]
    }


def run(args: argparse.Namespace) -> int:
    from framework.config.defaults import set_defaults
    from framework.config.load import ConfigError, load_config
    from framework.config.startup import startup_errors
    from framework.plugins.registry import in_tree_registry

    try:
        cfg = load_config(args.file)
    except (ConfigError, OSError) as err:
        print(err, file=sys.stderr)
        return 1
    set_defaults(cfg)
    errors = startup_errors(cfg, in_tree_registry())
    if errors:
        for error in errors:
            print(error, file=sys.stderr)
        return 1
    try:
        expanded = expand_configuration(cfg, in_tree_registry())
    except FrameworkError as err:
        print(err, file=sys.stderr)
        return 1
    sys.stdout.write(yaml.safe_dump(expanded, sort_keys=False))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "expand", help="print the effective plugins per extension point of every profile"
    )
    parser.add_argument("file", help="a KubeSchedulerConfiguration file (YAML or JSON)")
    parser.set_defaults(handler=run)
