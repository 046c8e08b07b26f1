"""The YAML editor takes a PodGroup, a Workload or a pod naming a group as it takes any object
while the workspace's scheduler runs with GenericWorkload; with the gate off it refuses them
on the field the gate concerns, the text kept for when the gate is on."""

from __future__ import annotations

from playground.workspaces.models import ClusterObject, SchedulerConfiguration

MINIMAL = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
GROUP = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: trainer
  namespace: default
spec:
  schedulingPolicy:
    gang:
      minCount: 4
"""
NO_POLICY = GROUP.replace(
    "  schedulingPolicy:\n    gang:\n      minCount: 4\n", "  disruptionMode: Pod\n"
)


def gates(workspace, feature_gates: str) -> None:
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text=MINIMAL, feature_gates=feature_gates
    )


def test_with_the_gate_off_a_pod_group_is_refused_naming_the_gate_and_kept(logged_in, workspace):
    gates(workspace, "")

    response = logged_in.post("/w/lab/objects/new/", {"text": GROUP})

    assert response.status_code == 422
    content = response.content.decode()
    assert "PodGroup &quot;default/trainer&quot;" in content
    assert "<code>kind</code>" in content
    assert "GenericWorkload feature gate" in content
    assert "minCount: 4" in content  # the text comes back
    assert not ClusterObject.objects.exists()


def test_with_the_gate_on_a_pod_group_is_stored_as_admitted(logged_in, workspace, woken):
    gates(workspace, "GenericWorkload=true,GangScheduling=true")

    response = logged_in.post("/w/lab/objects/new/", {"text": GROUP})

    assert response.status_code == 302
    stored = ClusterObject.objects.get(kind="PodGroup").manifest
    assert stored["spec"]["disruptionMode"] == "Pod"
    assert stored["metadata"]["finalizers"] == ["scheduling.k8s.io/podgroup-protection"]
    assert woken == [workspace]


def test_an_invalid_pod_group_is_refused_with_kube_apiservers_words(logged_in, workspace):
    gates(workspace, "GenericWorkload=true,GangScheduling=true")

    response = logged_in.post("/w/lab/objects/new/", {"text": NO_POLICY})

    assert response.status_code == 422
    content = response.content.decode()
    assert "<code>spec.schedulingPolicy</code>" in content
    assert "must specify one of: `basic`, `gang`" in content
    assert not ClusterObject.objects.exists()
