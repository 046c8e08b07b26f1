"""An attempt's tables read back from the page, as the text a person sees in each cell."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from playwright.sync_api import Locator

CELLS = "t => [...t.rows].map(r => [...r.cells].map(c => [c.innerText.trim(), c.colSpan]))"
RANKING = "r => [...r.children].map(c => c.innerText.trim())"
HEADER = re.compile(r"^(\S+) \u00d7(-?\d+)$")
"""A score column's heading: the plugin, a multiplication sign and its weight."""
CHOSEN = " ★"


@dataclass(frozen=True, slots=True)
class Cell:
    raw: int
    normalized: int
    weighted: int


@dataclass(slots=True)
class Scores:
    weights: dict[str, int] = field(default_factory=dict)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    """node → plugin → its three numbers (plugins that skipped the node are left out)"""
    totals: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Score plugins skipped at PreScore: a column each, every cell of it "skipped"."""


@dataclass(slots=True)
class Ranking:
    chosen: str = ""
    scores: dict[str, int] = field(default_factory=dict)


def filter_matrix(table: Locator) -> dict[str, dict[str, str]]:
    """node → Filter plugin → the cell's text (✓, — or the reasons)."""
    header, *rows = table.evaluate(CELLS)
    plugins = [text for text, _ in header[1:]]
    return {
        row[0][0]: dict(zip(plugins, (text for text, _ in row[1:]), strict=True)) for row in rows
    }


def score_table(table: Locator) -> Scores:
    """The score table: two header rows (plugin and weight, then raw / norm. / weighted)."""
    plugin_row, _, *rows = table.evaluate(CELLS)
    headings = [text for text, _ in plugin_row[1:-1]]
    plugins = [match for text in headings if (match := HEADER.match(text))]
    skipped = [text for text in headings if not HEADER.match(text)]
    scores = Scores(weights={match[1]: int(match[2]) for match in plugins}, skipped=skipped)
    for row in rows:
        node, *cells, (total, _) = row
        scored, skipped_cells = (
            cells[: len(cells) - len(skipped)],
            cells[len(cells) - len(skipped) :],
        )
        assert [text for text, _ in skipped_cells] == ["skipped"] * len(skipped), row
        scores.cells[node[0]] = dict(_node_cells(list(scores.weights), scored))
        scores.totals[node[0]] = int(total)
    return scores


def _node_cells(plugins: list[str], cells: list[list]) -> list[tuple[str, Cell]]:
    """Three numbers per plugin, or one cell spanning three where the plugin skipped."""
    found, cells = [], list(cells)
    for plugin in plugins:
        text, span = cells.pop(0)
        if span == 3:
            continue
        numbers = [int(text)] + [int(cells.pop(0)[0]) for _ in range(2)]
        found.append((plugin, Cell(*numbers)))
    assert not cells, cells
    return found


def ranking(ranks: Locator) -> Ranking:
    """The final ranking: node (starred when chosen), its bar, its score, for every node."""
    texts = ranks.evaluate(RANKING)
    result = Ranking()
    for name, _bar, score in zip(texts[::3], texts[1::3], texts[2::3], strict=True):
        if name.endswith(CHOSEN):
            name = result.chosen = name.removesuffix(CHOSEN)
        result.scores[name] = int(score)
    return result
