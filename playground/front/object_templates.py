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
    "DeviceClass": """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
""",
    "ResourceSlice": """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu.example.com
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
    capacity:
      memory: {value: 40Gi}
""",
    "ResourceClaim": """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
""",
    "ResourceClaimTemplate": """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
""",
}
TEMPLATE_KINDS = tuple(TEMPLATES)


def template_for(kind: str) -> str:
    return TEMPLATES.get(kind, TEMPLATES["Pod"])
