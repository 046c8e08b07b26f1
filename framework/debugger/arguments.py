"""The command line's breakpoint options, shared by ``simulate`` and ``debug``."""

from __future__ import annotations

import argparse

from framework.debugger.breakpoints import Breakpoint, parse_breakpoint


def add_breakpoint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--break",
        dest="breaks",
        action="append",
        default=[],
        metavar="POINT[:PLUGIN][@NODE]",
        help="stop at an extension point (preEnqueue … postBind), optionally at one plugin and, "
        "at filter or score, one node; 'podGroup' stops as a pod group's cycle starts; "
        "'failure' stops where an attempt fails (repeatable)",
    )
    parser.add_argument(
        "--break-pod", default="", metavar="NS/NAME", help="breakpoints concern this pod only"
    )
    parser.add_argument(
        "--break-selector",
        default="",
        metavar="SELECTOR",
        help="breakpoints concern pods with these labels only (app=web,tier!=db)",
    )
    parser.add_argument(
        "--break-profile", default="", metavar="NAME", help="breakpoints concern this profile only"
    )


def breakpoints_from_arguments(args: argparse.Namespace) -> list[Breakpoint]:
    """The breakpoints the options ask for; BreakpointError names a bad one."""
    narrowing = {
        "pod": args.break_pod,
        "selector": args.break_selector,
        "profile": args.break_profile,
    }
    return [parse_breakpoint(text, **narrowing) for text in args.breaks]
