"""Exporting a workspace as kubectl-style YAML, and importing it back."""

from __future__ import annotations

from pathlib import Path

import yaml

from playground.workspaces.importing import export_manifests, import_manifests
from playground.workspaces.models import Workspace
from tests.framework.builders import make_node, make_pod

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def without_versions(text: str) -> list[dict]:
    documents = list(yaml.safe_load_all(text))
    for document in documents:
        document["metadata"].pop("resourceVersion")
    return documents


def test_an_export_is_one_document_per_object_dependencies_first(cluster, workspace):
    cluster.add(make_pod("web", node_name="n1"))
    cluster.add(make_node("n1"))
    documents = list(yaml.safe_load_all(export_manifests(workspace)))
    assert [(d["kind"], d["metadata"]["name"]) for d in documents] == [
        ("Node", "n1"),
        ("Pod", "web"),
    ]


def test_keys_are_sorted_as_kubectl_prints_them(cluster, workspace):
    cluster.add(make_pod("web"))
    cluster.update_pod_status("default", "web", nominated_node_name="n1")
    text = export_manifests(workspace)
    top_level = [line.split(":")[0] for line in text.splitlines() if line[:1].isalpha()]
    assert top_level == ["apiVersion", "kind", "metadata", "spec", "status"]


def test_an_empty_workspace_exports_nothing(workspace):
    assert list(yaml.safe_load_all(export_manifests(workspace))) == []


def test_an_exported_workspace_imports_into_another_unchanged(workspace, user):
    import_manifests(workspace, (EXAMPLES / "preemption" / "objects.yaml").read_text())
    exported = export_manifests(workspace)
    copy = Workspace.objects.create(name="Copy", slug="copy", owner=user)
    result = import_manifests(copy, exported)
    assert result.replaced == []
    assert without_versions(export_manifests(copy)) == without_versions(exported)


def test_importing_an_export_into_its_own_workspace_changes_nothing_but_versions(workspace):
    import_manifests(workspace, (EXAMPLES / "resources" / "objects.yaml").read_text())
    exported = export_manifests(workspace)
    result = import_manifests(workspace, exported)
    assert result.created == []
    assert without_versions(export_manifests(workspace)) == without_versions(exported)
