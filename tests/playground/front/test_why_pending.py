"""The explain panels against workspaces the scheduler service really scheduled: a pending
pod's "Why pending" (its reasons as bars, the closest node and what it lacks with the missing
part marked, what would requeue it, its next try), the pods list's tooltip, and an attempt's
Preemption panel naming the criterion that decided.

Run both ways: embedded (SQLite) and with DATABASE_URL / REDIS_URL set (PostgreSQL, Redis).
"""

from __future__ import annotations

import re

import pytest

from playground.front import preemption_panel, why_pending
from playground.workspaces.models import (
    ClusterObject,
    SchedulerConfiguration,
    SchedulerStatus,
    SchedulingAttempt,
)
from playground.workspaces.services import add_configuration_revision
from tests.playground.front.explain_scenario import preempting_objects, stuck_objects
from tests.playground.scheduling.conftest import (  # noqa: F401 (fixtures)
    binding_tasks,
    clock,
    make_service,
    sent,
)
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_service import settle


@pytest.fixture(autouse=True)
def forgetful():
    """Every test explains afresh (the answers are kept per process)."""
    why_pending._ANSWERS.clear()
    preemption_panel._ANSWERS.clear()


@pytest.fixture
def stuck(cluster, make_service, binding_tasks):  # noqa: F811 (the fixtures imported above)
    """The big pod after its first attempt, unschedulable, the service's queue published."""
    for manifest in stuck_objects():
        cluster.add(manifest)
    service = make_service()
    assert service.start()
    settle(service, binding_tasks)
    return service


@pytest.fixture
def preempted(cluster, make_service, binding_tasks, clock):  # noqa: F811 (the fixtures above)
    """The urgent pod: its first attempt nominated a node by evicting a victim, its next one
    bound it there."""
    objects, preemptor = preempting_objects()
    for manifest in objects:
        cluster.add(manifest)
    service = make_service()
    assert service.start()
    settle(service, binding_tasks)
    cluster.add(preemptor)
    for _ in range(10):
        settle(service, binding_tasks)
        if cluster.get("Pod", "urgent", "default").spec.node_name:
            break
        clock.step(1.1)  # its backoff
    return SchedulingAttempt.objects.get(pod_key="default/urgent", number=1)


def panel(client, uid="uid-big") -> str:
    response = client.get(f"/w/lab/pods/{uid}/why/")
    assert response.status_code == 200
    return response.content.decode()


def closest_item(content: str, node: str) -> str:
    found = re.search(rf'<li data-node="{node}">(.*?)</li>', content, re.S)
    assert found, f"{node} is not among the closest nodes"
    return found.group(1)


def test_the_panel_names_the_closest_node_and_what_it_lacks(htmx, stuck):
    content = panel(htmx)
    assert content.startswith('<section id="why-pending"')
    item = closest_item(content, "node-a")
    assert "NodeResourcesFit" in item
    assert "needs 1.5 CPU more: 2.5 free of 4" in item
    # The usage bar: 1.5 used by others, 2.5 of the pod fits, 1.5 missing past the mark.
    assert "needs 4 · free 2.5 of 4" in item and "missing 1.5" in item
    scale = 5.5
    short = round(100 * 1.5 / scale, 2)
    assert f'<rect class="short" x="{round(100 * 4 / scale, 2)}" width="{short}"' in item
    # The tainted node lacks a toleration, not CPU: no missing part drawn there.
    taint = closest_item(content, "node-c")
    assert "TaintToleration" in taint and "gpu=true:NoSchedule" in taint
    assert 'class="short"' not in taint


def test_the_reasons_are_bars_summing_to_the_nodes_the_most_rejecting_marked(htmx, stuck):
    content = panel(htmx)
    assert "Reasons across 3 nodes" in content
    rows = re.findall(
        r'<tr( class="most-rejecting")?>\s*<td>(\w+).*?</td>\s*<td>(.*?)</td>\s*'
        r'<td class="num">(\d+)</td>',
        content,
        re.S,
    )
    counts = {(plugin, reason): int(nodes) for _, plugin, reason, nodes in rows}
    assert counts == {
        ("NodeResourcesFit", "Insufficient cpu"): 2,
        ("TaintToleration", "node(s) had untolerated taint(s)"): 1,
    }
    assert [plugin for most, plugin, _, _ in rows if most] == ["NodeResourcesFit"]
    assert 'aria-label="2 of 3 nodes"' in content and 'class="fill most"' in content
    message = SchedulingAttempt.objects.get(pod_key="default/big").message
    assert message.startswith("0/3 nodes are available") and message in content


def test_the_panel_says_what_would_requeue_it_and_counts_down_to_its_next_try(htmx, stuck):
    [entry] = SchedulerStatus.objects.get().queue["unschedulable"]
    assert entry["leftoverAt"] > 0  # the end of its stay, published by the service
    content = panel(htmx)
    assert 'aria-label="What would requeue it"' in content
    assert "<strong>NodeResourcesFit</strong>" in content
    seconds = float(re.search(r'data-seconds-left="([\d.]+)"', content).group(1))
    # podMaxInUnschedulablePodsDuration, 5 minutes, from the attempt (the test's clock starts
    # up to a second ahead of the wall clock)
    assert 280 < seconds <= 301
    assert "Unschedulable, moved back to be tried whatever happens" in content


def test_a_pod_in_backoff_counts_down_to_the_end_of_its_backoff(htmx, stuck, cluster):
    SchedulerStatus.objects.filter().update(
        queue={"backoff": [{"pod": "default/big", "uid": "uid-big", "backoffSeconds": 7.5}]}
    )
    content = panel(htmx)
    assert "In backoff, tried again when it ends:" in content
    seconds = float(re.search(r'data-seconds-left="([\d.]+)"', content).group(1))
    assert 5 < seconds <= 7.5


def test_a_gated_pod_without_attempts_names_its_gates(htmx, cluster):
    cluster.add(node_manifest("node-a"))
    cluster.add(pod_manifest("held", schedulingGates=[{"name": "example.com/quota"}]))
    content = panel(htmx, "uid-held")
    assert "Held by its scheduling gates: <code>example.com/quota</code>" in content
    assert "No attempt yet." in content


def test_a_bound_pod_has_nothing_to_explain(htmx, stuck):
    content = panel(htmx, "uid-busy")
    assert "nothing keeps it pending" in content


def test_the_pod_page_loads_the_panel_after_the_page_only_for_a_pending_pod(logged_in, stuck):
    content = logged_in.get("/w/lab/pods/uid-big/").content.decode()
    assert 'hx-get="/w/lab/pods/uid-big/why/" hx-trigger="load"' in content
    assert "needs 1.5 CPU more" not in content  # not computed with the page
    assert (
        'hx-get="/w/lab/pods/uid-busy/why/"'
        not in logged_in.get("/w/lab/pods/uid-busy/").content.decode()
    )


def test_without_javascript_the_panel_is_a_page_of_its_own(logged_in, stuck):
    content = logged_in.get("/w/lab/pods/uid-big/why/").content.decode()
    assert "<h1>Why pod" in content and "needs 1.5 CPU more: 2.5 free of 4" in content


def test_the_tooltip_gives_the_short_why(htmx, stuck):
    text = htmx.get("/w/lab/pods/uid-big/why/short/").content.decode().strip()
    first = re.search(
        r'<li data-node="([\w-]+)"><strong>[\w-]+</strong> <span class="muted">'
        r'· \w+</span> <span class="missing">(.*?)</span>',
        panel(htmx),
    )
    assert text == f"NodeResourcesFit rejected 2 of 3 nodes; closest: {first[1]}, {first[2]}"


def test_the_pods_list_explains_nothing_until_a_tooltip_is_hovered(logged_in, stuck, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the pods list ran explain")

    monkeypatch.setattr(why_pending, "_explain", refuse)
    content = logged_in.get("/w/lab/pods/").content.decode()
    assert 'hx-get="/w/lab/pods/uid-big/why/short/" hx-trigger="mouseenter once, focus once"' in (
        content
    )
    assert "/w/lab/pods/uid-busy/why/short/" not in content  # bound: nothing to explain


def test_an_explanation_is_kept_until_the_cluster_changes(htmx, stuck, cluster, monkeypatch):
    calls = []
    real = why_pending._explain
    monkeypatch.setattr(why_pending, "_explain", lambda *a: calls.append(1) or real(*a))
    panel(htmx)
    htmx.get("/w/lab/pods/uid-big/why/short/")
    assert len(calls) == 1
    cluster.add(node_manifest("node-d", cpu="1"))
    assert "Reasons across 4 nodes" in panel(htmx)
    assert len(calls) == 2


def test_the_attempt_page_loads_the_preemption_panel_of_an_attempt_that_preempted(
    logged_in, preempted
):
    url = "/w/lab/pods/uid-urgent/attempts/1/"
    assert f'hx-get="{url}preemption/" hx-trigger="load"' in logged_in.get(url).content.decode()
    second = "/w/lab/pods/uid-urgent/attempts/2/"
    assert "preemption/" not in logged_in.get(second).content.decode()  # no PostFilter there


def test_the_preemption_panel_names_the_deciding_criterion_and_the_nominated_node(htmx, preempted):
    assert preempted.nominated_node == "node-b"
    assert ClusterObject.objects.filter(name="victim-b").count() == 0  # evicted since
    content = htmx.get("/w/lab/pods/uid-urgent/attempts/1/preemption/").content.decode()
    assert content.startswith('<section id="preemption"')
    assert '<strong data-testid="nominated-node">node-b</strong>' in content
    decided = re.search(r'<li class="decided" aria-current="true">(.*?) ← decided</li>', content)
    assert decided and "highest" in decided.group(1).lower()
    # Both nodes were candidates, each with its victim and the victim's priority.
    assert 'data-node="node-a"' in content and "default/victim-a (10)" in content
    assert 'class="nominated" data-node="node-b"' in content and "default/victim-b (5)" in content


def test_a_preemption_that_could_not_help_says_why(htmx, stuck):
    content = htmx.get("/w/lab/pods/uid-big/attempts/1/preemption/").content.decode()
    assert "Preemption could not help" in content
    assert "Preemption is not helpful for scheduling" in content


def test_an_attempt_that_did_not_reach_post_filter_ran_no_preemption(htmx, preempted):
    content = htmx.get("/w/lab/pods/uid-urgent/attempts/2/preemption/").content.decode()
    assert "did not reach PostFilter" in content


def test_a_pod_whose_latest_attempt_found_a_node_is_not_explained(
    htmx, workspace, cluster, monkeypatch
):
    monkeypatch.setattr(why_pending, "explain_pod", None)  # never called
    cluster.add(node_manifest("node-a"))
    cluster.add(pod_manifest("held"))
    SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key="default/held",
        pod_uid="uid-held",
        profile="default-scheduler",
        result="Waiting",
        node="node-a",
    )
    content = panel(htmx, "uid-held")
    assert "The latest attempt found it a node, <strong>node-a</strong>, where it waits" in content


def test_a_deleted_pods_preemption_is_explained_from_the_change_log(htmx, preempted, cluster):
    cluster.delete(cluster.get("Pod", "urgent", "default"))
    content = htmx.get("/w/lab/pods/uid-urgent/attempts/1/preemption/").content.decode()
    assert '<strong data-testid="nominated-node">node-b</strong>' in content


WITHOUT_FIT = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      disabled:
      - {name: NodeResourcesFit}
"""


def test_the_attempt_is_explained_under_the_revision_it_ran_not_one_saved_after_its_start(
    htmx,
    workspace,
    cluster,
    make_service,  # noqa: F811 (the fixtures imported above)
    binding_tasks,  # noqa: F811
):
    """A revision saved (or applied) while the scheduler still runs the old one is not the
    attempt's: here the scheduler ran the defaults, where NodeResourcesFit rejected node-a."""
    objects = stuck_objects()
    for manifest in objects[:-1]:
        cluster.add(manifest)
    service = make_service()
    assert service.start()
    settle(service, binding_tasks)
    _, problems = add_configuration_revision(workspace, WITHOUT_FIT)
    assert not problems
    cluster.add(objects[-1])  # the big pod, tried before the service picks revision 1 up
    settle(service, binding_tasks)

    attempt = SchedulingAttempt.objects.get(pod_key="default/big")
    assert attempt.configuration_revision == SchedulingAttempt.DEFAULT_CONFIGURATION
    item = closest_item(panel(htmx), "node-a")
    assert "NodeResourcesFit" in item and "needs 1.5 CPU more: 2.5 free of 4" in item

    # Were it an old attempt, its revision would be guessed: revision 1, without the plugin.
    SchedulingAttempt.objects.filter(pk=attempt.pk).update(configuration_revision=None)
    why_pending._ANSWERS.clear()
    assert 'data-node="node-a"' not in panel(htmx), "no plugin rejects node-a under it"


def test_an_attempt_whose_revision_is_not_valid_any_more_is_not_explained_and_says_why(
    htmx, stuck, workspace
):
    """A stored revision the engine refuses now (here written past the editor's check) makes
    the panel say so, naming the revision, rather than fail the request."""
    broken = SchedulerConfiguration.objects.create(
        workspace=workspace,
        revision=7,
        text="apiVersion: kubescheduler.config.k8s.io/v1\nkind: Nope\n",
    )
    SchedulingAttempt.objects.filter(pod_key="default/big").update(
        configuration_revision=broken.revision
    )
    why_pending._ANSWERS.clear()
    content = panel(htmx)
    assert "revision 7" in content and "not valid any more" in content
