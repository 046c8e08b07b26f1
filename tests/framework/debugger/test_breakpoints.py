"""Breakpoints as the command line writes them, and their refusals."""

from __future__ import annotations

import pytest

from framework.debugger.breakpoints import Breakpoint, BreakpointError, parse_breakpoint


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("score", Breakpoint(point="score")),
        ("filter:NodeResourcesFit", Breakpoint(point="filter", plugin="NodeResourcesFit")),
        ("filter@n1", Breakpoint(point="filter", node="n1")),
        ("score:ImageLocality@n2", Breakpoint(point="score", plugin="ImageLocality", node="n2")),
        ("failure", Breakpoint(on_failure=True)),
    ],
)
def test_point_plugin_and_node_are_read_from_the_text(text, expected):
    assert parse_breakpoint(text) == expected


@pytest.mark.parametrize(
    ("text", "narrowing", "message"),
    [
        (
            "scorex",
            {},
            "point: unknown extension point 'scorex' (one of preEnqueue, podGroup, preFilter",
        ),
        ("reserve@n1", {}, "node: only a breakpoint at filter or score can name a node"),
        ("score", {"pod": "web"}, "pod: 'web' is not namespace/name"),
        ("score", {"pod": "/web"}, "pod: '/web' is not namespace/name"),
        ("score", {"pod": "shop/"}, "pod: 'shop/' is not namespace/name"),
        ("score", {"selector": "app in (web"}, "selector: unable to parse requirement"),
    ],
)
def test_a_bad_breakpoint_is_refused_naming_the_part(text, narrowing, message):
    with pytest.raises(BreakpointError) as refused:
        parse_breakpoint(text, **narrowing)
    assert str(refused.value).startswith(message)


def test_a_breakpoint_on_failure_names_no_plugin():
    """It would never stop at that plugin: a failure is matched at the point that ends so."""
    with pytest.raises(BreakpointError) as refused:
        Breakpoint(on_failure=True, plugin="NodeResourcesFit")
    assert str(refused.value).startswith("plugin: a breakpoint on failure stops where")
