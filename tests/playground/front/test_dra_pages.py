"""The pages show DRA as it happens: the demo's GPU pool scheduled by the real scheduler service,
then read back through the nodes, objects, pod and export pages."""

from __future__ import annotations

import math
import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from framework.api.loader import parse_new_object
from framework.util.clock import FakeClock
from playground.front.object_templates import TEMPLATES
from playground.live import broadcast
from playground.scheduling.binding import run_bindings
from playground.scheduling.service import SchedulerService
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.demo import FEATURE_GATES
from playground.workspaces.models import ClusterObject
from playground.workspaces.services import create_workspace, demo_workspace

DEVICE = "gpu.nvidia.com/c-gpu-2/gpu-2"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture
def demo(user):
    return demo_workspace(user)


@pytest.fixture
def scheduled_demo(demo, monkeypatch):
    """The demo after its scheduler service has placed every pod it can (bindings run inline)."""
    return scheduled(demo, monkeypatch)


def scheduled(workspace, monkeypatch):
    monkeypatch.setattr(broadcast, "send", lambda group, message: None)
    requests: list = []
    service = SchedulerService(
        workspace.pk,
        "worker-a",
        clock=FakeClock(math.floor(time.time()) + 0.5),
        dispatch=requests.extend,
        status_interval=0.0,
        background_writes=False,
    )
    assert service.start()
    for _ in range(40):
        assert service.tick()
        if requests:
            batch, requests[:] = list(requests), []
            run_bindings(batch)
        elif not service.busy:
            return workspace
    raise AssertionError("the scheduler did not settle")


def finetune(workspace) -> ClusterObject:
    return ClusterObject.objects.get(workspace=workspace, kind="Pod", name="finetune")


def test_before_scheduling_the_pod_page_shows_its_claim_not_allocated(logged_in, demo):
    page = logged_in.get(reverse("pod", args=[demo.slug, finetune(demo).uid])).content.decode()
    claims = section(page, "pod-claims")
    assert re.search(r">finetune-gpu-\w{5}</a>", claims)
    assert "not allocated" in claims


def test_the_pod_page_shows_the_allocated_device_and_the_reservation(logged_in, scheduled_demo):
    pod = finetune(scheduled_demo)
    assert pod.node_name == "c-gpu-2"
    page = logged_in.get(reverse("pod", args=[scheduled_demo.slug, pod.uid])).content.decode()
    claims = section(page, "pod-claims")
    assert f'<span class="label">{DEVICE}</span>' in claims
    assert "on c-gpu-2" in claims
    assert '<span class="label">finetune</span>' in claims


def test_the_filter_table_has_a_dynamic_resources_column(logged_in, scheduled_demo):
    """Nodes without the device fail DynamicResources at Filter. (One node is left, so there
    is no Score: upstream skips scoring a single feasible node.)"""
    pod = finetune(scheduled_demo)
    page = logged_in.get(reverse("pod", args=[scheduled_demo.slug, pod.uid])).content.decode()
    filters = table_rows(page, "Filter")
    assert filters["c-gpu-1"]["DynamicResources"] == "cannot allocate all claims"
    assert filters["a-large-1"]["DynamicResources"] == "cannot allocate all claims"
    assert filters["c-gpu-2"]["DynamicResources"] == "✓"
    assert filters["control-plane-1"]["DynamicResources"] == "—"  # its taint came first
    assert not table_rows(page, "Score")


def test_the_nodes_page_counts_allocated_devices_per_driver(logged_in, demo, scheduled_demo):
    page = logged_in.get(reverse("nodes", args=[demo.slug])).content.decode()
    cell = section(page, "devices-c-gpu-2")
    assert "<span>gpu.nvidia.com</span>" in cell
    assert '<span class="num">2 / 3</span>' in cell  # finetune's H100, render's A100
    assert "gpu.nvidia.com" not in section(page, "devices-c-gpu-1")


def test_the_objects_page_summarizes_claims_slices_templates_and_classes(logged_in, scheduled_demo):
    url = reverse("objects", args=[scheduled_demo.slug])
    page = logged_in.get(url).content.decode()
    assert f"allocated {DEVICE}; reserved for finetune" in page
    assert "gpu.nvidia.com pool c-gpu-2: 3 devices on c-gpu-2" in page
    assert "gpu: 1 of gpu.nvidia.com" in page
    assert "device.driver == &quot;gpu.nvidia.com&quot;" in page


def test_the_export_holds_the_claim_with_its_allocation(logged_in, scheduled_demo):
    text = logged_in.get(reverse("export", args=[scheduled_demo.slug])).content.decode()
    claims = [doc for doc in yaml.safe_load_all(text) if doc and doc["kind"] == "ResourceClaim"]
    [claim] = [doc for doc in claims if doc["metadata"]["name"].startswith("finetune-")]
    [result] = claim["status"]["allocation"]["devices"]["results"]
    assert "/".join((result["driver"], result["pool"], result["device"])) == DEVICE
    assert [ref["name"] for ref in claim["status"]["reservedFor"]] == ["finetune"]


def test_an_exported_allocated_demo_imports_into_a_new_workspace_unchanged(
    logged_in, scheduled_demo, user
):
    """Import keeps a claim's allocation: the devices stay taken in the new workspace."""
    text = logged_in.get(reverse("export", args=[scheduled_demo.slug])).content.decode()
    copy = create_workspace(user, "Copy", feature_gates=FEATURE_GATES)  # its gangs too
    response = logged_in.post(reverse("import", args=[copy.slug]), {"text": text})
    assert response.status_code in (200, 302)
    claims = DatabaseCluster(copy).list("ResourceClaim", "default")
    assert len(claims) == 2
    assert all(claim.status.allocation is not None for claim in claims)


def test_the_claim_made_for_dra_extended_resources_is_on_the_pods_page(
    logged_in, user, monkeypatch
):
    """examples/dra-extended-resources: two-gpus asks for example.com/gpu, which only DRA
    devices serve on dra-node; PreBind makes a claim and records it in the pod's status."""
    text = (EXAMPLES / "dra-extended-resources" / "objects.yaml").read_text()
    workspace = create_workspace(user, "Extended", manifests=list(yaml.safe_load_all(text)))
    scheduled(workspace, monkeypatch)
    pod = ClusterObject.objects.get(workspace=workspace, kind="Pod", name="two-gpus")
    page = logged_in.get(reverse("pod", args=[workspace.slug, pod.uid])).content.decode()
    [row] = table_rows(page, "Resource claims").values()
    assert row["Claim"] == "extended resources (example.com/gpu)"
    assert re.fullmatch(r"two-gpus-extended-resources-\w{5}", row["ResourceClaim"])
    assert row["Allocated devices"].split() == [
        "gpu.example.com/dra-node/gpu-0",
        "gpu.example.com/dra-node/gpu-1",
        "on",
        "dra-node",
    ]


@pytest.mark.parametrize(
    "kind", ["DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"]
)
def test_the_editor_starts_each_dra_kind_from_a_valid_manifest(kind):
    manifest = yaml.safe_load(TEMPLATES[kind])
    assert parse_new_object(manifest).kind == kind


def table_rows(page: str, label: str) -> dict[str, dict[str, str]]:
    """The table with this aria-label as {first cell: {column header: cell text}}."""
    parser = _TableParser(label)
    parser.feed(page)
    if not parser.rows:
        return {}
    header, *rows = parser.rows
    return {row[0]: dict(zip(header, row, strict=False)) for row in rows}


class _TableParser(HTMLParser):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.label, self.inside, self.rows, self.cell = label, False, [], None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table" and ("aria-label", self.label) in attrs:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell += data


def section(page: str, element_id: str) -> str:
    """The element with this id, up to its closing tag (a rough cut, enough for these pages)."""
    match = re.search(rf'<(\w+)[^>]*id="{re.escape(element_id)}"', page)
    assert match, f"no element {element_id!r}"
    tag = match.group(1)
    end = page.index(f"</{tag}>", match.end())
    return page[match.start() : end]
