"""The command line: ``config defaults | validate FILE | expand FILE``, ``objects validate
FILE``, ``simulate``, ``compare`` and ``debug``.

Each command is a function returning the process exit status; argparse only dispatches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m framework",
        description="The kube-scheduler v1.36 scheduling framework, in Python.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    config = commands.add_parser("config", help="KubeSchedulerConfiguration tools")
    config_commands = config.add_subparsers(dest="config_command", required=True)
    from framework import objects_command, simulate_command
    from framework.compare import command as compare_command
    from framework.config import commands as config_cmds
    from framework.debugger import console
    from framework.runtime import expand

    config_cmds.register(config_commands)
    expand.register(config_commands)
    objects_command.register(commands)
    simulate_command.register(commands)
    compare_command.register(commands)
    console.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
