"""The workloads: node and pod templates shaped like upstream's scheduler_perf test cases.

Each workload creates ``nodes`` nodes, binds ``init_pods`` pods to them (round robin, before the
scheduler starts: they are the cluster's existing load) and then creates the measured pods,
which the scheduler places. The templates mirror upstream's
``test/integration/scheduler_perf`` templates (``node-default``, ``pod-default``,
``pod-with-node-affinity``, ``pod-with-pod-anti-affinity``, ``pod-with-topology-spreading``,
``pod-low-priority`` and ``pod-high-priority``) and its test cases ``SchedulingBasic``,
``SchedulingNodeAffinity``, ``SchedulingPodAntiAffinity``, ``TopologySpreading`` and
``PreemptionBasic``. Upstream lets its scheduler place the initial pods; binding them here
gives the same cluster without timing them.

The gang workloads (issue 24) have no scheduler_perf counterpart in v1.36: pod-default pods in
PodGroups (``scheduling.k8s.io/v1alpha2``) of eight, each a gang with ``minCount`` 8, run with the
workload gates; beside them the same pods without groups, under the same gates.

``SchedulingWithResourceClaimTemplate`` is upstream's DRA test case (``dra/performance-config.yaml``
with its ``templates/``, and the ResourceSlices ``dra.go`` publishes for its test driver). Its
initial pods need allocated claims, which only the scheduler makes, so the harness schedules
them (untimed) instead of binding them.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from framework.api.device_class import DeviceClass
from framework.api.meta import KubeObject
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import API_VERSION as POD_GROUP_API_VERSION
from framework.api.pod_group import PodGroup
from framework.api.resource_claim import ResourceClaimTemplate
from framework.api.resource_slice import ResourceSlice

ZONE_LABEL = "topology.kubernetes.io/zone"
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"


def _no_objects(nodes: list[Node]) -> list[KubeObject]:
    return []


@dataclass(frozen=True, slots=True)
class Workload:
    """A test case: its cluster, its existing pods and the pods whose scheduling is measured."""

    name: str
    nodes: int
    init_pods_per_node: float
    measured_pods: int
    node_labels: Callable[[random.Random], dict[str, str]]
    init_pod: Callable[[int], dict[str, Any]]
    measured_pod: Callable[[int], dict[str, Any]]
    description: str
    node_prefix: str = "node"
    objects: Callable[[list[Node]], list[KubeObject]] = _no_objects
    """The cluster's other objects (device classes, slices, templates), given its nodes."""
    schedule_init_pods: bool = False
    """The scheduler places the initial pods (untimed) instead of their being bound."""
    features: str = ""
    """kube-scheduler's ``--feature-gates`` for the run (the v1.36 defaults when empty)."""
    group_size: int = 0
    """Measured pods per PodGroup (gangs with ``minCount`` this size); 0: no groups."""
    topology_key: str = ""
    """The groups' ``schedulingConstraints.topology`` key, if any."""

    def groups_for(self, pods: int) -> int:
        return -(-pods // self.group_size) if self.group_size else 0

    def init_pods_for(self, nodes: int) -> int:
        return round(nodes * self.init_pods_per_node)

    def build_nodes(self, count: int, seed: int = 0) -> list[Node]:
        """``node-0000`` … with the workload's labels (zones drawn from a seeded source)."""
        rng = random.Random(seed)
        width = len(str(max(count - 1, 0)))
        prefix = self.node_prefix
        return [
            Node.from_dict(node_manifest(f"{prefix}-{i:0{width}d}", self.node_labels(rng)))
            for i in range(count)
        ]

    def build_init_pods(self, count: int, nodes: list[Node]) -> list[Pod]:
        """The existing pods, bound round robin so every node carries the same load (pending,
        for the scheduler to place, with ``schedule_init_pods``)."""
        if self.schedule_init_pods:
            return [Pod.from_dict(self.init_pod(i)) for i in range(count)]
        return [
            Pod.from_dict(_bound(self.init_pod(i), nodes[i % len(nodes)].name))
            for i in range(count)
        ]

    def build_measured_pods(self, count: int) -> Iterator[Pod]:
        for i in range(count):
            yield Pod.from_dict(self.measured_pod(i))

    def build_pod_groups(self, pods: int) -> list[PodGroup]:
        """The PodGroups of ``pods`` measured pods: ``gang-<g>`` holds pods ``g * size`` on;
        a last group with fewer members asks for as many (so every group can be placed)."""
        size = self.group_size
        return [
            PodGroup.from_dict(
                pod_group_manifest(f"gang-{g}", min(size, pods - g * size), self.topology_key)
            )
            for g in range(self.groups_for(pods))
        ]


def node_manifest(name: str, labels: dict[str, str]) -> dict[str, Any]:
    """upstream node-default: 4 CPUs, 32Gi, 110 pods, Ready."""
    capacity = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "spec": {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"type": "Ready", "status": "True"}],
            "phase": "Running",
        },
    }


def pod_manifest(
    name: str,
    namespace: str = "default",
    *,
    cpu: str = "100m",
    memory: str = "500Mi",
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """upstream pod-default: one pause container with requests equal to limits."""
    resources = {"cpu": cpu, "memory": memory}
    container = {
        "name": "pause",
        "image": PAUSE_IMAGE,
        "ports": [{"containerPort": 80}],
        "resources": {"limits": dict(resources), "requests": dict(resources)},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": {"containers": [container], **spec},
    }


def pod_group_manifest(name: str, min_count: int, topology_key: str = "") -> dict[str, Any]:
    """A standalone gang PodGroup, as kube-apiserver stores it (defaults filled in)."""
    spec: dict[str, Any] = {
        "schedulingPolicy": {"gang": {"minCount": min_count}},
        "disruptionMode": "Pod",
        "priority": 0,
    }
    if topology_key:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return {
        "apiVersion": POD_GROUP_API_VERSION,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def _bound(manifest: dict[str, Any], node_name: str) -> dict[str, Any]:
    bound = copy.deepcopy(manifest)
    bound["spec"]["nodeName"] = node_name
    bound["status"] = {"phase": "Running"}
    return bound


# ----------------------------------------------------------------------------------------------
# Templates


def _no_labels(rng: random.Random) -> dict[str, str]:
    return {}


def _zone1(rng: random.Random) -> dict[str, str]:
    return {ZONE_LABEL: "zone1"}


def _moon_zone(rng: random.Random) -> dict[str, str]:
    """Upstream's label strategy draws one of the values at random for each node."""
    return {ZONE_LABEL: rng.choice(("moon-1", "moon-2", "moon-3"))}


def _default_pod(prefix: str) -> Callable[[int], dict[str, Any]]:
    return lambda i: pod_manifest(f"{prefix}-{i}")


def _gang_member_pod(prefix: str, size: int) -> Callable[[int], dict[str, Any]]:
    """pod-default in group ``gang-<i // size>``."""
    return lambda i: pod_manifest(
        f"{prefix}-{i}", schedulingGroup={"podGroupName": f"gang-{i // size}"}
    )


def _node_affinity_pod(prefix: str) -> Callable[[int], dict[str, Any]]:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": ZONE_LABEL, "operator": "In", "values": ["zone1", "zone2"]}
                        ]
                    }
                ]
            }
        }
    }
    return lambda i: pod_manifest(f"{prefix}-{i}", affinity=copy.deepcopy(affinity))


def _anti_affinity_pod(prefix: str, namespace: str) -> Callable[[int], dict[str, Any]]:
    affinity = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"color": "green"}},
                    "topologyKey": "kubernetes.io/hostname",
                    "namespaces": ["sched-1", "sched-0"],
                }
            ]
        }
    }
    return lambda i: pod_manifest(
        f"{prefix}-{i}",
        namespace,
        labels={"color": "green"},
        affinity=copy.deepcopy(affinity),
    )


def _spreading_pod(prefix: str) -> Callable[[int], dict[str, Any]]:
    constraint = {
        "maxSkew": 5,
        "topologyKey": ZONE_LABEL,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"color": "blue"}},
    }
    return lambda i: pod_manifest(
        f"{prefix}-{i}",
        labels={"color": "blue"},
        topologySpreadConstraints=[dict(constraint)],
    )


def _low_priority_pod(prefix: str) -> Callable[[int], dict[str, Any]]:
    return lambda i: pod_manifest(f"{prefix}-{i}", cpu="900m", terminationGracePeriodSeconds=0)


def _high_priority_pod(prefix: str) -> Callable[[int], dict[str, Any]]:
    return lambda i: pod_manifest(f"{prefix}-{i}", cpu="3000m", priority=10)


# ----------------------------------------------------------------------------------------------
# DRA (upstream's dra/ templates and its test driver's ResourceSlices)

DRA_DRIVER = "test-driver.cdi.k8s.io"
DRA_DEVICES_PER_NODE = 20
"""``maxClaimsPerNode`` of the 2000pods_100nodes case: 100 nodes hold its 2,000 pods."""


def _dra_node_labels(rng: random.Random) -> dict[str, str]:
    """node-with-dra-test-driver: the label that scopes the driver's slices."""
    return {"node-with-dra": "true"}


def resource_slice_manifest(driver: str, node_name: str, devices: int) -> dict[str, Any]:
    """The slice upstream's test driver publishes for a node: one pool named after the node,
    ``instance-<i>`` devices alike but for their NUMA attribute."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": node_name},
        "spec": {
            "driver": driver,
            "nodeName": node_name,
            "pool": {"name": node_name, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"instance-{i}",
                    "attributes": {
                        "model": {"string": "A100"},
                        "family": {"string": "GPU"},
                        "driverVersion": {"version": "1.2.3"},
                        "dra.example.com/numa": {"int": i},
                    },
                    "capacity": {"memory": {"value": "1Gi"}},
                }
                for i in range(devices)
            ],
        },
    }


def _device_class() -> DeviceClass:
    """templates/deviceclass.yaml."""
    return DeviceClass.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "test-class"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRA_DRIVER}"'}}]},
        }
    )


def _claim_template(namespace: str) -> ResourceClaimTemplate:
    """templates/resourceclaimtemplate.yaml: one device of test-class."""
    request = {"name": "req-0", "exactly": {"deviceClassName": "test-class"}}
    return ResourceClaimTemplate.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "test-claim-template", "namespace": namespace},
            "spec": {"spec": {"devices": {"requests": [request]}}},
        }
    )


def _dra_objects(nodes: list[Node]) -> list[KubeObject]:
    """The driver's slices, the class and the template in both namespaces."""
    slices = [
        ResourceSlice.from_dict(
            resource_slice_manifest(DRA_DRIVER, node.name, DRA_DEVICES_PER_NODE)
        )
        for node in nodes
    ]
    return [*slices, _device_class(), _claim_template("init"), _claim_template("test")]


def _pod_with_claim_template(namespace: str) -> Callable[[int], dict[str, Any]]:
    """templates/pod-with-claim-template.yaml (no requests; one claim from the template)."""

    def manifest(i: int) -> dict[str, Any]:
        container = {
            "name": "pause",
            "image": "registry.k8s.io/pause:3.10.1",
            "resources": {"claims": [{"name": "resource"}]},
        }
        claim = {"name": "resource", "resourceClaimTemplateName": "test-claim-template"}
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"test-dra-{i}", "namespace": namespace},
            "spec": {"containers": [container], "resourceClaims": [claim]},
        }

    return manifest


GANG_GATES = "GenericWorkload=true,GangScheduling=true"
GANG_SIZE = 8

_SCHEDULING_BASIC = Workload(
    name="SchedulingBasic",
    nodes=5000,
    init_pods_per_node=0.2,
    measured_pods=5000,
    node_labels=_no_labels,
    init_pod=_default_pod("init"),
    measured_pod=_default_pod("pod"),
    description="pod-default on node-default",
)

WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        _SCHEDULING_BASIC,
        # Memory: a cluster as full as scheduler_perf's templates make them (30 pods a node).
        replace(
            _SCHEDULING_BASIC,
            name="SchedulingBasicManyPods",
            init_pods_per_node=30.0,
            measured_pods=1000,
            description="pod-default on node-default, 30 bound pods per node",
        ),
        Workload(
            name="NodeAffinity",
            nodes=5000,
            init_pods_per_node=1.0,
            measured_pods=5000,
            node_labels=_zone1,
            init_pod=_node_affinity_pod("init"),
            measured_pod=_node_affinity_pod("pod"),
            description="required node affinity zone In [zone1, zone2]; every node in zone1",
        ),
        Workload(
            name="PodAntiAffinity",
            nodes=5000,
            init_pods_per_node=0.2,
            measured_pods=2000,
            node_labels=_no_labels,
            init_pod=_anti_affinity_pod("init", "sched-0"),
            measured_pod=_anti_affinity_pod("pod", "sched-1"),
            description="required anti-affinity to color=green per hostname, two namespaces",
        ),
        Workload(
            name="TopologySpreading",
            nodes=5000,
            init_pods_per_node=1.0,
            measured_pods=5000,
            node_labels=_moon_zone,
            init_pod=_default_pod("init"),
            measured_pod=_spreading_pod("pod"),
            description="DoNotSchedule spread over 3 zones, maxSkew 5",
        ),
        Workload(
            name="Preemption",
            nodes=1000,
            init_pods_per_node=4.0,
            measured_pods=1000,
            node_labels=_no_labels,
            init_pod=_low_priority_pod("low"),
            measured_pod=_high_priority_pod("high"),
            description="each pod of priority 10 evicts 3 of a node's 4 low-priority pods",
        ),
        # Gangs (issue 24), and the same pods without groups under the same gates.
        replace(
            _SCHEDULING_BASIC,
            name="GangScheduling",
            measured_pod=_gang_member_pod("pod", GANG_SIZE),
            description=f"pod-default in gangs of {GANG_SIZE} (minCount {GANG_SIZE})",
            features=GANG_GATES,
            group_size=GANG_SIZE,
        ),
        replace(
            _SCHEDULING_BASIC,
            name="GangSchedulingPlainPods",
            description="pod-default, no groups, with the gang gates",
            features=GANG_GATES,
        ),
        replace(
            _SCHEDULING_BASIC,
            name="GangSchedulingZone",
            node_labels=_moon_zone,
            measured_pod=_gang_member_pod("pod", GANG_SIZE),
            description=f"gangs of {GANG_SIZE}, each in one zone of 3",
            features=f"{GANG_GATES},TopologyAwareWorkloadScheduling=true",
            group_size=GANG_SIZE,
            topology_key=ZONE_LABEL,
        ),
        # Upstream's 2000pods_100nodes: the measured pods take the cluster's last devices.
        Workload(
            name="SchedulingWithResourceClaimTemplate",
            nodes=100,
            init_pods_per_node=10.0,
            measured_pods=1000,
            node_labels=_dra_node_labels,
            init_pod=_pod_with_claim_template("init"),
            measured_pod=_pod_with_claim_template("test"),
            description="one claim per pod from a template, 20 devices per node, filled up",
            node_prefix="scheduler-perf-dra",
            objects=_dra_objects,
            schedule_init_pods=True,
        ),
    )
}
