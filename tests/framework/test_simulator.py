"""Simulation runs: when a run is over."""

from __future__ import annotations

import time

from framework.simulator import Simulation

CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

# A claim that waits for its first consumer, and a free local volume that fits it: PreBind
# writes the binding and then waits for a PV controller the simulator does not have.
UNBINDABLE_CLAIM = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/a}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]
status: {phase: Available}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: with-claim, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]
"""

PLAIN_POD = """
apiVersion: v1
kind: Pod
metadata: {name: plain, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
"""


def objects(*documents: str) -> str:
    return "\n---\n".join(documents)


def test_it_ends_when_only_pods_that_failed_with_an_error_are_backing_off():
    simulation = Simulation(CONFIG, objects(NODE, UNBINDABLE_CLAIM, PLAIN_POD))
    started = time.monotonic()
    reports = simulation.run()
    assert time.monotonic() - started < 10
    assert [(r.attempt.pod, r.attempt.result) for r in reports] == [
        ("default/with-claim", "Error"),
        ("default/plain", "Scheduled"),
    ]
    assert reports[0].attempt.message == (
        'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded'
    )
    assert [p.key for p in simulation.scheduler.queue.pods_in_backoff_q()] == ["default/with-claim"]


def test_it_does_not_move_the_clock_for_pods_that_failed_with_an_error():
    simulation = Simulation(CONFIG, objects(NODE, UNBINDABLE_CLAIM))
    created = simulation.clock.now() + 0.001
    simulation.run()
    assert simulation.clock.now() == created


def test_one_at_a_time_also_ends_after_an_error():
    simulation = Simulation(CONFIG, objects(NODE, UNBINDABLE_CLAIM, PLAIN_POD))
    reports = simulation.run_one_at_a_time(delete_unschedulable=False)
    assert [(r.attempt.pod, r.attempt.result) for r in reports] == [
        ("default/with-claim", "Error"),
        ("default/plain", "Scheduled"),
    ]


def test_a_pods_priority_class_decides_its_priority_and_who_is_preempted():
    """Priority admission runs on the file's pods, as kube-apiserver runs it: the pod of class
    ``high`` preempts the one already running (it would not with priority 0)."""
    full_node = NODE.replace('cpu: "4"', 'cpu: "1"')
    high = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""
    running = PLAIN_POD.replace("plain", "running").replace(
        "image: busybox}]", "image: busybox, resources: {requests: {cpu: 800m}}}]\n  nodeName: n1"
    )
    urgent = PLAIN_POD.replace("plain", "urgent").replace(
        "image: busybox}]",
        "image: busybox, resources: {requests: {cpu: 800m}}}]\n  priorityClassName: high",
    )
    simulation = Simulation(CONFIG, objects(full_node, high, running, urgent))
    assert [(p.name, p.spec.priority) for p in simulation.pending] == [("urgent", 1000)]
    first, *_ = simulation.run()
    assert (first.attempt.result, first.victims) == ("Unschedulable", ["default/running"])
