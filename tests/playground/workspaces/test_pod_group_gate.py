"""Workloads, PodGroups and pods naming a group come into a workspace (import, writes from a
person) only while its latest configuration revision turns GenericWorkload on; then they are
checked and admitted as kube-apiserver v1.36.2 does (recorded in
tests/fixtures/oracle-workloads/apiserver/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.importing import Refused, import_manifests
from playground.workspaces.models import ClusterObject, SchedulerConfiguration
from playground.workspaces.workload_gate import NEEDS_THE_GATE

pytestmark = pytest.mark.django_db

APISERVER = Path(__file__).parents[2] / "fixtures" / "oracle-workloads" / "apiserver"
MINIMAL = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: training}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
"""
GROUP = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: trainer}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
"""
MEMBER = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer-0}
spec: {schedulingGroup: {podGroupName: trainer}, containers: [{name: c, image: i}]}
"""
PLAIN = """\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: i}]}
"""


def gates(workspace, revision: int, feature_gates: str) -> None:
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=revision, text=MINIMAL, feature_gates=feature_gates
    )


def problems_of(workspace, text: str) -> list[tuple[str, str, str]]:
    with pytest.raises(Refused) as raised:
        import_manifests(workspace, text)
    return [(p.object, p.field, p.message) for p in raised.value.problems]


def test_with_the_gate_off_pod_groups_are_refused_naming_object_field_and_gate(workspace):
    gates(workspace, 1, "")

    problems = problems_of(workspace, "---\n".join([WORKLOAD, GROUP, MEMBER, PLAIN]))

    assert problems == [
        ('Workload "default/training"', "kind", NEEDS_THE_GATE),
        ('PodGroup "default/trainer"', "kind", NEEDS_THE_GATE),
        ('Pod "default/trainer-0"', "spec.schedulingGroup", NEEDS_THE_GATE),
    ]
    assert "GenericWorkload feature gate" in NEEDS_THE_GATE
    assert not ClusterObject.objects.exists()  # nothing of the import, not even the plain pod


def test_a_refused_import_names_the_lines_of_its_pod_groups(workspace):
    with pytest.raises(Refused) as raised:
        import_manifests(workspace, "---\n".join([PLAIN, GROUP]))

    assert [(p.object, p.line) for p in raised.value.problems] == [
        ('PodGroup "default/trainer"', 7),
    ]


def test_with_the_gate_on_they_are_stored_as_kube_apiserver_admits_them(workspace):
    gates(workspace, 1, "GenericWorkload=true,GangScheduling=true")

    result = import_manifests(workspace, "---\n".join([MEMBER, GROUP, WORKLOAD]))

    assert result.created == [
        "Workload default/training",
        "PodGroup default/trainer",
        "Pod default/trainer-0",
    ]
    stored = ClusterObject.objects.get(kind="PodGroup").manifest
    recorded = json.loads((APISERVER / "defaults.json").read_text())
    assert stored["metadata"]["finalizers"] == recorded["finalizers"]
    assert stored["spec"]["disruptionMode"] == recorded["spec"]["disruptionMode"]
    assert stored["spec"]["priority"] == recorded["spec"]["priority"]


def test_the_latest_revision_decides(workspace):
    gates(workspace, 1, "GenericWorkload=true,GangScheduling=true")
    gates(workspace, 2, "")

    assert problems_of(workspace, GROUP) == [('PodGroup "default/trainer"', "kind", NEEDS_THE_GATE)]


@pytest.mark.parametrize(
    "answer",
    [a for a in json.loads((APISERVER / "invalid.json").read_text()) if a["code"] == 422][:12],
    ids=lambda answer: answer["case"],
)
def test_invalid_pod_groups_are_refused_with_kube_apiservers_words(workspace, answer):
    gates(workspace, 1, "GenericWorkload=true,GangScheduling=true")

    problems = problems_of(workspace, json.dumps(answer["object"]))

    assert [f"{field}: {message}" for _, field, message in problems] == [
        f"{cause['field']}: {cause['message']}" for cause in answer["causes"]
    ]
    assert not ClusterObject.objects.exists()


def test_an_edit_that_makes_a_pod_join_a_group_is_refused_with_the_gate_off(workspace):
    cluster = DatabaseCluster(workspace)
    import_manifests(workspace, PLAIN)
    joined = json.loads(json.dumps(ClusterObject.objects.get(name="web").manifest))
    joined["spec"]["schedulingGroup"] = {"podGroupName": "trainer"}

    with pytest.raises(Exception, match="GenericWorkload feature gate"):
        cluster.update(joined)


def test_a_live_clusters_mirror_takes_pod_groups_whatever_the_gates(workspace):
    mirror = DatabaseCluster(workspace, from_api_server=True)

    mirror.add(json.loads(json.dumps(_group_manifest())))

    assert ClusterObject.objects.filter(kind="PodGroup").count() == 1


def _group_manifest() -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "trainer", "namespace": "default", "uid": "u-1"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }
