"""A workspace whose pending pods land differently under bin-packing and spreading, and the
two configurations (NodeResourcesFit MostAllocated vs LeastAllocated, nothing else scoring)."""

from __future__ import annotations

from playground.compare import runs
from playground.workspaces.cluster import DatabaseCluster
from tests.playground.front.rows import node, pod

PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      - name: ImageLocality
      - name: TaintToleration
      - name: NodeAffinity
      - name: PodTopologySpread
      - name: InterPodAffinity
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: {strategy}
        resources:
        - {{name: cpu, weight: 1}}
        - {{name: memory, weight: 1}}
"""
BIN_PACKING = PROFILE.format(strategy="MostAllocated")
SPREADING = PROFILE.format(strategy="LeastAllocated")
NODES = 4
PENDING = 6


def packing_cluster(cluster: DatabaseCluster, pending: int = PENDING) -> DatabaseCluster:
    """Four 4-CPU nodes, one pod running on node-1, and ``pending`` 500m pods."""
    cluster.add_many(
        [
            *(node(f"node-{n}") for n in range(1, NODES + 1)),
            pod("db", cpu="1", memory="1Gi", nodeName="node-1"),
            *(pod(f"web-{n}", cpu="500m", memory="256Mi") for n in range(pending)),
        ]
    )
    return cluster


class Tasks:
    """Stands in for the queue: keeps (phase, variant id) until a test runs them."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []

    def __call__(self, phase: int, variant_id: int) -> None:
        self.sent.append((phase, variant_id))

    def run_all(self, on_commit=None) -> list[str]:
        """Runs the tasks sent, and those they send once their transactions commit (with
        ``on_commit``: pytest-django's django_capture_on_commit_callbacks)."""
        outcomes = []
        while self.sent:
            phase, variant_id = self.sent.pop(0)
            if on_commit is None:
                outcomes.append(runs.run_phase(phase, variant_id, self, worker="test"))
                continue
            with on_commit(execute=True):
                outcomes.append(runs.run_phase(phase, variant_id, self, worker="test"))
        return outcomes
