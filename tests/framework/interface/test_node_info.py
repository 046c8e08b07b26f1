"""NodeInfo, PodInfo, Resource and HostPortInfo; cases from upstream types_test.go (both the
scheduler's and the public framework's)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.affinity import PodAffinityTerm
from framework.api.labels import LabelSelector
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.quantity import BINARY_SI, Quantity
from framework.api.resources import DEFAULT_MEMORY_REQUEST
from framework.interface.node_info import (
    AMOUNT_ALLOCATABLE_CPU,
    AMOUNT_ALLOWED_PODS,
    AMOUNT_NON_ZERO_REQUESTED_MEMORY,
    AMOUNT_PODS,
    AMOUNT_REQUESTED_CPU,
    HostPortInfo,
    ImageStateSummary,
    NodeInfo,
    PodInfo,
    PodNotFoundError,
    Resource,
    namespaces_from_pod_affinity_term,
    next_generation,
)

NAMESPACE = "node_info_cache_test"


def make_pod(
    name: str,
    requests: dict[str, str] | None = None,
    host_port: int = 0,
    *,
    overhead: dict[str, str] | None = None,
    claims: tuple[str, ...] = (),
    init_requests: dict[str, str] | None = None,
    affinity: dict[str, Any] | None = None,
) -> Pod:
    container: dict[str, Any] = {"name": "c", "resources": {"requests": requests or {}}}
    if host_port:
        container["ports"] = [{"hostIP": "127.0.0.1", "hostPort": host_port, "protocol": "TCP"}]
    spec: dict[str, Any] = {"containers": [container], "nodeName": "test-node"}
    if overhead:
        spec["overhead"] = overhead
    if claims:
        spec["volumes"] = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    if init_requests:
        spec["initContainers"] = [{"name": "i", "resources": {"requests": init_requests}}]
    if affinity:
        spec["affinity"] = affinity
    return Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": name, "namespace": NAMESPACE, "uid": name},
            "spec": spec,
        }
    )


def make_node(name: str = "test-node", **status: Any) -> Node:
    return Node.from_dict({"kind": "Node", "metadata": {"name": name}, "status": status})


def ports(node_info: NodeInfo) -> dict[str, set[tuple[str, int]]]:
    return node_info.used_ports.as_dict()


# -- Resource ---------------------------------------------------------------------------------


def test_new_resource_reads_every_kind_of_resource():
    resource = Resource.from_resource_list(
        {
            "cpu": Quantity.from_milli(4),
            "memory": Quantity.from_value(2000, BINARY_SI),
            "pods": Quantity.from_value(80, BINARY_SI),
            "ephemeral-storage": Quantity.from_value(5000, BINARY_SI),
            "scalar.test/scalar1": Quantity.from_value(1),
            "hugepages-test": Quantity.from_value(2, BINARY_SI),
            "storage": Quantity.from_value(7),
        }
    )
    assert resource == Resource(4, 2000, 5000, 80, {"scalar.test/scalar1": 1, "hugepages-test": 2})


def test_an_empty_resource_list_is_an_empty_resource():
    assert Resource.from_resource_list({}) == Resource()


def test_clone_is_independent():
    original = Resource(4, 2000, 5000, 80, {"hugepages-test": 2})
    copy = original.clone()
    original.milli_cpu += 1000
    original.scalar_resources["hugepages-test"] = 9
    assert copy == Resource(4, 2000, 5000, 80, {"hugepages-test": 2})


def test_sub_takes_away_field_by_field():
    resource = Resource(4, 2000, 5000, 80, {"a": 2, "b": 1})
    resource.sub(Resource(1, 1000, 0, 1, {"a": 2, "c": 1}))
    assert resource == Resource(3, 1000, 5000, 79, {"a": 0, "b": 1, "c": -1})


@pytest.mark.parametrize(
    ("resource", "name", "amount", "expected"),
    [
        (Resource(), "scalar1", 100, Resource(scalar_resources={"scalar1": 100})),
        (
            Resource(4, 2000, 5000, 80, {"hugepages-test": 2}),
            "scalar2",
            200,
            Resource(4, 2000, 5000, 80, {"hugepages-test": 2, "scalar2": 200}),
        ),
    ],
    ids=["into an empty resource", "beside other scalars"],
)
def test_add_scalar(resource, name, amount, expected):
    resource.add_scalar(name, amount)
    assert resource == expected


@pytest.mark.parametrize(
    ("resource", "resource_list", "expected"),
    [
        (
            Resource(),
            {"cpu": "4m", "memory": "2000", "ephemeral-storage": "5000"},
            Resource(4, 2000, 5000),
        ),
        (
            Resource(4, 4000, 5000, 0, {"scalar.test/scalar1": 1, "hugepages-test": 2}),
            {
                "cpu": "4m",
                "memory": "2000",
                "ephemeral-storage": "7000",
                "scalar.test/scalar1": "4",
                "hugepages-test": "5",
            },
            Resource(4, 4000, 7000, 0, {"scalar.test/scalar1": 4, "hugepages-test": 5}),
        ),
    ],
    ids=["from empty", "keeps the larger of each"],
)
def test_set_max_resource(resource, resource_list, expected):
    resource.set_max_resource({k: Quantity.parse(v) for k, v in resource_list.items()})
    assert resource == expected


# -- NodeInfo ---------------------------------------------------------------------------------


def test_new_node_info_aggregates_its_pods():
    before = next_generation()
    node_info = NodeInfo(
        make_pod("test-1", {"cpu": "100m", "memory": "500"}, 80),
        make_pod("test-2", {"cpu": "200m", "memory": "1Ki"}, 8080),
    )
    assert node_info.generation > before
    assert node_info.requested == Resource(milli_cpu=300, memory=1524)
    assert node_info.non_zero_requested == Resource(milli_cpu=300, memory=1524)
    assert node_info.allocatable == Resource()
    assert ports(node_info) == {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}}
    assert [p.pod.name for p in node_info.pods] == ["test-1", "test-2"]
    assert node_info.pods[0].calculate_resource().resource == Resource(milli_cpu=100, memory=500)
    assert node_info.node is None
    assert node_info.node_name == ""


def add_pod_fixture() -> tuple[NodeInfo, list[Pod]]:
    pods = [
        make_pod(
            "test-1",
            {"cpu": "100m", "memory": "500"},
            80,
            overhead={"cpu": "500m"},
            claims=("pvc-1",),
        ),
        make_pod(
            "test-2",
            {"cpu": "200m"},
            8080,
            overhead={"cpu": "500m", "memory": "500"},
            claims=("pvc-1",),
        ),
        make_pod(
            "test-3",
            {"cpu": "200m"},
            8080,
            overhead={"cpu": "500m", "memory": "500"},
            claims=("pvc-2",),
            init_requests={"cpu": "500m", "memory": "200Mi"},
        ),
    ]
    node_info = NodeInfo()
    node_info.set_node(make_node())
    return node_info, pods


def test_add_pod_counts_overhead_init_containers_ports_and_claims():
    node_info, pods = add_pod_fixture()
    generation = node_info.generation
    for pod in pods:
        node_info.add_pod(pod)
        assert node_info.generation > generation
        generation = node_info.generation
    assert node_info.requested == Resource(milli_cpu=2300, memory=209716700)
    # 200Mi of the init container + the 200Mi default for test-2 + 1500 from requests/overhead
    assert node_info.non_zero_requested == Resource(milli_cpu=2300, memory=419431900)
    assert ports(node_info) == {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}}
    assert node_info.pvc_ref_counts == {f"{NAMESPACE}/pvc-1": 2, f"{NAMESPACE}/pvc-2": 1}
    resources = [p.calculate_resource() for p in node_info.pods]
    assert [(r.resource.milli_cpu, r.resource.memory) for r in resources] == [
        (600, 500),
        (700, 500),
        (1000, 200 * 1024 * 1024 + 500),
    ]
    assert [(r.non0_cpu, r.non0_mem) for r in resources] == [
        (600, 500),
        (700, DEFAULT_MEMORY_REQUEST + 500),
        (1000, 200 * 1024 * 1024 + 500),
    ]


def remove_pod_fixture() -> tuple[NodeInfo, list[Pod]]:
    overhead = {"cpu": "500m", "memory": "500"}
    pods = [
        make_pod(
            "test-1", {"cpu": "100m", "memory": "500"}, 80, overhead=overhead, claims=("pvc-1",)
        ),
        make_pod("test-2", {"cpu": "200m", "memory": "1Ki"}, 8080, overhead=overhead),
    ]
    node_info = NodeInfo(*pods)
    node_info.set_node(make_node())
    return node_info, pods


def test_removing_an_unknown_pod_fails_and_changes_nothing():
    node_info, _ = remove_pod_fixture()
    generation = node_info.generation
    with pytest.raises(PodNotFoundError) as excinfo:
        node_info.remove_pod(make_pod("non-exist"))
    assert str(excinfo.value) == "no corresponding pod non-exist in pods of node test-node"
    assert node_info.generation == generation
    assert node_info.requested == Resource(milli_cpu=1300, memory=2524)
    assert node_info.pvc_ref_counts == {f"{NAMESPACE}/pvc-1": 1}


def test_remove_pod_subtracts_everything_it_added():
    node_info, pods = remove_pod_fixture()
    generation = node_info.generation
    node_info.remove_pod(pods[0])
    assert node_info.generation > generation
    assert node_info.requested == Resource(milli_cpu=700, memory=1524)
    assert node_info.non_zero_requested == Resource(milli_cpu=700, memory=1524)
    assert ports(node_info) == {"127.0.0.1": {("TCP", 8080)}}
    assert node_info.pvc_ref_counts == {}
    assert [p.pod.name for p in node_info.pods] == ["test-2"]


def test_removing_pods_together_equals_removing_them_one_by_one():
    together, pods = remove_pod_fixture()
    one_by_one, _ = remove_pod_fixture()
    generation = together.generation
    together.remove_pods(pods)
    for pod in pods:
        one_by_one.remove_pod(pod)
    assert together.generation > generation
    assert together.requested == one_by_one.requested == Resource()
    assert together.non_zero_requested == one_by_one.non_zero_requested
    assert together.resource_amounts is one_by_one.resource_amounts
    assert ports(together) == ports(one_by_one) == {}
    assert together.pvc_ref_counts == one_by_one.pvc_ref_counts == {}
    assert together.pods == one_by_one.pods == []


def test_removing_pods_together_keeps_the_counts_right_when_one_is_missing():
    node_info, pods = remove_pod_fixture()
    missing = make_pod("missing")
    with pytest.raises(PodNotFoundError):
        node_info.remove_pods([pods[0], missing])
    assert node_info.requested == Resource(milli_cpu=700, memory=1524)
    assert node_info.resource_amounts[AMOUNT_REQUESTED_CPU] == 700


def test_removal_swaps_in_the_last_pod_as_upstream():
    node_info = NodeInfo(*(make_pod(f"p{i}") for i in range(4)))
    node_info.remove_pod(make_pod("p1"))
    assert [p.pod.name for p in node_info.pods] == ["p0", "p3", "p2"]


def test_pods_are_identified_by_uid():
    node_info = NodeInfo(make_pod("p"))
    other = Pod.from_dict(
        {"kind": "Pod", "metadata": {"name": "p", "namespace": NAMESPACE, "uid": "different"}}
    )
    with pytest.raises(PodNotFoundError):
        node_info.remove_pod(other)


ANTI_AFFINITY = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}
        ]
    }
}
PREFERRED_AFFINITY = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 3, "podAffinityTerm": {"topologyKey": "zone", "namespaces": ["a", "b"]}}
        ]
    }
}


def test_pods_with_affinity_are_tracked_separately():
    node_info = NodeInfo(
        make_pod("plain"),
        make_pod("anti", affinity=ANTI_AFFINITY),
        make_pod("preferred", affinity=PREFERRED_AFFINITY),
    )
    assert [p.pod.name for p in node_info.pods_with_affinity] == ["anti", "preferred"]
    assert [p.pod.name for p in node_info.pods_with_required_anti_affinity] == ["anti"]
    node_info.remove_pod(make_pod("anti", affinity=ANTI_AFFINITY))
    assert [p.pod.name for p in node_info.pods_with_affinity] == ["preferred"]
    assert node_info.pods_with_required_anti_affinity == []


def test_set_node_reads_allocatable_and_declared_features():
    node_info = NodeInfo()
    generation = node_info.generation
    node_info.set_node(
        make_node(
            allocatable={"cpu": "2", "memory": "1Gi", "pods": "110", "example.com/gpu": "1"},
            declaredFeatures=["FeatureA"],
        )
    )
    assert node_info.generation > generation
    assert node_info.node_name == "test-node"
    assert node_info.allocatable == Resource(2000, 1024**3, 0, 110, {"example.com/gpu": 1})
    assert node_info.declared_features == frozenset({"FeatureA"})


def test_remove_node_keeps_the_pods():
    node_info = NodeInfo(make_pod("p"))
    node_info.set_node(make_node())
    generation = node_info.generation
    node_info.remove_node()
    assert node_info.node is None
    assert node_info.generation > generation
    assert len(node_info.pods) == 1


def test_clone_copies_lists_and_counters_but_shares_pod_infos():
    node_info = NodeInfo(make_pod("a", {"cpu": "1"}, 80, claims=("c",)), make_pod("b"))
    node_info.set_node(make_node())
    node_info.image_states["img"] = ImageStateSummary(100, nodes={"test-node", "other"})
    copy = node_info.clone()

    assert copy.generation == node_info.generation
    assert copy.node is node_info.node
    assert copy.pods[0] is node_info.pods[0]
    assert copy.image_states["img"] == ImageStateSummary(100, 2)
    # A copy of the copy (preemption's dry run copies the snapshot's) keeps the count.
    assert copy.clone().image_states["img"] == ImageStateSummary(100, 2)

    copy.add_pod(make_pod("c", {"cpu": "1"}, 81, claims=("c",)))
    assert [p.pod.name for p in node_info.pods] == ["a", "b"]
    assert node_info.requested.milli_cpu == 1000
    assert node_info.pvc_ref_counts == {f"{NAMESPACE}/c": 1}
    assert ports(node_info) == {"127.0.0.1": {("TCP", 80)}}
    assert copy.requested.milli_cpu == 2000
    assert copy.generation > node_info.generation


def test_repr_names_the_node_and_pods():
    node_info = NodeInfo(make_pod("a"))
    node_info.set_node(make_node())
    assert "node='test-node'" in repr(node_info)
    assert "pods=['a']" in repr(node_info)


def test_generations_increase_monotonically():
    first, second = next_generation(), next_generation()
    assert second > first


# -- PodInfo ----------------------------------------------------------------------------------


def test_pod_info_parses_affinity_terms_with_default_namespaces():
    pod = make_pod("p", affinity={**ANTI_AFFINITY, **PREFERRED_AFFINITY})
    info = PodInfo(pod)
    assert info.parse_error is None
    [anti] = info.required_anti_affinity_terms
    assert anti.namespaces == frozenset({NAMESPACE})
    assert anti.topology_key == "zone"
    assert anti.matches(make_pod("q").deep_copy(), None) is False
    labelled = Pod.from_dict(
        {"kind": "Pod", "metadata": {"name": "x", "namespace": NAMESPACE, "labels": {"app": "x"}}}
    )
    assert anti.matches(labelled, None)
    [preferred] = info.preferred_affinity_terms
    assert (preferred.weight, preferred.namespaces) == (3, frozenset({"a", "b"}))
    assert preferred.selector.matches_nothing()
    assert not info.required_affinity_terms


def test_a_bad_selector_keeps_the_error_and_drops_that_group():
    bad = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt"}]},
                    "topologyKey": "zone",
                }
            ]
        },
        **ANTI_AFFINITY,
    }
    info = PodInfo(make_pod("p", affinity=bad))
    assert str(info.parse_error) == (
        'requiredAffinityTerms: "Gt" is not a valid label selector operator'
    )
    assert not info.required_affinity_terms
    assert len(info.required_anti_affinity_terms) == 1
    node_info = NodeInfo(make_pod("p", affinity=bad))
    assert len(node_info.pods) == 1


def test_update_with_the_same_pod_keeps_parsed_terms():
    info = PodInfo(make_pod("p", {"cpu": "1"}, affinity=ANTI_AFFINITY))
    terms = info.required_anti_affinity_terms
    newer = make_pod("p", {"cpu": "1"}, affinity=ANTI_AFFINITY)
    assert info.update(newer) is None
    assert info.pod is newer
    assert info.required_anti_affinity_terms is terms
    other = make_pod("q")
    info.update(other)
    assert not info.required_anti_affinity_terms
    assert info.calculate_resource().non0_cpu == 100


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        (PodAffinityTerm(), {"default"}),
        (
            PodAffinityTerm(namespaces=["kube-public", "kube-system"]),
            {"kube-public", "kube-system"},
        ),
        (PodAffinityTerm(namespace_selector=LabelSelector()), set()),
    ],
    ids=[
        "no namespaces means the pod's own",
        "listed namespaces",
        "a namespace selector means only the listed ones",
    ],
)
def test_namespaces_from_pod_affinity_term(term, expected):
    pod = Pod.from_dict({"kind": "Pod", "metadata": {"name": "topologies_pod"}})
    assert namespaces_from_pod_affinity_term(pod, term) == expected


# -- HostPortInfo -----------------------------------------------------------------------------

ADDED_BOTH = [
    ("TCP", "127.0.0.1", 79),
    ("UDP", "127.0.0.1", 80),
    ("TCP", "127.0.0.1", 81),
    ("TCP", "127.0.0.1", 82),
    ("TCP", "0.0.0.0", 79),
    ("UDP", "0.0.0.0", 80),
    ("TCP", "0.0.0.0", 81),
    ("TCP", "0.0.0.0", 82),
]


@pytest.mark.parametrize(
    ("added", "removed", "length"),
    [
        ([*ADDED_BOTH, ("TCP", "0.0.0.0", 0), ("TCP", "0.0.0.0", -1)], [], 8),
        (
            [
                ("", "127.0.0.1", 79),
                ("UDP", "127.0.0.1", 80),
                ("", "127.0.0.1", 81),
                ("", "127.0.0.1", 82),
                ("", "", 79),
                ("UDP", "", 80),
                ("", "", 81),
                ("", "", 82),
                ("", "", 0),
                ("", "", -1),
            ],
            [],
            8,
        ),
        (ADDED_BOTH, ADDED_BOTH, 0),
        (
            ADDED_BOTH,
            [
                ("", "127.0.0.1", 79),
                ("", "127.0.0.1", 81),
                ("", "127.0.0.1", 82),
                ("UDP", "127.0.0.1", 80),
                ("", "", 79),
                ("", "", 81),
                ("", "", 82),
                ("UDP", "", 80),
            ],
            0,
        ),
    ],
    ids=[
        "normal adds ignore non-positive ports",
        "empty ip and protocol mean 0.0.0.0 and TCP",
        "normal removes",
        "empty ip and protocol removes",
    ],
)
def test_host_port_info_add_and_remove(added, removed, length):
    info = HostPortInfo()
    for protocol, ip, port in added:
        info.add(ip, protocol, port)
    for protocol, ip, port in removed:
        info.remove(ip, protocol, port)
    assert len(info) == length


CONFLICTS = [
    ("an empty check means 0.0.0.0 and TCP", [("TCP", "127.0.0.1", 80)], ("", "", 81), False),
    ("an empty check conflicts on the same port", [("TCP", "127.0.0.1", 80)], ("", "", 80), True),
    ("port zero never conflicts", [("TCP", "127.0.0.1", 80)], ("", "", 0), False),
    ("0.0.0.0 checks every IP", [("TCP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), True),
    ("another protocol is free", [("UDP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), False),
    (
        "other ports are free",
        [("TCP", "127.0.0.1", 79), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82)],
        ("TCP", "0.0.0.0", 80),
        False,
    ),
    ("a port on 0.0.0.0 blocks every IP", [("TCP", "0.0.0.0", 80)], ("TCP", "127.0.0.1", 80), True),
    (
        "0.0.0.0 with other ports or protocols is free",
        [("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81)],
        ("TCP", "127.0.0.1", 80),
        False,
    ),
    (
        "the same IP with other ports or protocols is free",
        [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81)],
        ("TCP", "127.0.0.1", 80),
        False,
    ),
]


@pytest.mark.parametrize(
    ("added", "check", "expected"), [c[1:] for c in CONFLICTS], ids=[c[0] for c in CONFLICTS]
)
def test_host_port_info_check_conflict(added, check, expected):
    info = HostPortInfo()
    for protocol, ip, port in added:
        info.add(ip, protocol, port)
    protocol, ip, port = check
    assert info.check_conflict(ip, protocol, port) is expected


def test_sidecar_host_ports_are_counted_but_init_container_ports_are_not():
    pod = Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [
                    {"name": "init", "ports": [{"containerPort": 1, "hostPort": 7000}]},
                    {
                        "name": "sidecar",
                        "restartPolicy": "Always",
                        "ports": [{"containerPort": 1, "hostPort": 7001, "protocol": "UDP"}],
                    },
                ],
                "containers": [{"name": "c", "ports": [{"containerPort": 80}]}],
            },
        }
    )
    assert ports(NodeInfo(pod)) == {"0.0.0.0": {("UDP", 7001)}}


# -- resource amounts --------------------------------------------------------------------------


def test_resource_amounts_follow_the_node_and_its_pods():
    node_info = NodeInfo()
    node_info.set_node(make_node(allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}))
    amounts = node_info.resource_amounts
    assert (amounts[AMOUNT_ALLOCATABLE_CPU], amounts[AMOUNT_ALLOWED_PODS]) == (4000, 110)
    assert (amounts[AMOUNT_REQUESTED_CPU], amounts[AMOUNT_PODS]) == (0, 0)

    pod = make_pod("p", {"cpu": "500m"})
    node_info.add_pod(pod)
    amounts = node_info.resource_amounts
    assert (amounts[AMOUNT_REQUESTED_CPU], amounts[AMOUNT_PODS]) == (500, 1)
    assert amounts[AMOUNT_NON_ZERO_REQUESTED_MEMORY] == DEFAULT_MEMORY_REQUEST
    clone = node_info.clone()

    node_info.remove_pod(pod)
    assert node_info.resource_amounts[AMOUNT_REQUESTED_CPU] == 0
    assert clone.resource_amounts[AMOUNT_REQUESTED_CPU] == 500  # a clone keeps its own


def test_nodes_with_equal_amounts_share_one_tuple():
    # The resource scores tell alike nodes apart by the tuple's identity.
    a, b = NodeInfo(make_pod("p1", {"cpu": "1"})), NodeInfo(make_pod("p2", {"cpu": "1"}))
    c = NodeInfo(make_pod("p3", {"cpu": "2"}))
    assert a.resource_amounts is b.resource_amounts
    assert c.resource_amounts != a.resource_amounts


def test_the_node_cordon_and_taints_are_kept_on_the_node_info():
    # The batch filters read them here, without walking to the node's spec.
    node_info = NodeInfo()
    assert (node_info.unschedulable, node_info.taints) == (False, ())
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    node = Node.from_dict(
        {
            "kind": "Node",
            "metadata": {"name": "n"},
            "spec": {"unschedulable": True, "taints": [taint]},
        }
    )
    node_info.set_node(node)
    assert node_info.unschedulable is True
    assert node_info.taints == tuple(node.spec.taints)
    assert (node_info.clone().unschedulable, node_info.clone().taints) == (True, node_info.taints)

    node_info.set_node(make_node("n"))
    assert (node_info.unschedulable, node_info.taints) == (False, ())
    node_info.set_node(node)
    node_info.remove_node()
    assert (node_info.unschedulable, node_info.taints) == (False, ())
