"""Only what changed goes to a page: top-level elements by id, and what a socket sent before."""

import pytest

from playground.front.live import VIEWS, LiveView, workspace_resync
from playground.live.fragments import SentFragments, top_level_elements
from tests.playground.front.rows import node, pod, store


@pytest.mark.parametrize(
    ("html", "elements"),
    [
        (
            '<span id="a">A</span>\n<div id="b"><p>x</p></div>',
            [("a", '<span id="a">A</span>'), ("b", '<div id="b"><p>x</p></div>')],
        ),
        ('<div id="a" title="1 > 0">x</div>', [("a", '<div id="a" title="1 > 0">x</div>')]),
        (
            '<div id="a"><br><img src="x"><input value=">"></div><hr id="b">',
            [("a", '<div id="a"><br><img src="x"><input value=">"></div>'), ("b", '<hr id="b">')],
        ),
        ('<svg id="c"><path d="M0"/></svg>', [("c", '<svg id="c"><path d="M0"/></svg>')]),
        ("<p>no id</p>", [(None, "<p>no id</p>")]),
        ('<div id="a"><p>never closed</div>', [(None, '<div id="a"><p>never closed</div>')]),
        ('<li id="a">x</li></ul>', [(None, '<li id="a">x</li></ul>')]),
        ("  \n", []),
    ],
    ids=[
        "two elements, the text between them dropped",
        "a '>' inside an attribute",
        "void elements open nothing",
        "self-closing SVG elements",
        "an element without an id",
        "an element left open: the whole text",
        "an end tag too many: the whole text",
        "nothing",
    ],
)
def test_the_top_level_elements_of_a_fragment(html, elements):
    assert top_level_elements(html) == elements


def test_a_socket_sends_an_element_again_only_once_it_changed():
    sent = SentFragments()
    assert sent.changed('<b id="a">1</b><b id="b">1</b>') == '<b id="a">1</b><b id="b">1</b>'
    assert sent.changed('<b id="a">1</b><b id="b">1</b>') == ""
    assert sent.changed('<b id="a">1</b><b id="b">2</b>') == '<b id="b">2</b>'
    assert sent.changed('<b id="b">1</b>') == '<b id="b">1</b>'


def test_elements_without_an_id_always_go():
    sent = SentFragments()
    assert sent.changed("<p>x</p>") == "<p>x</p>"
    assert sent.changed("<p>x</p>") == "<p>x</p>"


@pytest.mark.parametrize("view", ["", *VIEWS])
def test_every_live_view_is_made_of_elements_a_socket_can_tell_apart(workspace, view):
    store(workspace, node("n1"))
    store(workspace, pod("web"))
    html = workspace_resync(workspace, LiveView(view))
    elements = top_level_elements(html)
    assert elements and all(element_id for element_id, _ in elements), html
