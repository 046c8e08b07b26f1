"""The demo cluster: small enough to read at a glance, rich enough to show every page.

Three zones with small, medium and large nodes, two tainted GPU nodes (one whose GPUs a device
plugin counts, one whose GPUs a DRA driver publishes in a ResourceSlice), a tainted
control-plane node and a cordoned one; pods already running; pending pods that the scheduler
will spread (a Service selects them), pin to a zone, send to a GPU node (by an extended
resource a device plugin counts, by a ResourceClaim for an H100 that the structured allocator
picks, or by an extended resource only the DRA pool serves), place by preempting a batch pod,
keep gated, and fail to place at all. Its scheduler runs with the gates GenericWorkload and
GangScheduling (``FEATURE_GATES``), for two gangs on training nodes of their own: one that fits
(bound whole) and one a pod short of room (nothing bound, retried over and over).
"""

from __future__ import annotations

from typing import Any

DESCRIPTION = "Three zones, mixed node sizes, taints, running and pending pods, two gangs."
FEATURE_GATES = "GenericWorkload=true,GangScheduling=true"
"""The demo's kube-scheduler runs with these gates (its configuration's revision 1)."""
ZONES = ("zone-a", "zone-b", "zone-c")
REGION = "demo-1"
SIZES = {
    "small": {"cpu": "2", "memory": "4Gi"},
    "medium": {"cpu": "4", "memory": "16Gi"},
    "large": {"cpu": "16", "memory": "64Gi"},
    "gpu": {"cpu": "8", "memory": "32Gi"},
    "train": {"cpu": "2", "memory": "8Gi"},
}
DEVICE_PLUGIN_GPUS = {"nvidia.com/gpu": "4"}
NGINX = "nginx:1.27"
NGINX_SIZE = 192_000_000
STARTED = "2026-01-01T00:00:00Z"

GPU_DRIVER = "gpu.nvidia.com"
DRA_GPUS = (("gpu-0", "a100", "40Gi"), ("gpu-1", "a100", "40Gi"), ("gpu-2", "h100", "80Gi"))
"""The GPUs of c-gpu-2 as its DRA driver publishes them: name, model, memory."""

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
TRAINING_TAINT = {"key": "workload", "value": "training", "effect": "NoSchedule"}
TRAINING_POOL = "training-pool"
"""The label that sends each gang to its own training nodes."""
GANGS = (("resnet", 4, ("t-train-1", "t-train-2")), ("bert", 3, ("t-train-3",)))
"""Each gang: name, members (1 CPU each, all needed: minCount), the nodes of its pool (2 CPUs
each). resnet fits exactly; bert is one pod short of room."""


def demo_manifests() -> list[dict[str, Any]]:
    """Every object of the demo, in the order they are created."""
    return [
        *(namespace(name) for name in ("default", "shop", "batch", "training", "kube-system")),
        priority_class("production", 1000, "Customer-facing workloads."),
        priority_class("batch", 100, "Batch jobs: they wait rather than preempt.", never=True),
        *demo_nodes(),
        *gpu_pool(),
        web_service(),
        *running_pods(),
        *pending_pods(),
        *(manifest for gang in GANGS for manifest in gang_job(*gang)),
    ]


# ----------------------------------------------------------------------------------------------
# Nodes


def demo_nodes() -> list[dict[str, Any]]:
    return [
        node("control-plane-1", "zone-a", "small", taints=[CONTROL_PLANE_TAINT], role=True),
        node("a-small-1", "zone-a", "small"),
        node("a-medium-1", "zone-a", "medium", images=True),
        node("a-large-1", "zone-a", "large"),
        node("b-small-1", "zone-b", "small", taints=[UNSCHEDULABLE_TAINT], cordoned=True),
        node("b-medium-1", "zone-b", "medium", images=True),
        node("b-medium-2", "zone-b", "medium"),
        node("c-small-1", "zone-c", "small"),
        node("c-medium-1", "zone-c", "medium"),
        node("c-gpu-1", "zone-c", "gpu", taints=[GPU_TAINT], extended=DEVICE_PLUGIN_GPUS),
        node("c-gpu-2", "zone-c", "gpu", taints=[GPU_TAINT]),
    ]


def node(
    name: str,
    zone: str,
    size: str,
    *,
    taints: list[dict[str, str]] = (),
    images: bool = False,
    role: bool = False,
    cordoned: bool = False,
    extended: dict[str, str] | None = None,
    pool: str = "",
) -> dict[str, Any]:
    """``extended``: extended resources a device plugin reports in the node's allocatable;
    ``pool``: the training pool the node belongs to."""
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": zone,
        "node.kubernetes.io/instance-type": size,
    }
    if role:
        labels["node-role.kubernetes.io/control-plane"] = ""
    if size == "gpu":
        labels["accelerator"] = "nvidia"
    if pool:
        labels[TRAINING_POOL] = pool
    resources = {**SIZES[size], **(extended or {}), "pods": "110"}
    status: dict[str, Any] = {"capacity": resources, "allocatable": resources}
    if images:
        names = [f"docker.io/library/{NGINX}", NGINX]
        status["images"] = [{"names": names, "sizeBytes": NGINX_SIZE}]
    spec: dict[str, Any] = {"taints": list(taints)} if taints else {}
    if cordoned:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
        "status": status,
    }


# ----------------------------------------------------------------------------------------------
# Pods


def running_pods() -> list[dict[str, Any]]:
    return [
        pod(
            "coredns-1",
            "kube-system",
            cpu="100m",
            memory="128Mi",
            node="control-plane-1",
            labels={"k8s-app": "kube-dns"},
            priority_class="system-cluster-critical",
            tolerations=[{**CONTROL_PLANE_TAINT, "operator": "Exists"}],
        ),
        pod("db-0", "shop", cpu="4", memory="16Gi", node="a-large-1", labels={"app": "db"}),
        pod("cache-0", "shop", cpu="1", memory="2Gi", node="a-medium-1", labels={"app": "cache"}),
        pod("report-1", "batch", cpu="2", memory="4Gi", node="b-medium-1", priority_class="batch"),
        pod("report-2", "batch", cpu="2", memory="4Gi", node="c-medium-1", priority_class="batch"),
    ]


def pending_pods() -> list[dict[str, Any]]:
    zone_c_medium = [
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-c"]},
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["medium"]},
    ]
    return [
        # Only c-medium-1 qualifies and a batch pod holds half of it: preemption.
        pod("urgent", "shop", cpu="3500m", memory="8Gi", affinity=required(zone_c_medium)),
        *(
            pod(f"web-{i}", "shop", cpu="500m", memory="512Mi", labels={"app": "web"})
            for i in range(4)
        ),
        pod(
            "checkout",
            "shop",
            cpu="1",
            memory="1Gi",
            labels={"app": "checkout"},
            affinity=required(
                [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-b"]}]
            ),
        ),
        pod(
            "trainer",
            "default",
            cpu="4",
            memory="16Gi",
            extended={"nvidia.com/gpu": "2"},
            node_selector={"accelerator": "nvidia"},
            tolerations=[{**GPU_TAINT, "operator": "Equal"}],
            priority_class="batch",
        ),
        pod(
            "finetune",
            "default",
            cpu="4",
            memory="16Gi",
            tolerations=[{**GPU_TAINT, "operator": "Equal"}],
            priority_class="batch",
            claims={"gpu": "h100"},
        ),
        # An extended resource no device plugin reports: a DRA GPU of c-gpu-2 serves it,
        # through the claim the scheduler makes for the pod (DRAExtendedResource).
        pod(
            "render",
            "default",
            cpu="2",
            memory="4Gi",
            extended={f"deviceclass.resource.kubernetes.io/{GPU_DRIVER}": "1"},
            tolerations=[{**GPU_TAINT, "operator": "Equal"}],
            priority_class="batch",
        ),
        pod("nightly", "batch", cpu="1", memory="1Gi", gates=["example.com/approval"]),
        pod("huge", "batch", cpu="32", memory="128Gi", priority_class="batch"),
    ]


def pod(
    name: str,
    namespace: str,
    *,
    cpu: str,
    memory: str,
    node: str = "",
    labels: dict[str, str] | None = None,
    priority_class: str = "production",
    tolerations: list[dict[str, Any]] = (),
    affinity: dict[str, Any] | None = None,
    node_selector: dict[str, str] | None = None,
    extended: dict[str, str] | None = None,
    gates: list[str] = (),
    claims: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``claims`` maps the pod's claim names to the ResourceClaimTemplate each is made from."""
    requests = {"cpu": cpu, "memory": memory, **(extended or {})}
    resources: dict[str, Any] = {"requests": requests}
    if extended:
        resources["limits"] = dict(extended)
    if claims:
        resources["claims"] = [{"name": claim} for claim in claims]
    spec: dict[str, Any] = {
        "priorityClassName": priority_class,
        "containers": [{"name": "main", "image": NGINX, "resources": resources}],
    }
    optional = {
        "nodeName": node,
        "tolerations": list(tolerations),
        "affinity": affinity,
        "nodeSelector": node_selector,
        "schedulingGates": [{"name": gate} for gate in gates],
        "resourceClaims": [
            {"name": claim, "resourceClaimTemplateName": template}
            for claim, template in (claims or {}).items()
        ],
    }
    spec.update({key: value for key, value in optional.items() if value})
    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {"app": name}},
        "spec": spec,
    }
    if node:
        manifest["status"] = {"phase": "Running", "startTime": STARTED}
    return manifest


def gang_job(name: str, members: int, nodes: tuple[str, ...]) -> list[dict[str, Any]]:
    """A gang (a PodGroup with ``minCount`` = ``members``), its pool's tainted nodes (in
    zone-c), and its members, 1 CPU each, sent to the pool."""
    group = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "training"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": members}}},
    }
    pool = [node(n, "zone-c", "train", taints=[TRAINING_TAINT], pool=name) for n in nodes]
    workers = []
    for index in range(members):
        worker = pod(
            f"{name}-{index}",
            "training",
            cpu="1",
            memory="1Gi",
            labels={"app": name},
            priority_class="batch",
            node_selector={TRAINING_POOL: name},
            tolerations=[{**TRAINING_TAINT, "operator": "Equal"}],
        )
        worker["spec"]["schedulingGroup"] = {"podGroupName": name}
        workers.append(worker)
    return [*pool, group, *workers]


def required(expressions: list[dict[str, Any]]) -> dict[str, Any]:
    selector = {"nodeSelectorTerms": [{"matchExpressions": expressions}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": selector}}


# ----------------------------------------------------------------------------------------------
# The DRA GPU pool


def gpu_pool() -> list[dict[str, Any]]:
    """A DeviceClass for the driver's GPUs, the slice publishing c-gpu-2's, and a template for
    claims that ask for an H100 (the CEL selector that only one device meets)."""
    return [device_class(), gpu_slice("c-gpu-2"), h100_template()]


def device_class() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": GPU_DRIVER},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU_DRIVER}"'}}]},
    }


def gpu_slice(node_name: str) -> dict[str, Any]:
    devices = [
        {
            "name": name,
            "attributes": {"model": {"string": model}},
            "capacity": {"memory": {"value": memory}},
        }
        for name, model, memory in DRA_GPUS
    ]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-{GPU_DRIVER}"},
        "spec": {
            "driver": GPU_DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def h100_template() -> dict[str, Any]:
    model = f'device.attributes["{GPU_DRIVER}"].model == "h100"'
    request = {"deviceClassName": GPU_DRIVER, "selectors": [{"cel": {"expression": model}}]}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "h100", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": request}]}}},
    }


# ----------------------------------------------------------------------------------------------
# Other objects


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def priority_class(name: str, value: int, description: str, never: bool = False) -> dict[str, Any]:
    manifest = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "description": description,
    }
    if never:
        manifest["preemptionPolicy"] = "Never"
    return manifest


def web_service() -> dict[str, Any]:
    """Its selector makes the scheduler spread the web pods (system default constraints)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]},
    }
