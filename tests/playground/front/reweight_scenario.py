"""Two Score plugins that disagree, scheduled by the real engine: NodeAffinity prefers node-a
(the pod asks for an SSD), NodeResourcesFit (LeastAllocated) prefers node-b, where most CPU is
free. At weights 1 and 1 node-a wins; NodeResourcesFit at 3 makes node-b win."""

from __future__ import annotations

from typing import Any

from framework.simulator import Simulation

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - {name: NodeAffinity, weight: 1}
      - {name: NodeResourcesFit, weight: 1}
      disabled:
      - {name: "*"}
"""

NODES = """\
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {disk: ssd}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: busy, namespace: default, uid: busy-uid}
spec:
  nodeName: node-a
  containers:
  - name: c
    image: busybox
    resources: {requests: {cpu: "3", memory: 1Gi}}
"""

WEB = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: web-uid}
spec:
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions: [{key: disk, operator: In, values: [ssd]}]
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: 500m, memory: 16Mi}}
"""

OBJECTS = NODES + "---\n" + WEB


def scheduled_web(config: str = CONFIG) -> dict[str, Any]:
    """The web pod's attempt under ``config``: the engine's report and its events as
    AttemptTrace stores them."""
    report = Simulation(config, OBJECTS).run()[0]
    return {"attempt": report.attempt, "events": [event.to_dict() for event in report.events]}


def with_weights(affinity: int, fit: int) -> str:
    """The scenario's configuration with NodeAffinity and NodeResourcesFit at these weights."""
    return CONFIG.replace("NodeAffinity, weight: 1", f"NodeAffinity, weight: {affinity}").replace(
        "NodeResourcesFit, weight: 1", f"NodeResourcesFit, weight: {fit}"
    )
