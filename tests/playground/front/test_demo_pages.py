"""Every page renders for the demo workspace, whose cluster exercises most of what they show."""

import pytest
from django.urls import reverse

from playground.workspaces.models import ClusterObject
from playground.workspaces.services import demo_workspace


@pytest.fixture
def demo(user):
    return demo_workspace(user)


def test_every_workspace_page_renders_for_the_demo(logged_in, demo):
    pod = ClusterObject.objects.filter(workspace=demo, kind="Pod").first()
    node = ClusterObject.objects.filter(workspace=demo, kind="Node").first()
    urls = [
        reverse(name, args=[demo.slug])
        for name in ("workspace", "nodes", "pods", "objects", "queue", "permit", "profile")
    ]
    urls += [
        reverse("transfer", args=[demo.slug]),
        reverse("export", args=[demo.slug]),
        reverse("object-new", args=[demo.slug]),
        reverse("object", args=[demo.slug, node.pk]),
        reverse("pod", args=[demo.slug, pod.uid]),
    ]
    for url in urls:
        assert logged_in.get(url).status_code == 200, url


def test_the_demo_nodes_show_extended_resources_as_the_scheduler_counts_them(logged_in, demo):
    content = logged_in.get(reverse("nodes", args=[demo.slug])).content.decode()
    assert "nvidia.com/gpu=present:NoSchedule" in content
    assert "topology.kubernetes.io/zone=zone-a" in content
