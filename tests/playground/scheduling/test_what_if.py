"""What-if for a workspace: the workspace's objects and configuration through the engine, the
same outcome as a real attempt, and not one row written (playground.scheduling.what_if)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.apps import apps

from framework.api.errors import InvalidObjectError, ObjectError
from framework.api.loader import dump_objects, load_objects
from framework.simulator import AttemptReport, simulate
from playground.scheduling.what_if import (
    pasted_pod,
    pending_pods,
    profile_names,
    run_what_if,
    snapshot,
    stored_pod,
)
from playground.workspaces.models import ClusterObject
from playground.workspaces.services import add_configuration_revision

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
TWO_PROFILES = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: spread-less
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
"""


def load_example(cluster, workspace, name: str) -> None:
    directory = EXAMPLES / name
    cluster.add_many(load_objects((directory / "objects.yaml").read_text()))
    revision, problems = add_configuration_revision(
        workspace, (directory / "config.yaml").read_text()
    )
    assert revision is not None, problems


def row_counts() -> dict[str, int]:
    """Rows of every table the playground has, by model."""
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


def stored_objects(workspace) -> list[tuple]:
    rows = ClusterObject.objects.filter(workspace=workspace).order_by("id")
    return list(rows.values_list("kind", "namespace", "name", "resource_version", "manifest"))


def pending_uid(workspace, name: str) -> str:
    return next(p.uid for p in pending_pods(workspace) if p.key == name)


@pytest.mark.parametrize("name", ["resources", "topology-spread", "inter-pod-affinity"])
def test_a_what_if_agrees_with_the_simulate_command_on_the_workspaces_objects(
    cluster, workspace, name
):
    """The workspace exported, simulated as ``python -m framework simulate`` does: its first
    attempt and a what-if of the same pod in the workspace pick the same node, with the same
    verdicts and scores."""
    load_example(cluster, workspace, name)
    config = (EXAMPLES / name / "config.yaml").read_text()
    want = simulate(config, dump_objects(snapshot(workspace)))[0]
    pod = stored_pod(workspace, pending_uid(workspace, want["pod"]))

    got = run_what_if(workspace, pod, "default-scheduler")

    mine = AttemptReport(got.attempt, got.events).to_dict()
    for field in ("node", "finalScores", "scores", "filter", "evaluatedNodes", "feasibleNodes"):
        assert mine[field] == want[field], field


@pytest.mark.parametrize("pod_name", ["default/critical", "default/filler"])
def test_a_what_if_writes_no_row_and_changes_no_object(cluster, workspace, pod_name):
    load_example(cluster, workspace, "preemption")
    counts, objects = row_counts(), stored_objects(workspace)

    got = run_what_if(
        workspace, stored_pod(workspace, pending_uid(workspace, pod_name)), "default-scheduler"
    )

    assert got.attempt.result == "Unschedulable"
    assert row_counts() == counts
    assert stored_objects(workspace) == objects


def test_preemption_names_the_victims_it_would_delete_and_deletes_none(cluster, workspace):
    load_example(cluster, workspace, "preemption")
    pod = stored_pod(workspace, pending_uid(workspace, "default/critical"))

    got = run_what_if(workspace, pod, "default-scheduler")

    assert (got.attempt.nominated_node, got.victims) == ("n2", ["default/web-0"])
    assert cluster.get("Pod", "web-0", "default") is not None
    assert cluster.get("Pod", "critical", "default").status.nominated_node_name == ""


def test_any_profile_of_the_workspace_may_be_asked(cluster, workspace):
    load_example(cluster, workspace, "resources")
    add_configuration_revision(workspace, TWO_PROFILES)
    assert profile_names(workspace) == ["default-scheduler", "spread-less"]
    pod = stored_pod(workspace, pending_pods(workspace)[0].uid)

    got = run_what_if(workspace, pod, "spread-less")

    assert got.attempt.profile == "spread-less"
    score = next(e for e in got.events if e.point == "score" and e.kind == "extensionPoint")
    assert "NodeResourcesBalancedAllocation" not in score.data["raw"]
    assert "NodeResourcesFit" in score.data["raw"]


def test_a_pasted_pod_is_admitted_with_its_class_priority(cluster, workspace):
    load_example(cluster, workspace, "preemption")
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "visitor", "namespace": "elsewhere"},
        "spec": {"priorityClassName": "high", "containers": [{"name": "c", "image": "x"}]},
    }
    pod = pasted_pod(workspace, manifest)
    assert (pod.spec.priority, pod.key) == (1000, "elsewhere/visitor")
    counts = row_counts()
    assert run_what_if(workspace, pod, "default-scheduler").attempt.pod == "elsewhere/visitor"
    assert row_counts() == counts


def test_a_pasted_pod_the_api_server_would_refuse_is_refused_with_every_problem(workspace):
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "visitor"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "-1"}}}]},
    }
    with pytest.raises(InvalidObjectError) as raised:
        pasted_pod(workspace, manifest)
    assert raised.value.parts() == [
        ("spec.containers[0].image", "Required value"),
        (
            "spec.containers[0].resources.requests[cpu]",
            'Invalid value: "-1": must be greater than or equal to 0',
        ),
    ]


def test_a_pasted_pod_naming_a_missing_class_is_refused_for_the_class_first(workspace):
    """Priority admission runs before validation in kube-apiserver."""
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "visitor"},
        "spec": {"priorityClassName": "nope", "containers": []},
    }
    with pytest.raises(ObjectError, match="no PriorityClass with name nope was found"):
        pasted_pod(workspace, manifest)
