"""Reading a page's list of problems back from its HTML."""

from __future__ import annotations

import html
import re


def error_items(content: str) -> list[str]:
    """The items of the page's one list of problems (``ul.errors``), unescaped, markup kept."""
    (errors,) = re.findall(r'<ul class="errors"[^>]*>(.*?)</ul>', content, re.S)
    return [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", errors, re.S)]
