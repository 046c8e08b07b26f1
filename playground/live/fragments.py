"""Only what changed goes to a page: the elements a consumer sent, remembered by id.

htmx's websocket extension swaps each top-level element of a message in place of the element
with the same id, replacing it and everything inside. Sending an element again unchanged would
redraw it for nothing and replace its buttons under the person's pointer, so a consumer keeps
the HTML it last sent for each id and sends an element only when it differs.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
"""Elements without an end tag: they open no level of nesting."""


class SentFragments:
    """The HTML last sent for each element id, on one websocket."""

    def __init__(self) -> None:
        self._sent: dict[str, str] = {}

    def changed(self, html: str) -> str:
        """The top-level elements of ``html`` that differ from what was sent under their id
        (elements without an id always go), and remembers them as sent."""
        news = []
        for element_id, element in top_level_elements(html):
            if element_id is not None and self._sent.get(element_id) == element:
                continue
            if element_id is not None:
                self._sent[element_id] = element
            news.append(element)
        return "".join(news)


def top_level_elements(html: str) -> list[tuple[str | None, str]]:
    """Each top-level element of ``html`` with its id (None without one), text between them
    dropped. HTML that does not close what it opens (or closes what it did not open) comes
    back whole, as one element without an id, so that it is always sent."""
    splitter = _Splitter(html)
    if not splitter.balanced:
        return [(None, html)] if html.strip() else []
    return [(element_id, html[start:end]) for element_id, start, end in splitter.elements]


class _Splitter(HTMLParser):
    """Where each top-level element of a text starts and ends."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.elements: list[tuple[str | None, int, int]] = []
        self.balanced = True
        self._html = html
        self._line_starts = [0, *(match.end() for match in re.finditer("\n", html))]
        self._depth = 0
        self._open: tuple[str | None, int] = (None, 0)
        self.feed(html)
        self.close()
        self.balanced = self.balanced and self._depth == 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_ELEMENTS:
            self.handle_startendtag(tag, attrs)
            return
        if self._depth == 0:
            self._open = (dict(attrs).get("id"), self._offset())
        self._depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._depth == 0:
            start = self._offset()
            end = start + len(self.get_starttag_text() or "")
            self.elements.append((dict(attrs).get("id"), start, end))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_ELEMENTS:
            return
        if self._depth == 0:
            self.balanced = False
            return
        self._depth -= 1
        if self._depth == 0:
            element_id, start = self._open
            end = self._html.index(">", self._offset()) + 1
            self.elements.append((element_id, start, end))

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column
