"""Starting points for the "new object" editor, one per kind people create most."""

from __future__ import annotations

TEMPLATES = {
    "Pod": """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels:
    app: web
spec:
  containers:
  - name: web
    image: nginx
    resources:
      requests:
        cpu: 500m
        memory: 256Mi
""",
    "Node": """\
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels:
    kubernetes.io/hostname: node-1
    topology.kubernetes.io/zone: zone-a
spec:
  taints: []
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
""",
    "PriorityClass": """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
preemptionPolicy: PreemptLowerPriority
description: Pods that may preempt others.
""",
    "Namespace": """\
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    team: a
""",
    "PersistentVolumeClaim": """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources:
    requests:
      storage: 10Gi
""",
    "Service": """\
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector:
    app: web
  ports:
  - port: 80
""",
}
TEMPLATE_KINDS = tuple(TEMPLATES)


def template_for(kind: str) -> str:
    return TEMPLATES.get(kind, TEMPLATES["Pod"])
