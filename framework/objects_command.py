"""``python -m framework objects validate FILE``: what kube-apiserver would answer creating
every object of FILE, as ``kubectl apply --dry-run=server -f FILE`` would, without a run.

The same checks as ``simulate`` makes before it starts (decoding with strict field
validation, admission, validation; ``framework.admission.admit``): every refused object on a
line of its own (exit status 1), or how many objects would be created (exit status 0). FILE
may be ``-`` for standard input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from framework.admission.admit import create_objects
from framework.api.errors import ObjectError
from framework.api.loader import decode_objects


def register(subparsers: Any) -> None:
    """Adds ``objects validate`` to the command line's sub-parsers."""
    objects = subparsers.add_parser("objects", help="Kubernetes object tools")
    commands = objects.add_subparsers(dest="objects_command", required=True)
    check = commands.add_parser(
        "validate", help="check every object of a file as kube-apiserver checks a create"
    )
    check.add_argument("file", help="a YAML or JSON file of objects, - for stdin")
    check.set_defaults(handler=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
        decoded, invalid = decode_objects(text)
    except OSError as err:
        print(f"open {args.file}: {(err.strerror or str(err)).lower()}", file=sys.stderr)
        return 1
    except ObjectError as err:
        print(err, file=sys.stderr)
        return 1
    created, refused = create_objects(decoded)
    for error in [*invalid, *refused]:
        print(error, file=sys.stderr)
    if invalid or refused:
        return 1
    print(f"{len(created)} object{'s' * (len(created) != 1)} would be created")
    return 0
