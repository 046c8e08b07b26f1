"""Filter: the skew check per node, its status codes and its messages.

Ported from upstream's TestSingleConstraint, TestMultipleConstraints and TestPreFilterDisabled.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from tests.framework.plugins.podtopologyspread.helpers import (
    BAR_SELECTOR,
    DO_NOT_SCHEDULE,
    FOO_SELECTOR,
    HONOR,
    IGNORE,
    UNSCHEDULABLE_TAINTS,
    new_plugin,
    node,
    pod_on,
    zone_node,
)
from tests.framework.plugins.wrappers import make_pod

FOO = {"foo": ""}
BAR = {"bar": ""}
FOO_BAR = {"foo": "", "bar": ""}
OK = Code.SUCCESS
NO = Code.UNSCHEDULABLE
NEVER = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
REASONS = {
    NO: "node(s) didn't match pod topology spread constraints",
    NEVER: "node(s) didn't match pod topology spread constraints (missing required label)",
}

FOUR_NODES = [
    zone_node("node-a", "zone1"),
    zone_node("node-b", "zone1"),
    zone_node("node-x", "zone2"),
    zone_node("node-y", "zone2"),
]
THREE_BARE_NODES = [node(f"node-{n}", {"node": f"node-{n}"}) for n in "abc"]
SPREAD_2_1_0_3 = [
    pod_on("p-a1", "node-a", FOO),
    pod_on("p-a2", "node-a", FOO),
    pod_on("p-b1", "node-b", FOO),
    pod_on("p-y1", "node-y", FOO),
    pod_on("p-y2", "node-y", FOO),
    pod_on("p-y3", "node-y", FOO),
]
SPREAD_2_2_1 = [
    pod_on("p-a1", "node-a", FOO),
    pod_on("p-a2", "node-a", FOO),
    pod_on("p-b1", "node-b", FOO),
    pod_on("p-b2", "node-b", FOO),
    pod_on("p-c1", "node-c", FOO),
]
ZONES_2_1 = [
    pod_on("p-b1", "node-a", FOO),
    pod_on("p-b2", "node-b", FOO),
    pod_on("p-y1", "node-y", FOO),
]
FOO_NODES_AND_BARE_Y = [
    node("node-a", {"node": "node-a", "foo": ""}),
    node("node-b", {"node": "node-b", "foo": ""}),
    node("node-x", {"node": "node-x", "foo": ""}),
    node("node-y", {"node": "node-y"}),
]
FOO_NODES_AND_TAINTED_Y = [
    *FOO_NODES_AND_BARE_Y[:3],
    node("node-y", {"node": "node-y"}, UNSCHEDULABLE_TAINTS),
]


def pod(*constraints: tuple[Any, ...], labels: dict[str, str] | None = None, **kw: Any) -> Any:
    wrapper = make_pod().name("p").labels(FOO if labels is None else labels)
    if "node_selector" in kw:
        wrapper.node_selector(kw["node_selector"])
    if "node_affinity_in" in kw:
        wrapper.node_affinity_in(*kw["node_affinity_in"])
    if "node_affinity_not_in" in kw:
        wrapper.node_affinity_not_in(*kw["node_affinity_not_in"])
    for args in constraints:
        wrapper.spread_constraint(*args)
    return wrapper.obj()


def zone(max_skew: int = 1, selector: Any = FOO_SELECTOR, *rest: Any) -> tuple[Any, ...]:
    return (max_skew, "zone", DO_NOT_SCHEDULE, selector, *rest)


def by_node(max_skew: int = 1, selector: Any = FOO_SELECTOR, *rest: Any) -> tuple[Any, ...]:
    return (max_skew, "node", DO_NOT_SCHEDULE, selector, *rest)


SINGLE_CONSTRAINT = [
    pytest.param(pod(zone()), FOUR_NODES, [], False, [OK, OK, OK, OK], id="no existing pods"),
    pytest.param(
        pod(zone(1, BAR_SELECTOR)),
        FOUR_NODES,
        [],
        False,
        [OK, OK, OK, OK],
        id="no existing pods and the pod does not match itself",
    ),
    pytest.param(
        pod(zone()),
        FOUR_NODES,
        [
            make_pod().name("p-a1").namespace("ns1").node("node-a").labels(FOO).obj(),
            make_pod().name("p-b1").namespace("ns2").node("node-a").labels(FOO).obj(),
            pod_on("p-x1", "node-x", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        False,
        [OK, OK, NO, NO],
        id="existing pods in other namespaces do not count",
    ),
    pytest.param(
        pod(zone(1, None)),
        FOUR_NODES,
        [pod_on("p-x1", "node-x", FOO), pod_on("p-y1", "node-y", FOO)],
        False,
        [OK, OK, OK, OK],
        id="existing pods do not match a null selector",
    ),
    pytest.param(
        pod(zone()),
        FOUR_NODES,
        SPREAD_2_1_0_3,
        False,
        [OK, OK, OK, OK],
        id="zones spread 3 and 3 so every node fits",
    ),
    pytest.param(
        pod(zone()),
        [
            zone_node("node-a", "zone1"),
            node("node-b", {"zon": "zone1", "node": "node-b"}),
            zone_node("node-x", "zone2"),
            zone_node("node-y", "zone2"),
        ],
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        False,
        [OK, NEVER, NO, NO],
        id="a node without the zone label is unresolvable and its pods do not count",
    ),
    pytest.param(
        pod((1, "rack", DO_NOT_SCHEDULE, FOO_SELECTOR)),
        [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")],
        [],
        False,
        [NEVER, NEVER],
        id="no node has the rack label",
    ),
    pytest.param(
        pod(by_node()),
        FOUR_NODES,
        SPREAD_2_1_0_3,
        False,
        [NO, NO, OK, NO],
        id="nodes spread 2 1 0 3 so only the empty node fits",
    ),
    pytest.param(
        pod(by_node(2)),
        FOUR_NODES,
        SPREAD_2_1_0_3,
        False,
        [NO, OK, OK, NO],
        id="nodes spread 2 1 0 3 with max skew 2",
    ),
    pytest.param(
        pod(by_node(), labels=BAR),
        FOUR_NODES,
        SPREAD_2_1_0_3,
        False,
        [NO, OK, OK, NO],
        id="a pod that does not match itself adds no skew",
    ),
    pytest.param(
        pod(by_node(), node_affinity_in=("node", ["node-a", "node-y"])),
        FOUR_NODES,
        SPREAD_2_1_0_3,
        False,
        [OK, OK, OK, NO],
        id="only nodes the node affinity accepts are domains",
    ),
    pytest.param(
        pod(by_node()),
        [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"})],
        [
            make_pod().name("p-a").node("node-a").labels(FOO).terminating().obj(),
            pod_on("p-b", "node-b", FOO),
        ],
        False,
        [OK, NO],
        id="terminating pods are not counted",
    ),
    pytest.param(
        pod(zone(), node_affinity_not_in=("node", ["node-b"])),
        FOUR_NODES,
        [
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-b2", "node-b", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        False,
        [OK, OK, NO, NO],
        id="pods on nodes the node affinity rejects are not counted",
    ),
    pytest.param(
        pod(by_node(2, FOO_SELECTOR, 4)),
        THREE_BARE_NODES,
        SPREAD_2_2_1,
        False,
        [NO, NO, OK],
        id="fewer domains than min domains make the global minimum zero",
    ),
    pytest.param(
        pod(by_node(2, FOO_SELECTOR, 2)),
        THREE_BARE_NODES,
        SPREAD_2_2_1,
        False,
        [OK, OK, OK],
        id="more domains than min domains keep the real minimum",
    ),
    pytest.param(
        pod(zone(2, FOO_SELECTOR, 3)),
        FOUR_NODES,
        ZONES_2_1,
        False,
        [NO, NO, OK, OK],
        id="two zones below three min domains",
    ),
    pytest.param(
        pod(zone(2, FOO_SELECTOR, 1)),
        FOUR_NODES,
        ZONES_2_1,
        False,
        [OK, OK, OK, OK],
        id="two zones above one min domain",
    ),
    pytest.param(
        pod(by_node(), node_selector=FOO),
        FOO_NODES_AND_BARE_Y,
        ZONES_2_1,
        True,
        [NO, NO, OK, OK],
        id="node affinity policy honor leaves out nodes the node selector rejects",
    ),
    pytest.param(
        pod(by_node(1, FOO_SELECTOR, None, IGNORE), node_selector=FOO),
        FOO_NODES_AND_BARE_Y,
        ZONES_2_1,
        True,
        [NO, NO, OK, NO],
        id="node affinity policy ignore counts nodes the node selector rejects",
    ),
    pytest.param(
        pod(by_node(), node_affinity_in=("foo", [""])),
        FOO_NODES_AND_BARE_Y,
        ZONES_2_1,
        True,
        [NO, NO, OK, OK],
        id="node affinity policy honor leaves out nodes the node affinity rejects",
    ),
    pytest.param(
        pod(by_node(1, FOO_SELECTOR, None, IGNORE), node_affinity_in=("foo", [""])),
        FOO_NODES_AND_BARE_Y,
        ZONES_2_1,
        True,
        [NO, NO, OK, NO],
        id="node affinity policy ignore counts nodes the node affinity rejects",
    ),
    pytest.param(
        pod(by_node(1, FOO_SELECTOR, None, None, HONOR)),
        FOO_NODES_AND_TAINTED_Y,
        ZONES_2_1,
        True,
        [NO, NO, OK, OK],
        id="node taints policy honor leaves out tainted nodes",
    ),
    pytest.param(
        pod(by_node()),
        FOO_NODES_AND_TAINTED_Y,
        ZONES_2_1,
        True,
        [NO, NO, OK, NO],
        id="node taints policy ignore counts tainted nodes",
    ),
]

MULTIPLE_CONSTRAINTS = [
    pytest.param(
        pod(zone(), by_node()),
        FOUR_NODES,
        SPREAD_2_1_0_3,
        False,
        [NO, NO, OK, NO],
        id="zone and node spreads of 3 3 and 2 1 0 3",
    ),
    pytest.param(
        pod(zone(), by_node()),
        FOUR_NODES,
        [*SPREAD_2_1_0_3, pod_on("p-y4", "node-y", FOO)],
        False,
        [NO, NO, NO, NO],
        id="zone and node spreads of 3 4 and 2 1 0 4",
    ),
    pytest.param(
        pod(zone(), by_node(1, BAR_SELECTOR), labels=FOO_BAR),
        FOUR_NODES,
        [pod_on("p-a1", "node-a", FOO), pod_on("p-y1", "node-y", BAR)],
        False,
        [NO, NO, OK, NO],
        id="different selectors with spreads of 1 0 and 1 0 0 1",
    ),
    pytest.param(
        pod(zone(), by_node(1, BAR_SELECTOR), labels=FOO_BAR),
        FOUR_NODES,
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-x1", "node-x", BAR),
            pod_on("p-y1", "node-y", BAR),
        ],
        False,
        [NO, NO, NO, NO],
        id="different selectors with spreads of 1 0 and 0 0 1 1",
    ),
    pytest.param(
        pod(zone(), by_node(1, BAR_SELECTOR), labels=FOO_BAR),
        FOUR_NODES,
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-a2", "node-a", FOO_BAR),
            pod_on("p-y1", "node-y", FOO),
            pod_on("p-y2", "node-y", FOO_BAR),
            pod_on("p-y3", "node-y", FOO),
        ],
        False,
        [NO, OK, NO, NO],
        id="different selectors with spreads of 2 3 and 1 0 0 1",
    ),
    pytest.param(
        pod(zone(), by_node(1, BAR_SELECTOR), labels=BAR),
        FOUR_NODES,
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-x1", "node-x", BAR),
            pod_on("p-y1", "node-y", BAR),
        ],
        False,
        [OK, OK, NO, NO],
        id="a pod not matching the zone selector only skews nodes",
    ),
    pytest.param(
        pod(zone(), by_node()),
        [
            zone_node("node-a", "zone1"),
            zone_node("node-b", "zone1"),
            node("node-x", {"zone": "zone2"}),
            zone_node("node-y", "zone2"),
        ],
        [pod_on("p-a1", "node-a", FOO), pod_on("p-y3", "node-y", FOO)],
        False,
        [NO, OK, NEVER, NO],
        id="a node without the node label is unresolvable",
    ),
    pytest.param(
        pod(zone(), by_node(1, FOO_SELECTOR, None, IGNORE), node_selector=FOO),
        [
            zone_node("node-a", "zone1", FOO),
            zone_node("node-b", "zone1", FOO),
            zone_node("node-x", "zone2", FOO),
            zone_node("node-y", "zone2"),
        ],
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        True,
        [NO, NO, OK, NO],
        id="zone honors the node selector while node ignores it",
    ),
    pytest.param(
        pod(zone(1, FOO_SELECTOR, None, None, HONOR), by_node()),
        [
            zone_node("node-a", "zone1", FOO),
            zone_node("node-b", "zone1", FOO),
            zone_node("node-x", "zone2", FOO),
            zone_node("node-y", "zone2", None, UNSCHEDULABLE_TAINTS),
        ],
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        True,
        [NO, NO, OK, NO],
        id="zone honors taints while node ignores them",
    ),
    pytest.param(
        pod(zone(), by_node(), node_selector=FOO),
        [
            zone_node("node-a", "zone1", FOO),
            zone_node("node-b", "zone1"),
            zone_node("node-x", "zone2", FOO),
            zone_node("node-y", "zone2", FOO, UNSCHEDULABLE_TAINTS),
        ],
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        True,
        [NO, OK, OK, NO],
        id="both honor the node selector and ignore taints",
    ),
    pytest.param(
        pod(
            zone(1, FOO_SELECTOR, None, None, HONOR),
            by_node(1, FOO_SELECTOR, None, IGNORE),
            node_selector=FOO,
        ),
        [
            zone_node("node-a", "zone1", FOO),
            zone_node("node-b", "zone1"),
            zone_node("node-x", "zone2", FOO),
            zone_node("node-y", "zone2", FOO, UNSCHEDULABLE_TAINTS),
        ],
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        True,
        [NO, NO, OK, NO],
        id="zone honors everything while node ignores everything",
    ),
    pytest.param(
        pod(zone(1, BAR_SELECTOR), zone(), labels=FOO_BAR),
        FOUR_NODES,
        [
            pod_on("p-a1", "node-a", FOO_BAR),
            pod_on("p-a2", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO_BAR),
            pod_on("p-y1", "node-y", FOO),
            pod_on("p-y2", "node-y", FOO_BAR),
            pod_on("p-y3", "node-y", FOO),
        ],
        False,
        [NO, NO, OK, OK],
        id="two zone constraints with spreads of 3 3 and 2 1",
    ),
    pytest.param(
        pod(zone(1, BAR_SELECTOR), zone(), labels=FOO_BAR),
        FOUR_NODES,
        [
            pod_on("p-a1", "node-a", FOO_BAR),
            pod_on("p-a2", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO_BAR),
            pod_on("p-y1", "node-y", FOO),
            pod_on("p-y2", "node-y", FOO_BAR),
            pod_on("p-y3", "node-y", FOO),
            pod_on("p-y4", "node-y", FOO),
        ],
        False,
        [NO, NO, NO, NO],
        id="two zone constraints with spreads of 3 4 and 2 1",
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "node_inclusion_policy", "want"),
    [*SINGLE_CONSTRAINT, *MULTIPLE_CONSTRAINTS],
)
def test_filter_rejects_nodes_that_would_exceed_max_skew(
    pod: Any, nodes: list[Any], existing: list[Any], node_inclusion_policy: bool, want: list[Code]
) -> None:
    plugin = new_plugin(
        existing, nodes, enable_node_inclusion_policy_in_pod_topology_spread=node_inclusion_policy
    )
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.list()) == (None, None)

    got = [plugin.filter(state, pod, snapshot.get(n.name)) for n in nodes]

    assert got == [None if code == OK else Status(code, REASONS[code]) for code in want]


def test_filter_without_pre_filter_state_is_an_error() -> None:
    plugin = new_plugin()
    node_info = new_plugin([], [node("n")]).handle.snapshot_shared_lister().get("n")

    status = plugin.filter(CycleState(), make_pod().name("p").obj(), node_info)

    assert status == Status.error('reading "PreFilterPodTopologySpread" from cycleState: not found')
