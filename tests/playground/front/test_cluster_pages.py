"""The nodes, pods and objects pages: full pages, htmx fragments, paging and access."""

import pytest

from playground.workspaces.models import SchedulerStatus
from tests.playground.front.rows import node, pod, store

PAGES = ["/w/lab/nodes/", "/w/lab/pods/", "/w/lab/objects/"]
PAGE_IDS = ["nodes", "pods", "objects"]


@pytest.mark.parametrize("url", PAGES, ids=PAGE_IDS)
def test_anonymous_visitors_are_sent_to_log_in(client, workspace, url):
    assert client.get(url)["Location"].startswith("/login/")


@pytest.mark.parametrize("url", PAGES, ids=PAGE_IDS)
def test_people_outside_the_workspace_get_a_404(client, stranger, workspace, url):
    client.force_login(stranger)
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    ("url", "fragment_id"),
    list(zip(PAGES, ["nodes-table", "pods-live", "objects-table"], strict=True)),
    ids=PAGE_IDS,
)
def test_htmx_gets_the_table_and_a_browser_the_page(logged_in, htmx, workspace, url, fragment_id):
    htmx_content = htmx.get(url).content.decode()
    assert htmx_content.startswith(f'<div id="{fragment_id}"')
    del htmx.defaults["HTTP_HX_REQUEST"]
    page = logged_in.get(url).content.decode()
    assert page.startswith("<!doctype html>")
    assert f'<div id="{fragment_id}"' in page


def test_the_nodes_page_shows_usage_labels_and_taints(logged_in, workspace):
    taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    store(workspace, node("n1", cpu="4", memory="8Gi", taints=taints))
    store(workspace, pod("a", cpu="3", memory="2Gi", nodeName="n1"))
    content = logged_in.get("/w/lab/nodes/").content.decode()
    assert "3 / 4" in content
    assert "2Gi / 8Gi" in content
    assert "1 / 110" in content
    assert 'class="bar "' in content and 'style="width: 75%"' in content
    assert "dedicated=gpu:NoSchedule" in content
    assert "kubernetes.io/hostname=n1" in content


def test_the_nodes_page_is_paged(logged_in, workspace):
    for i in range(101):
        store(workspace, node(f"n{i:03}"))
    first = logged_in.get("/w/lab/nodes/").content.decode()
    assert "n099" in first and "n100" not in first
    assert "page 1 of 2" in first
    second = logged_in.get("/w/lab/nodes/?page=2").content.decode()
    assert "n100" in second and "n099" not in second


def test_the_pods_page_shows_each_state_with_its_message(logged_in, workspace):
    store(workspace, pod("bound", nodeName="n1"))
    store(workspace, pod("gated", schedulingGates=[{"name": "example.com/quota"}]))
    failed = pod("failed")
    failed["status"] = {
        "conditions": [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/3 nodes are available: 3 Insufficient cpu.",
            }
        ]
    }
    store(workspace, failed)
    store(workspace, pod("waiting"))
    store(workspace, pod("fresh"))
    SchedulerStatus.objects.create(
        workspace=workspace,
        waiting_pods=[{"pod": "default/waiting", "uid": "uid-waiting", "pendingPlugins": ["X"]}],
    )
    content = logged_in.get("/w/lab/pods/").content.decode()
    assert '<span class="badge bound">bound</span>' in content
    assert '<span class="badge gated">gated</span>' in content
    assert "waiting for example.com/quota" in content
    assert '<span class="badge unschedulable">unschedulable</span>' in content
    assert "0/3 nodes are available: 3 Insufficient cpu." in content
    assert '<span class="badge waiting">waiting at Permit</span>' in content
    assert '<span class="badge pending">pending</span>' in content
    assert 'href="/w/lab/pods/uid-fresh/"' in content


def test_the_objects_page_lists_other_kinds_and_filters_by_kind(logged_in, workspace):
    store(workspace, {"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000})
    store(workspace, {"kind": "Namespace", "metadata": {"name": "team-a"}})
    store(workspace, node("n1"))
    content = logged_in.get("/w/lab/objects/").content.decode()
    assert ">high</a>" in content and ">team-a</a>" in content and ">n1</a>" not in content
    filtered = logged_in.get("/w/lab/objects/?kind=Namespace").content.decode()
    assert ">team-a</a>" in filtered
    assert ">high</a>" not in filtered
