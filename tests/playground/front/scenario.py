"""A small cluster scheduled by the real engine, for tests that need genuine trace events."""

from __future__ import annotations

from typing import Any

from framework.simulator import Simulation

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
"""

NODES = """\
apiVersion: v1
kind: Node
metadata: {name: big, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: medium, labels: {topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: small, labels: {topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "1", memory: 2Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: tainted}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
"""

WEB = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: web-uid}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: "2", memory: 1Gi}}
"""


def attempt_of_web() -> dict[str, Any]:
    """The web pod's only attempt: its report and its events as AttemptTrace stores them."""
    report = Simulation(CONFIG, NODES + "---\n" + WEB).run()[0]
    return {
        "attempt": report.attempt,
        "events": [event.to_dict() for event in report.events],
    }
