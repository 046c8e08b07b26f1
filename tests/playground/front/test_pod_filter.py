"""The pods page's filter: by name, namespace, state, node and labels, kept in the URL."""

from __future__ import annotations

import pytest

from playground.front.live import LiveView, workspace_resync
from playground.front.pod_filter import PodFilter
from playground.front.queue_board import board_from
from playground.workspaces.models import SchedulerStatus
from tests.playground.front.rows import pod, store


def labelled(name: str, namespace: str = "default", labels: dict | None = None, **spec) -> dict:
    manifest = pod(name, **spec)
    manifest["metadata"].update(namespace=namespace, labels=labels or {})
    return manifest


@pytest.fixture
def shop(workspace):
    """Pods in two namespaces, bound and not, with labels; web-2 is in the active queue."""
    store(workspace, labelled("web-1", "shop", {"app": "web", "tier": "front"}, nodeName="n1"))
    store(workspace, labelled("web-2", "shop", {"app": "web", "tier": "front"}))
    store(workspace, labelled("db-1", "shop", {"app": "db", "tier": "back"}, nodeName="n2"))
    store(workspace, labelled("batch-1", "jobs", {"app": "batch"}))
    gated = labelled("batch-2", "jobs", {"app": "batch"})
    gated["spec"]["schedulingGates"] = [{"name": "example.com/quota"}]
    store(workspace, gated)
    queue = {"active": [{"pod": "shop/web-2", "uid": "uid-web-2", "priority": 0}]}
    SchedulerStatus.objects.create(workspace=workspace, queue=queue)
    return workspace


def names(workspace, **query) -> list[str]:
    board = board_from(SchedulerStatus.objects.get(workspace=workspace).queue, [])
    return [row.name for row in PodFilter.from_query(query).pods(workspace, board.where())]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({}, ["batch-1", "batch-2", "db-1", "web-1", "web-2"]),
        ({"name": "WEB"}, ["web-1", "web-2"]),
        ({"namespace": "jobs"}, ["batch-1", "batch-2"]),
        ({"node": "n2"}, ["db-1"]),
        ({"state": "bound"}, ["db-1", "web-1"]),
        ({"state": "active"}, ["web-2"]),
        ({"state": "gated"}, ["batch-2"]),
        ({"state": "pending"}, ["batch-1"]),
        ({"labels": "app=web"}, ["web-1", "web-2"]),
        ({"labels": "tier in (front,back),app!=web"}, ["db-1"]),
        ({"labels": "!tier"}, ["batch-1", "batch-2"]),
        ({"labels": "app=web", "state": "bound", "namespace": "shop"}, ["web-1"]),
        ({"name": "web", "namespace": "jobs"}, []),
    ],
    ids=[
        "no filter: every pod, by namespace and name",
        "part of the name, any case",
        "a namespace",
        "a node",
        "bound",
        "a place in the scheduler's queue",
        "gated by the pod's own spec",
        "pending: in no queue yet",
        "a label",
        "a set and a negation",
        "a label that is missing",
        "every field at once",
        "nothing matches",
    ],
)
def test_a_filter_lists_the_pods_that_match_every_field_it_sets(shop, query, expected):
    assert names(shop, **query) == expected


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"labels": "app in (web"}, "labels", "unable to parse requirement: found '', expected"),
        ({"state": "sleeping"}, "state", 'unknown state "sleeping": choose one of bound, '),
    ],
    ids=["a label selector that does not parse", "a state that does not exist"],
)
def test_a_filter_that_cannot_be_used_names_the_field_and_matches_nothing(
    shop, query, field, message
):
    pod_filter = PodFilter.from_query(query)
    assert pod_filter.errors[field].startswith(message)
    assert names(shop, **query) == []


def test_the_filter_is_kept_in_the_url_and_its_links(logged_in, shop):
    content = logged_in.get("/w/lab/pods/?labels=app%3Dweb&namespace=shop").content.decode()
    assert (
        'ws-connect="/ws/w/lab/?view=pods&amp;namespace=shop&amp;labels=app%3Dweb&amp;page=1"'
        in (content)
    )
    assert 'value="app=web"' in content and "<option selected>shop</option>" in content
    assert "2 pods match the filter" in content
    assert "shop/web-1" in content and "shop/db-1" not in content
    assert '<input type="hidden" name="labels" value="app=web">' in content  # the bulk form's


def test_pages_of_a_filtered_list_keep_the_filter(logged_in, workspace, monkeypatch):
    monkeypatch.setattr("playground.front.views.cluster.PAGE_SIZE", 2)
    for i in range(5):
        store(workspace, labelled(f"p{i}", labels={"app": "web" if i % 2 else "db"}))
    first = logged_in.get("/w/lab/pods/?labels=app%3Ddb").content.decode()
    assert "page 1 of 2 (3)" in first
    link = 'href="?labels=app%3Ddb&amp;page=2" hx-get="?labels=app%3Ddb&amp;page=2"'
    assert f'{link} hx-target="#pods-live"' in first
    second = logged_in.get("/w/lab/pods/?labels=app%3Ddb&page=2").content.decode()
    assert "default/p4" in second and "default/p1" not in second


def test_htmx_gets_the_filter_form_with_the_filtered_list(htmx, shop):
    response = htmx.get("/w/lab/pods/?name=&namespace=&state=gated&node=&labels=")
    assert response["HX-Push-Url"] == "/w/lab/pods/?state=gated"  # not the empty fields
    content = response.content.decode()
    assert content.startswith('<div id="pods-live"')
    assert '<option value="gated" selected>gated</option>' in content
    assert "jobs/batch-2" in content and "jobs/batch-1" not in content


def test_a_bad_label_selector_is_refused_naming_the_field(logged_in, shop):
    response = logged_in.get("/w/lab/pods/?labels=app+web")
    assert response.status_code == 422
    content = response.content.decode()
    assert (
        "<li><code>labels</code>: unable to parse requirement: found &#x27;web&#x27;, expected: "
        in content
    )
    assert "No pod matches the filter." in content


def test_the_live_table_shows_the_filtered_pods_of_its_page(shop):
    view = LiveView.from_query(b"view=pods&labels=app%3Dweb&state=active&page=1")
    assert view.pod_filter.labels == "app=web" and view.pod_filter.state == "active"
    html = workspace_resync(shop, view)
    table = html[html.index('<div id="pods-table">') :]
    assert "shop/web-2" in table and "shop/web-1" not in table
