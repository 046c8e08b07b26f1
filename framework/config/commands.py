"""``python -m framework config defaults [FILE]`` and ``config validate FILE``.

``defaults`` prints the configuration kube-scheduler would run with, as ``--write-config-to``
writes it; without FILE that is the configuration of a scheduler started without one.
``validate`` loads, defaults and validates FILE, then builds its extenders and profiles, as
kube-scheduler does at start-up (``framework.config.startup``), and prints every problem on its
own line (exit status 1), or a confirmation (exit status 0).
FILE may be ``-`` for standard input. Each sub-command's ``handler`` returns the exit status.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from framework.config.defaults import default_configuration, set_defaults
from framework.config.encode import to_yaml
from framework.config.load import ConfigError, load_config
from framework.config.startup import startup_errors
from framework.config.types import KubeSchedulerConfiguration
from framework.features import DEFAULT_FEATURE_GATES, FeatureGateError, FeatureGates
from framework.plugins.registry import in_tree_registry

VALID_MESSAGE = "configuration is valid"


def register(subparsers: Any) -> None:
    """Adds ``defaults`` and ``validate`` to an argparse sub-parsers object."""
    defaults = subparsers.add_parser(
        "defaults", help="print the defaulted configuration (of FILE, or of no file at all)"
    )
    defaults.add_argument("file", nargs="?", help="a KubeSchedulerConfiguration file, - for stdin")
    add_feature_gates_argument(defaults)
    defaults.set_defaults(handler=run_defaults)

    check = subparsers.add_parser(
        "validate", help="check a configuration file as kube-scheduler does at start-up"
    )
    check.add_argument("file", help="a KubeSchedulerConfiguration file (YAML or JSON), - for stdin")
    add_feature_gates_argument(check)
    check.set_defaults(handler=run_validate)


def run_defaults(args: argparse.Namespace) -> int:
    try:
        features = feature_gates_argument(args)
        if args.file is None:
            cfg = default_configuration(features)
        else:
            cfg = set_defaults(_load(args.file), features)
    except (ConfigError, FeatureGateError) as err:
        print(err, file=sys.stderr)
        return 1
    sys.stdout.write(to_yaml(cfg))
    return 0


def run_validate(args: argparse.Namespace) -> int:
    try:
        features = feature_gates_argument(args)
        cfg = set_defaults(_load(args.file), features)
    except (ConfigError, FeatureGateError) as err:
        print(err, file=sys.stderr)
        return 1
    errors = startup_errors(cfg, in_tree_registry(features), features)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 1
    print(VALID_MESSAGE)
    return 0


def _load(file: str) -> KubeSchedulerConfiguration:
    if file == "-":
        return load_config(sys.stdin.buffer.read())
    return load_config(Path(file))


def add_feature_gates_argument(parser: argparse.ArgumentParser) -> None:
    """``--feature-gates``, as kube-scheduler takes it (``simulate`` takes it too)."""
    parser.add_argument(
        "--feature-gates",
        default="",
        metavar="GATE=BOOL,...",
        help="feature gates to change from their v1.36 defaults, e.g. StorageCapacityScoring=true",
    )


def feature_gates_argument(args: argparse.Namespace) -> FeatureGates:
    """The gates ``--feature-gates`` gave (the v1.36 defaults without it); FeatureGateError."""
    text = getattr(args, "feature_gates", "")
    return FeatureGates.from_string(text) if text else DEFAULT_FEATURE_GATES
