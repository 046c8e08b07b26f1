"""``python -m framework debug``: the debugger at a terminal prompt.

Each stop prints one line (pod, attempt, where, why); the prompt then takes ``step``, ``next``,
``continue``, ``run``, ``abort``, ``print [section]``, ``help`` and ``quit`` (or their first
letters). The end of the input is ``quit``: no more stops, the simulation runs to its end.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from framework.api.errors import ObjectError
from framework.config.load import ConfigError
from framework.debugger.arguments import add_breakpoint_arguments, breakpoints_from_arguments
from framework.debugger.breakpoints import Breakpoint, BreakpointError
from framework.debugger.session import ABORT, CONTINUE, NEXT, RUN, STEP, Debugger, Stop
from framework.debugger.session import describe_stop as describe
from framework.runtime.framework import FrameworkError
from framework.simulate_command import read_objects, render_table
from framework.simulator import Simulation, SimulationError

PROMPT = "(debug) "
SECTIONS = ("results", "cycleState", "nodes", "nominatedPods", "queue", "event")
HELP = f"""\
step (s)      stop at the next plugin call or extension point end
next (n)      stop at the end of this extension point
continue (c)  stop at the next breakpoint
run (r)       no more stops in this attempt
abort (a)     end this attempt with an Error status; the pod goes back to the queue
print (p) [SECTION]  the state at this stop, or one of: {", ".join(SECTIONS)}
quit (q)      no more stops at all: the simulation runs to its end
help (h)      this text"""
COMMANDS = {
    "s": STEP,
    "step": STEP,
    "n": NEXT,
    "next": NEXT,
    "c": CONTINUE,
    "continue": CONTINUE,
    "r": RUN,
    "run": RUN,
    "a": ABORT,
    "abort": ABORT,
}


class Console:
    """Answers the debugger's stops from a prompt."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.debugger: Debugger | None = None

    def answer(self, stop: Stop) -> str:
        self.say(describe(stop))
        while True:
            self.stdout.write(PROMPT)
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                return self._quit()
            word, _, rest = line.strip().partition(" ")
            if word in COMMANDS:
                return COMMANDS[word]
            if word in ("q", "quit"):
                return self._quit()
            if word in ("p", "print"):
                self._print(stop, rest.strip())
            elif word in ("h", "help", "?"):
                self.say(HELP)
            elif word:
                self.say(f"unknown command {word!r}: type help")

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")

    def _print(self, stop: Stop, section: str) -> None:
        state: dict[str, Any] = stop.to_dict()
        if section and section not in SECTIONS:
            self.say(f"no section {section!r}: one of {', '.join(SECTIONS)}")
            return
        self.say(json.dumps(state[section] if section else state, indent=2))

    def _quit(self) -> str:
        if self.debugger is not None:
            self.debugger.breakpoints = []
        return RUN


def run(args: argparse.Namespace) -> int:
    console = Console(sys.stdin, sys.stdout)
    try:
        breakpoints = breakpoints_from_arguments(args) or [
            Breakpoint(point="preFilter", pod=args.break_pod, selector=args.break_selector)
        ]
        debugger = Debugger(breakpoints, console.answer)
        console.debugger = debugger
        simulation = Simulation(
            args.config, read_objects(args.objects), seed=args.seed, debugger=debugger
        )
        reports = simulation.run()
    except (OSError, ConfigError, ObjectError, FrameworkError, SimulationError) as err:
        print(f"debug: {err}", file=sys.stderr)
        return 1
    except BreakpointError as err:
        print(f"debug: --break: {err}", file=sys.stderr)
        return 1
    sys.stdout.write(render_table(reports))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "debug",
        help="schedule the pending pods of a cluster, stopping at breakpoints (a prompt)",
        description="Like simulate, but stops at breakpoints (default: every attempt's "
        "PreFilter) and asks what to do: step, next, continue, run, abort, print, quit.",
    )
    parser.add_argument("--config", required=True, help="KubeSchedulerConfiguration file")
    parser.add_argument("--objects", required=True, help="Kubernetes manifests (YAML or JSON)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (ties, preemption)")
    add_breakpoint_arguments(parser)
    parser.set_defaults(handler=run)
