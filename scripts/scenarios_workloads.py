"""The workload-aware scheduling scenarios scripts/record-workload-oracle plays against the real
kube-scheduler, and the invalid objects it shows kube-apiserver.

Nodes are plain objects (no kubelet): four workers of 4 CPUs / 8Gi in two zones unless a
scenario says otherwise. Pods ask for CPU only, so room is easy to read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ZONE = "topology.kubernetes.io/zone"
SCHEDULING = "scheduling.k8s.io/v1alpha2"


@dataclass
class Step:
    name: str
    objects: list[dict]
    wait_seconds: float = 0.0
    """A fixed window for pods meant to wait (gated in PreEnqueue); 0: until all are decided."""


@dataclass
class Scenario:
    name: str
    summary: str
    steps: list[Step] = field(default_factory=list)

    def readme(self) -> str:
        steps = "\n".join(
            f"{index}. {step.name}"
            + (f" (then a {step.wait_seconds:.0f} s window)" if step.wait_seconds else "")
            for index, step in enumerate(self.steps, 1)
        )
        return (
            f"# {self.name}\n\n{self.summary}\n\n"
            "Recorded by `scripts/record-workload-oracle` against kube-apiserver and kube-scheduler"
            " v1.36.2 with `--feature-gates=GenericWorkload=true,GangScheduling=true,"
            "TopologyAwareWorkloadScheduling=true,WorkloadAwarePreemption=true` on both and"
            " `--runtime-config=scheduling.k8s.io/v1alpha2=true` on kube-apiserver; the"
            " scheduler ran the default profile (`config.yaml`).\n\n"
            "Steps (objects in `objects.yaml`, in this order; after each step the recorder waits"
            " until every pending pod is bound or has `PodScheduled=False` for 2 s, at most"
            " 40 s, unless a window is named):\n\n"
            f"{steps}\n\n"
            "`expected.json` holds, per step, what the real control plane then showed: each"
            " pod's node, nominated node and PodScheduled condition; the nominated nodes seen"
            " while watching; the pods deleted as preemption victims; each PodGroup's spec (as"
            " defaulted), finalizers and conditions, and every condition seen while watching"
            " (polled every 0.2 s); the events (events.k8s.io/v1) in first-seen order, repeats"
            " folded into `repeated: true` (a failed gang is retried without pause, so counts"
            " depend on the machine).\n"
        )


def node(name: str, zone: str, cpu: str = "4") -> dict:
    capacity = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", ZONE: zone},
        },
        "spec": {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def four_nodes() -> list[dict]:
    return [node(f"w{index}", f"zone-{'ab'[index // 2]}") for index in range(4)]


def pod(
    name: str, cpu: str, group: str | None = None, priority_class: str = "", node_name: str = ""
) -> dict:
    spec: dict = {
        "containers": [
            {
                "name": "main",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": cpu}},
            }
        ]
    }
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def gang(name: str, min_count: int, topology_key: str = "", priority_class: str = "") -> dict:
    spec: dict = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if topology_key:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "apiVersion": SCHEDULING,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def basic(name: str) -> dict:
    return {
        "apiVersion": SCHEDULING,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"basic": {}}},
    }


def minimal_pod_group(name: str) -> dict:
    return gang(name, 2)


def priority_class(name: str, value: int, never: bool = False) -> dict:
    manifest = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if never:
        manifest["preemptionPolicy"] = "Never"
    return manifest


def members(group: str, count: int, cpu: str, priority: str = "", first: int = 0) -> list[dict]:
    return [pod(f"{group}-{index}", cpu, group, priority) for index in range(first, first + count)]


def _preemption(name: str, never: bool = False, group_priority: bool = True) -> Scenario:
    policy = "preemptionPolicy: Never" if never else "the default preemptionPolicy"
    who = (
        "the PodGroup and its pods name"
        if group_priority
        else "only the pods name (not the PodGroup)"
    )
    return Scenario(
        name,
        "Every worker is full of low-priority pods (2 x 2 CPUs each); a gang of 3 x 2 CPUs"
        f" (minCount 3) arrives; {who} the high priority class ({policy}).",
        [
            Step(
                "priority classes, four workers, eight low-priority pods bound by the scheduler",
                [
                    priority_class("low", 10),
                    priority_class("high", 1000, never=never),
                    *four_nodes(),
                    *[pod(f"low-{index}", "2", priority_class="low") for index in range(8)],
                ],
            ),
            Step(
                "the high-priority gang and its three pods",
                [
                    gang("trainer", 3, priority_class="high" if group_priority else ""),
                    *members("trainer", 3, "2", "high"),
                ],
            ),
        ],
    )


def _scenarios() -> list[Scenario]:
    return [
        Scenario(
            "gang-fits",
            "A gang of 4 pods x 2 CPUs (minCount 4) on four empty 4-CPU workers.",
            [
                Step("four workers", four_nodes()),
                Step(
                    "the PodGroup, then its four pods",
                    [gang("trainer", 4), *members("trainer", 4, "2")],
                ),
            ],
        ),
        Scenario(
            "gang-one-short",
            "A gang of 3 pods x 3 CPUs (minCount 3) on two empty 4-CPU workers: room for two.",
            [
                Step("two workers", four_nodes()[:2]),
                Step(
                    "the PodGroup, then its three pods",
                    [gang("trainer", 3), *members("trainer", 3, "3")],
                ),
            ],
        ),
        Scenario(
            "two-gangs-compete",
            "Two gangs of 2 pods x 3 CPUs (minCount 2 each) on two empty 4-CPU workers: room for"
            " one gang. Both PodGroups first, then gang a's pods, then gang b's, in one step.",
            [
                Step("two workers", four_nodes()[:2]),
                Step(
                    "both PodGroups, then the pods of a, then of b",
                    [gang("a", 2), gang("b", 2), *members("a", 2, "3"), *members("b", 2, "3")],
                ),
            ],
        ),
        Scenario(
            "zone-topology",
            "A gang of 3 pods x 2 CPUs (minCount 3) constrained to one"
            " `topology.kubernetes.io/zone`; zone-a (w0, w1) has a running 3-CPU pod on w0,"
            " so only zone-b holds the whole gang.",
            [
                Step(
                    "four workers in two zones, a 3-CPU pod running on w0",
                    [*four_nodes(), pod("busy", "3", node_name="w0")],
                ),
                Step(
                    "the PodGroup with the zone constraint, then its three pods",
                    [gang("trainer", 3, topology_key=ZONE), *members("trainer", 3, "2")],
                ),
            ],
        ),
        Scenario(
            "zone-topology-no-domain",
            "A gang of 5 pods x 2 CPUs (minCount 5) constrained to one zone: the cluster holds 8"
            " such pods, each zone only 4.",
            [
                Step("four workers in two zones", four_nodes()),
                Step(
                    "the PodGroup with the zone constraint, then its five pods",
                    [gang("trainer", 5, topology_key=ZONE), *members("trainer", 5, "2")],
                ),
            ],
        ),
        Scenario(
            "gang-completed-later",
            "A gang of 3 pods x 1 CPU (minCount 3): two members first (they wait for quorum),"
            " the third later.",
            [
                Step("four workers", four_nodes()),
                Step(
                    "the PodGroup and two of its pods",
                    [gang("trainer", 3), *members("trainer", 2, "1")],
                    wait_seconds=5.0,
                ),
                Step("the third pod", members("trainer", 1, "1", first=2)),
            ],
        ),
        Scenario(
            "gang-pods-before-group",
            "Three pods x 1 CPU name a PodGroup that does not exist yet; the PodGroup"
            " (minCount 3) comes later.",
            [
                Step(
                    "four workers and the three pods",
                    [*four_nodes(), *members("trainer", 3, "1")],
                    wait_seconds=5.0,
                ),
                Step("the PodGroup", [gang("trainer", 3)]),
            ],
        ),
        Scenario(
            "basic-group-partial",
            "A `basic` group of 3 pods x 3 CPUs on two empty 4-CPU workers: room for two.",
            [
                Step("two workers", four_nodes()[:2]),
                Step(
                    "the PodGroup, then its three pods",
                    [basic("workers"), *members("workers", 3, "3")],
                ),
            ],
        ),
        _preemption("gang-preempts"),
        _preemption("gang-preemption-never", never=True),
        _preemption("gang-pod-priority-only", group_priority=False),
    ]


SCENARIOS = {scenario.name: scenario for scenario in _scenarios()}


def _workload(templates: list[dict], name: str = "job") -> dict:
    return {
        "apiVersion": SCHEDULING,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"podGroupTemplates": templates},
    }


def _template(name: str = "workers", policy: dict | None = None, **extra) -> dict:
    return {
        "name": name,
        "schedulingPolicy": policy if policy is not None else {"gang": {"minCount": 2}},
        **extra,
    }


def _group(spec: dict, name: str = "group") -> dict:
    return {
        "apiVersion": SCHEDULING,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


GANG2 = {"gang": {"minCount": 2}}
INVALID_OBJECTS: list[tuple[str, dict]] = [
    ("pod group without a scheduling policy", _group({})),
    ("pod group with an empty scheduling policy", _group({"schedulingPolicy": {}})),
    (
        "pod group with both basic and gang",
        _group({"schedulingPolicy": {"basic": {}, "gang": {"minCount": 2}}}),
    ),
    ("pod group with minCount 0", _group({"schedulingPolicy": {"gang": {"minCount": 0}}})),
    ("pod group with gang and no minCount", _group({"schedulingPolicy": {"gang": {}}})),
    (
        "pod group with a negative minCount",
        _group({"schedulingPolicy": {"gang": {"minCount": -1}}}),
    ),
    ("pod group with an invalid name", _group({"schedulingPolicy": GANG2}, name="Bad_Name")),
    (
        "pod group with an empty topology key",
        _group({"schedulingPolicy": GANG2, "schedulingConstraints": {"topology": [{"key": ""}]}}),
    ),
    (
        "pod group with an invalid topology key",
        _group(
            {
                "schedulingPolicy": GANG2,
                "schedulingConstraints": {"topology": [{"key": "bad key!"}]},
            }
        ),
    ),
    (
        "pod group with two topology constraints",
        _group(
            {
                "schedulingPolicy": GANG2,
                "schedulingConstraints": {
                    "topology": [{"key": ZONE}, {"key": "kubernetes.io/hostname"}]
                },
            }
        ),
    ),
    (
        "pod group with an unknown disruption mode",
        _group({"schedulingPolicy": GANG2, "disruptionMode": "Node"}),
    ),
    (
        "pod group with disruption mode PodGroup",
        _group({"schedulingPolicy": GANG2, "disruptionMode": "PodGroup"}),
    ),
    ("pod group with a priority", _group({"schedulingPolicy": GANG2, "priority": 5})),
    (
        "pod group with an invalid priority class name",
        _group({"schedulingPolicy": GANG2, "priorityClassName": "Not_Valid"}),
    ),
    (
        "pod group with an empty template reference",
        _group({"schedulingPolicy": GANG2, "podGroupTemplateRef": {}}),
    ),
    (
        "pod group with a workload reference missing its names",
        _group({"schedulingPolicy": GANG2, "podGroupTemplateRef": {"workload": {}}}),
    ),
    (
        "pod group with an invalid template name in its reference",
        _group(
            {
                "schedulingPolicy": GANG2,
                "podGroupTemplateRef": {
                    "workload": {"workloadName": "job", "podGroupTemplateName": "Bad.Name"}
                },
            }
        ),
    ),
    (
        "pod group resource claim naming both a claim and a template",
        _group(
            {
                "schedulingPolicy": GANG2,
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimName": "c", "resourceClaimTemplateName": "t"}
                ],
            }
        ),
    ),
    (
        "pod group resource claim naming neither",
        _group({"schedulingPolicy": GANG2, "resourceClaims": [{"name": "gpu"}]}),
    ),
    (
        "pod group with two resource claims of one name",
        _group(
            {
                "schedulingPolicy": GANG2,
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimName": "c"},
                    {"name": "gpu", "resourceClaimName": "d"},
                ],
            }
        ),
    ),
    ("pod group with an unknown field", _group({"schedulingPolicy": GANG2, "minMember": 2})),
    ("workload without pod group templates", _workload([])),
    (
        "workload with nine pod group templates",
        _workload([_template(f"t{index}") for index in range(9)]),
    ),
    ("workload with two templates of one name", _workload([_template("t"), _template("t")])),
    ("workload template without a name", _workload([_template("")])),
    ("workload template with an invalid name", _workload([_template("Bad.Name")])),
    ("workload template without a policy", _workload([_template(policy={})])),
    ("workload template with minCount 0", _workload([_template(policy={"gang": {"minCount": 0}})])),
    (
        "workload with a controller reference missing kind and name",
        {
            **_workload([_template()]),
            "spec": {"controllerRef": {"apiGroup": "batch"}, "podGroupTemplates": [_template()]},
        },
    ),
    ("workload with an invalid name", _workload([_template()], name="Bad_Name")),
    (
        "pod with an empty scheduling group",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "member", "namespace": "default"},
            "spec": {
                "schedulingGroup": {},
                "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}],
            },
        },
    ),
    (
        "pod with an invalid pod group name",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "member", "namespace": "default"},
            "spec": {
                "schedulingGroup": {"podGroupName": "Bad_Name"},
                "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}],
            },
        },
    ),
]
