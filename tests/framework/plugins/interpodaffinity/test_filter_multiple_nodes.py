"""Filter of required (anti-)affinity over several nodes and topology domains.

Ported from upstream's TestRequiredAffinityMultipleNodes and TestPreFilterDisabled.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from tests.framework.plugins.interpodaffinity.helpers import namespace, new_plugin, node
from tests.framework.plugins.wrappers import PodAffinityKind, make_pod

REQUIRED = PodAffinityKind.REQUIRED
AFFINITY = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match pod affinity rules")
ANTI = Status(Code.UNSCHEDULABLE, "node(s) didn't match pod anti-affinity rules")
EXISTING = Status(Code.UNSCHEDULABLE, "node(s) didn't satisfy existing pods anti-affinity rules")
CHINA_INDIA = [
    ("node1", {"region": "China"}),
    ("node2", {"region": "China", "az": "az1"}),
    ("node3", {"region": "India"}),
]
A_B_C_CHINA_INDIA = [
    ("nodeA", {"region": "China"}),
    ("nodeB", {"region": "China", "az": "az1"}),
    ("nodeC", {"region": "India"}),
]
SAME_ZONE = [
    ("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
    ("nodeB", {"region": "r1", "zone": "z1", "hostname": "nodeB"}),
]
TWO_ZONES = [
    ("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
    ("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
]


def on(node_name: str, labels: dict[str, str] | None = None, ns: str | None = None) -> Any:
    wrapper = make_pod().node(node_name).labels(labels or {})
    if ns is not None:
        wrapper.namespace(ns)
    return wrapper


def incoming(labels: dict[str, str] | None = None, ns: str | None = None) -> Any:
    wrapper = make_pod().labels(labels or {})
    if ns is not None:
        wrapper.namespace(ns)
    return wrapper


CASES = [
    pytest.param(
        incoming().pod_affinity_in("foo", "region", ["bar"], REQUIRED).obj(),
        [on("node1", {"foo": "bar"}).name("p1").obj()],
        CHINA_INDIA,
        None,
        [None, None, AFFINITY],
        id="every node in the region of a matching pod fits",
    ),
    pytest.param(
        incoming({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"], REQUIRED)
        .pod_affinity_in("service", "zone", ["securityscan"], REQUIRED)
        .obj(),
        [on("nodeA", {"foo": "bar"}).name("p1").obj()],
        [
            ("nodeA", {"zone": "az1", "hostname": "h1"}),
            ("nodeB", {"zone": "az2", "hostname": "h2"}),
        ],
        None,
        [None, None],
        id="the first pod of a group with affinity to itself may go anywhere",
    ),
    pytest.param(
        incoming({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"], REQUIRED)
        .pod_affinity_in("service", "zone", ["securityscan"], REQUIRED)
        .obj(),
        [on("nodeA", {"foo": "bar"}).name("p1").obj()],
        [
            ("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
            ("nodeB", {"zoneLabel": "az2", "hostname": "h2"}),
        ],
        None,
        [AFFINITY, AFFINITY],
        id="the first pod of a group still needs the topology keys",
    ),
    pytest.param(
        incoming().pod_anti_affinity_in("foo", "region", ["abc"], REQUIRED).obj(),
        [on("nodeA", {"foo": "abc"}).obj()],
        [
            ("nodeA", {"region": "r1", "hostname": "nodeA"}),
            ("nodeB", {"region": "r1", "hostname": "nodeB"}),
        ],
        None,
        [ANTI, ANTI],
        id="anti-affinity rejects the whole region of a matching pod",
    ),
    pytest.param(
        incoming()
        .pod_anti_affinity_in("foo", "region", ["abc"], REQUIRED)
        .pod_anti_affinity_in("service", "zone", ["securityscan"], REQUIRED)
        .obj(),
        [on("nodeA", {"foo": "abc", "service": "securityscan"}).obj()],
        [
            ("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
            ("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
        ],
        None,
        [ANTI, ANTI],
        id="any anti-affinity term matching is enough to reject",
    ),
    pytest.param(
        incoming().pod_anti_affinity_in("foo", "region", ["abc"], REQUIRED).obj(),
        [on("nodeA", {"foo": "abc"}).obj()],
        A_B_C_CHINA_INDIA,
        None,
        [ANTI, ANTI, None],
        id="anti-affinity leaves other regions open",
    ),
    pytest.param(
        incoming({"foo": "123"}, "NS1")
        .pod_anti_affinity_in("foo", "region", ["bar"], REQUIRED)
        .obj(),
        [
            on("nodeA", {"foo": "bar"}, "NS1").obj(),
            on("nodeC", ns="NS2").pod_anti_affinity_in("foo", "region", ["123"], REQUIRED).obj(),
        ],
        A_B_C_CHINA_INDIA,
        None,
        [ANTI, ANTI, None],
        id="an existing pod's anti-affinity only reaches its own namespace",
    ),
    pytest.param(
        incoming({"foo": ""}).obj(),
        [on("nodeA").pod_anti_affinity_exists("foo", "invalid-node-label", REQUIRED).obj()],
        SAME_ZONE,
        Status(Code.SKIP),
        None,
        id="an existing anti-affinity term on a missing topology key counts nothing",
    ),
    pytest.param(
        incoming()
        .node("nodeA")
        .pod_anti_affinity_exists("foo", "invalid-node-label", REQUIRED)
        .obj(),
        [on("nodeA", {"foo": ""}).obj()],
        SAME_ZONE,
        None,
        [None, None],
        id="the pod's anti-affinity also needs the topology key on the node",
    ),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [
            on("nodeA").pod_anti_affinity_exists("foo", "zone", REQUIRED).obj(),
            on("nodeA").pod_anti_affinity_exists("bar", "region", REQUIRED).obj(),
        ],
        TWO_ZONES,
        None,
        [EXISTING, EXISTING],
        id="existing pods' anti-affinity together rejects every node",
    ),
    pytest.param(
        incoming()
        .pod_anti_affinity_exists("foo", "zone", REQUIRED)
        .pod_anti_affinity_exists("bar", "region", REQUIRED)
        .obj(),
        [on("nodeA", {"foo": ""}).obj(), on("nodeB", {"bar": ""}).obj()],
        TWO_ZONES,
        None,
        [ANTI, ANTI],
        id="the pod's anti-affinity terms together reject every node",
    ),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [
            on("nodeA")
            .pod_anti_affinity_exists("foo", "invalid-node-label", REQUIRED)
            .pod_anti_affinity_exists("bar", "zone", REQUIRED)
            .obj()
        ],
        TWO_ZONES,
        None,
        [EXISTING, None],
        id="an existing term counts only when selector and topology key both match",
    ),
    pytest.param(
        incoming()
        .pod_anti_affinity_exists("foo", "invalid-node-label", REQUIRED)
        .pod_anti_affinity_exists("bar", "zone", REQUIRED)
        .obj(),
        [on("nodeA", {"foo": "", "bar": ""}).name("podA").obj()],
        TWO_ZONES,
        None,
        [ANTI, None],
        id="the pod's term counts only when selector and topology key both match",
    ),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [
            on("nodeA")
            .pod_anti_affinity_exists("foo", "region", REQUIRED)
            .pod_anti_affinity_exists("bar", "zone", REQUIRED)
            .obj()
        ],
        TWO_ZONES,
        None,
        [EXISTING, EXISTING],
        id="existing terms with valid topology keys reject both nodes",
    ),
    pytest.param(
        incoming()
        .pod_anti_affinity_exists("foo", "region", REQUIRED)
        .pod_anti_affinity_exists("bar", "zone", REQUIRED)
        .obj(),
        [on("nodeA", {"foo": "", "bar": ""}).obj()],
        TWO_ZONES,
        None,
        [ANTI, ANTI],
        id="the pod's terms with valid topology keys reject both nodes",
    ),
    pytest.param(
        incoming({"foo": "", "bar": ""}).obj(),
        [
            on("nodeA")
            .pod_anti_affinity_exists("foo", "zone", REQUIRED)
            .pod_anti_affinity_exists("labelA", "zone", REQUIRED)
            .obj(),
            on("nodeB")
            .pod_anti_affinity_exists("bar", "zone", REQUIRED)
            .pod_anti_affinity_exists("labelB", "zone", REQUIRED)
            .obj(),
        ],
        [*TWO_ZONES, ("nodeC", {"region": "r1", "zone": "z3", "hostname": "nodeC"})],
        None,
        [EXISTING, EXISTING, None],
        id="only the node whose zone holds no conflicting pod fits",
    ),
    pytest.param(
        incoming()
        .pod_affinity_exists("foo", "region", REQUIRED)
        .pod_affinity_exists("bar", "zone", REQUIRED)
        .obj(),
        [on("nodeA", {"foo": "", "bar": ""}).name("pod1").obj()],
        SAME_ZONE,
        None,
        [None, None],
        id="one pod matching every affinity term satisfies them",
    ),
    pytest.param(
        incoming()
        .pod_affinity_exists("foo", "region", REQUIRED)
        .pod_affinity_exists("bar", "zone", REQUIRED)
        .obj(),
        [on("nodeA", {"foo": ""}).name("pod1").obj(), on("nodeB", {"bar": ""}).name("pod2").obj()],
        TWO_ZONES,
        None,
        [AFFINITY, AFFINITY],
        id="affinity terms must all be matched by the same pod",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "nodes", "want_pre_filter", "want"), CASES)
def test_required_affinity_over_several_nodes(
    pod: Any,
    existing: list[Any],
    nodes: list[tuple[str, dict[str, str]]],
    want_pre_filter: Status | None,
    want: list[Status | None] | None,
) -> None:
    plugin = new_plugin(
        existing, [node(name, labels) for name, labels in nodes], [namespace("NS1", {})]
    )
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()

    _, pre_filter_status = plugin.pre_filter(state, pod, snapshot.list())

    assert pre_filter_status == want_pre_filter
    if want is not None:
        assert [plugin.filter(state, pod, snapshot.get(name)) for name, _ in nodes] == want


def test_filter_without_pre_filter_state_is_an_error() -> None:
    plugin = new_plugin([], [node("n", {})])

    status = plugin.filter(
        CycleState(), make_pod().obj(), plugin.handle.snapshot_shared_lister().get("n")
    )

    assert status == Status.error(
        'error reading "PreFilterInterPodAffinity" from cycleState: not found'
    )
