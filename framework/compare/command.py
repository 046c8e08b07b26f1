"""``python -m framework compare``: schedule the same cluster under several configurations,
each in its own process, and print the report (docs/compare.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from framework.compare.errors import CompareError
from framework.compare.fanout import TRACE_LIMIT, compare
from framework.compare.inputs import CompareInputs, inputs_from_recording
from framework.compare.recording import Change, read_recording
from framework.compare.table import render_table
from framework.compare.variant import VariantSpec
from framework.config.commands import add_feature_gates_argument, feature_gates_argument
from framework.features import FeatureGateError

PROGRAM = "compare"


def run(args: argparse.Namespace) -> int:
    if len(args.config) < 2 or not (args.objects or args.recording):
        print(
            f"{PROGRAM}: give two --config files or more, and --objects or --recording",
            file=sys.stderr,
        )
        return 1
    try:
        specs = _specs(args.config)
        inputs = _inputs(args)
        report = compare(specs, inputs, processes=args.processes, trace_limit=args.trace_limit)
    except CompareError as err:
        print(f"{PROGRAM}: {_where(err, args)}{err}", file=sys.stderr)
        return 1
    except (OSError, FeatureGateError) as err:
        print(f"{PROGRAM}: {err}", file=sys.stderr)
        return 1
    if args.output == "json":
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_table(report))
    return 0


def _specs(paths: list[str]) -> list[VariantSpec]:
    """One variant per file."""
    names = _variant_names(paths)
    return [
        VariantSpec(name, _read(path, "config")) for name, path in zip(names, paths, strict=True)
    ]


def _variant_names(paths: list[str]) -> list[str]:
    """Each file's stem, or its path when two stems are the same."""
    stems = [Path(path).stem for path in paths]
    return [
        stem if stems.count(stem) == 1 else path for stem, path in zip(stems, paths, strict=True)
    ]


def _inputs(args: argparse.Namespace) -> CompareInputs:
    """The objects file, then the recording's every line as a change; without objects, the
    recording's snapshot is the objects and the rest its changes."""
    features = feature_gates_argument(args)
    if not args.objects:
        text = _read(args.recording, "recording")
        return inputs_from_recording(text, seed=args.seed, features=features)
    changes: list[Change] = []
    if args.recording:
        _, changes = read_recording(_read(args.recording, "recording"))
    return CompareInputs(
        objects_text=_read(args.objects, "objects"),
        changes=tuple(changes),
        seed=args.seed,
        features=features,
    )


def _read(path: str, part: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise CompareError(f"open {path}: {(err.strerror or str(err)).lower()}") from None
    except UnicodeDecodeError as err:
        raise CompareError(f"{path}: not UTF-8 text: {err}", part=part) from None


def _where(err: CompareError, args: argparse.Namespace) -> str:
    """The file at fault, as a prefix for the message."""
    if err.part == "config":
        paths = dict(zip(_variant_names(args.config), args.config, strict=True))
        return f"{paths.get(err.variant, err.variant)}: "
    if err.part == "objects":
        return f"{args.objects}: "
    if err.part == "recording":
        return f"{args.recording}: "
    if err.part == "features":
        return "--feature-gates: "
    return ""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        PROGRAM,
        help="schedule the same cluster under several configurations and compare the outcomes",
    )
    parser.add_argument(
        "--config",
        action="append",
        required=True,
        help="KubeSchedulerConfiguration file (repeat: two or more; the first is the baseline)",
    )
    parser.add_argument(
        "--objects",
        help="Kubernetes manifests (YAML or JSON): the cluster every variant starts from",
    )
    parser.add_argument(
        "--recording",
        help="a playground recording (JSON lines): its changes follow the objects, each at its"
        " time (without --objects, its snapshot is the objects)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (ties, preemption)")
    parser.add_argument("--processes", type=int, help="worker processes (default: one a variant)")
    parser.add_argument(
        "--trace-limit",
        type=int,
        default=TRACE_LIMIT,
        help=f"differing pods whose attempts are traced in phase 2 (default {TRACE_LIMIT})",
    )
    parser.add_argument("--output", choices=("json", "table"), default="table")
    add_feature_gates_argument(parser)
    parser.set_defaults(handler=run)
