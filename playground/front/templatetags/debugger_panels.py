"""``{% debugger_panels stop %}``: the debugger's panels for a stop-shaped dict.

A tag, so the panels' one input stays the ``stop`` dict: a page includes
front/debugger_panels.html with ``stop`` in its context (the live stop, a replay) and the data
the panels need is prepared in Python (playground/front/stop_panels.py), not in the template.
"""

from __future__ import annotations

from typing import Any

from django import template

from playground.front.stop_panels import panels_context

register = template.Library()


@register.inclusion_tag("front/debugger_panels_body.html")
def debugger_panels(stop: dict[str, Any]) -> dict[str, Any]:
    return panels_context(stop)
