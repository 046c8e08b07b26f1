"""Mirroring a cluster in a real browser, against the Kubernetes API server for tests.

A person starts mirroring a stored connection: the page makes the workspace, a worker of the
running playground (the embedded one, or the worker process with Redis) starts the mirror,
and the page's Mirror section turns from starting to synced by itself, counting the nodes. A
node added to the cluster shows up in the workspace, whose pages say it is a read-only mirror
and refuse an edit. Stop mirroring leaves an ordinary workspace.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from playground.clusters.models import ClusterConnection
from tests.browser.steps import from_the_database, log_in
from tests.browser.test_connections import encryption_key, server  # noqa: F401  (fixtures)
from tests.playground.clusters.test_mirror import node


def stored_connection(kube_api, username: str) -> ClusterConnection:
    connection = ClusterConnection(
        name="lab", owner=get_user_model().objects.get(username=username), server=kube_api.url
    )
    connection.set_kubeconfig(kube_api.kubeconfig_text())
    connection.save()
    return connection


def test_a_mirror_is_started_followed_and_stopped_from_the_page(context, demo, kube_api):
    kube_api.create(node("n1"))
    kube_api.create(node("n2"))
    connection = from_the_database(lambda: stored_connection(kube_api, demo["username"]))
    page = context.new_page()
    log_in(page, demo)
    page.goto(connection.get_absolute_url())

    page.get_by_label("Workspace name").fill("Lab mirror")
    page.get_by_role("button", name="Start mirroring").click()
    expect(page.locator(".flash.success")).to_contain_text('Mirroring into workspace "Lab mirror"')
    section = page.locator("#mirror")
    expect(section.locator("[data-mirror-state]")).to_have_text("synced")  # htmx refreshed it
    expect(section.locator('tr[data-kind="Node"] td').nth(1)).to_have_text("2")

    kube_api.create(node("n3"))
    expect(section.locator('tr[data-kind="Node"] td').nth(1)).to_have_text("3")

    section.get_by_role("link", name="Lab mirror").click()
    expect(page.locator(".mirror-badge")).to_contain_text("mirror of lab · read-only")
    page.goto(page.url + "nodes/")
    for name in ("n1", "n2", "n3"):
        expect(page.get_by_role("cell", name=name, exact=True)).to_be_visible()
    a_change_is_refused(page)

    page.goto(connection.get_absolute_url())
    page.get_by_role("button", name="Stop mirroring").click()
    expect(page.locator(".flash.success")).to_contain_text("is an ordinary workspace now")
    expect(page.get_by_role("button", name="Start mirroring")).to_be_visible()
    assert (
        from_the_database(lambda: ClusterConnection.objects.get(pk=connection.pk).workspace) is None
    )


def a_change_is_refused(page: Page) -> None:
    """The object editor of a mirrored workspace answers a save with the reason, keeping the
    page (nothing is lost: the browser's back button has the text)."""
    slug = page.url.rstrip("/").split("/")[-2]
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        f"/w/{slug}/objects/new/",
        form={"text": "kind: Pod"},
        headers={"X-CSRFToken": token, "Referer": page.url},
    )
    assert response.status == 409
    assert "cannot be changed here" in response.text()
