"""PreFilter's state: parsed constraints, matching pods per domain and critical paths.

Ported from upstream's TestPreFilterState (podtopologyspread/filtering_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.core import Service
from framework.api.meta import ObjectMeta
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.plugins.podtopologyspread.filtering import get_pre_filter_state
from tests.framework.plugins.podtopologyspread.helpers import (
    BAR_SELECTOR,
    DO_NOT_SCHEDULE,
    FOO_SELECTOR,
    HONOR,
    IGNORE,
    SCHEDULE_ANYWAY,
    UNSCHEDULABLE_TAINTS,
    constraint,
    default_constraint,
    max_int32_paths,
    new_plugin,
    node,
    paths_view,
    pod_on,
    zone_node,
)
from tests.framework.plugins.wrappers import make_label_selector, make_pod

FOUR_NODES = [
    zone_node("node-a", "zone1"),
    zone_node("node-b", "zone1"),
    zone_node("node-x", "zone2"),
    zone_node("node-y", "zone2"),
]
FOO = {"foo": ""}
BAR = {"bar": ""}
FOO_BAR = {"foo": "", "bar": ""}
FOO_A = {"foo": "a"}


def pods(*entries: tuple[str, str, dict[str, str]]) -> list[Any]:
    return [pod_on(name, node_name, labels) for name, node_name, labels in entries]


def service(selector: dict[str, str]) -> Service:
    return Service(ObjectMeta(name="svc"), selector)


def spread(*constraints: tuple[Any, ...], labels: dict[str, str] | None = None, **kw: Any) -> Any:
    wrapper = make_pod().name("p").labels(labels if labels is not None else FOO)
    if "node_selector" in kw:
        wrapper.node_selector(kw["node_selector"])
    if "node_affinity_in" in kw:
        wrapper.node_affinity_in(*kw["node_affinity_in"])
    if "node_affinity_not_in" in kw:
        wrapper.node_affinity_not_in(*kw["node_affinity_not_in"])
    for key in kw.get("tolerations", ()):
        wrapper.toleration(key)
    for args in constraints:
        wrapper.spread_constraint(*args)
    return wrapper.obj()


FIVE_FOO_PODS = pods(
    ("p-a1", "node-a", FOO),
    ("p-a2", "node-a", FOO),
    ("p-b1", "node-b", FOO),
    ("p-y1", "node-y", FOO),
    ("p-y2", "node-y", FOO),
)
SEVEN_FOO_PODS = [
    *FIVE_FOO_PODS,
    *pods(("p-y3", "node-y", FOO), ("p-y4", "node-y", FOO)),
]
FIVE_FOO_A_PODS = pods(
    ("p-a1", "node-a", FOO_A),
    ("p-a2", "node-a", FOO_A),
    ("p-b1", "node-b", FOO_A),
    ("p-y1", "node-y", FOO_A),
    ("p-y2", "node-y", FOO_A),
)
POLICY_NODES = [
    node("node-a", {"node": "node-a", "foo": ""}),
    node("node-b", {"node": "node-b", "foo": ""}),
    node("node-c", {"node": "node-c", "bar": ""}),
]
POLICY_PODS = pods(
    ("p-a", "node-a", BAR), ("p-b", "node-b", BAR), ("p-c", "node-b", BAR), ("p-d", "node-c", {})
)
TAINT_NODES = [
    node("node-a", {"node": "node-a"}),
    node("node-b", {"node": "node-b"}),
    node("node-c", {"node": "node-c", "bar": ""}, UNSCHEDULABLE_TAINTS),
]

CASES = [
    pytest.param(
        dict(
            pod=spread(
                (5, "zone", DO_NOT_SCHEDULE, make_label_selector().label("foo", "bar").obj())
            ),
            nodes=FOUR_NODES,
            want_constraints=[constraint(5, "zone", {"matchLabels": {"foo": "bar"}})],
            want_paths=[(("zone1", 0), ("zone2", 0))],
            want_counts=[{"zone1": 0, "zone2": 0}],
        ),
        id="a clean cluster with one constraint has empty domains",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR)),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_PODS,
            want_constraints=[constraint(1, "zone", FOO_SELECTOR)],
            want_paths=[(("zone2", 2), ("zone1", 3))],
            want_counts=[{"zone1": 3, "zone2": 2}],
        ),
        id="matching pods are counted per zone",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, None)),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_PODS,
            want_constraints=[constraint(1, "zone", None)],
            want_paths=[(("zone1", 0), ("zone2", 0))],
            want_counts=[{"zone1": 0, "zone2": 0}],
        ),
        id="a null label selector matches no pod",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR)),
            nodes=[*FOUR_NODES, zone_node("node-o", "zone3"), zone_node("node-p", "zone3")],
            existing=FIVE_FOO_PODS,
            want_constraints=[constraint(1, "zone", FOO_SELECTOR)],
            want_paths=[(("zone3", 0), ("zone2", 2))],
            want_counts=[{"zone1": 3, "zone2": 2, "zone3": 0}],
        ),
        id="an empty third zone becomes the critical path",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR)),
            nodes=FOUR_NODES,
            existing=[
                pod_on("p-a1", "node-a", FOO),
                pod_on("p-a2", "node-a", FOO, namespace="ns1"),
                pod_on("p-b1", "node-b", FOO),
                pod_on("p-y1", "node-y", FOO, namespace="ns2"),
                pod_on("p-y2", "node-y", FOO),
            ],
            want_constraints=[constraint(1, "zone", FOO_SELECTOR)],
            want_paths=[(("zone2", 1), ("zone1", 2))],
            want_counts=[{"zone1": 2, "zone2": 1}],
        ),
        id="pods of other namespaces do not count",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR),
            ),
            nodes=FOUR_NODES,
            existing=SEVEN_FOO_PODS,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", FOO_SELECTOR),
            ],
            want_paths=[(("zone1", 3), ("zone2", 4)), (("node-x", 0), ("node-b", 1))],
            want_counts=[
                {"zone1": 3, "zone2": 4},
                {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4},
            ],
        ),
        id="two constraints are counted independently",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", SCHEDULE_ANYWAY, FOO_SELECTOR),
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", SCHEDULE_ANYWAY, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR),
            ),
            nodes=[
                zone_node("node-a", "zone1"),
                zone_node("node-b", "zone1"),
                zone_node("node-y", "zone2"),
            ],
            existing=SEVEN_FOO_PODS,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", FOO_SELECTOR),
            ],
            want_paths=[(("zone1", 3), ("zone2", 4)), (("node-b", 1), ("node-a", 2))],
            want_counts=[{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
        ),
        id="soft constraints are left to scoring",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR),
                labels=FOO_BAR,
            ),
            nodes=[
                zone_node("node-a", "zone1"),
                zone_node("node-b", "zone1"),
                zone_node("node-y", "zone2"),
            ],
            existing=pods(("p-a", "node-a", FOO), ("p-b", "node-b", BAR)),
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", BAR_SELECTOR),
            ],
            want_paths=[(("zone2", 0), ("zone1", 1)), (("node-a", 0), ("node-y", 0))],
            want_counts=[{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}],
        ),
        id="each constraint counts with its own selector",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR),
                labels=FOO_BAR,
            ),
            nodes=[
                zone_node("node-a", "zone1"),
                zone_node("node-b", "zone1"),
                zone_node("node-y", "zone2"),
            ],
            existing=pods(
                ("p-a1", "node-a", FOO),
                ("p-a2", "node-a", FOO_BAR),
                ("p-b1", "node-b", FOO),
                ("p-y1", "node-y", FOO),
                ("p-y2", "node-y", FOO_BAR),
                ("p-y3", "node-y", FOO),
                ("p-y4", "node-y", FOO_BAR),
            ),
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", BAR_SELECTOR),
            ],
            want_paths=[(("zone1", 3), ("zone2", 4)), (("node-b", 0), ("node-a", 1))],
            want_counts=[{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}],
        ),
        id="pods with several labels count for each selector they match",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR),
                node_affinity_not_in=("node", ["node-x"]),
            ),
            nodes=FOUR_NODES,
            existing=SEVEN_FOO_PODS,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", FOO_SELECTOR),
            ],
            want_paths=[(("zone1", 3), ("zone2", 4)), (("node-b", 1), ("node-a", 2))],
            want_counts=[{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
        ),
        id="nodes the pod's node affinity excludes are not domains",
    ),
    pytest.param(
        dict(
            pod=make_pod().name("p").labels({"foo": "bar", "baz": "kar"}).obj(),
            defaults=[
                default_constraint(3, "node", DO_NOT_SCHEDULE),
                default_constraint(2, "node", SCHEDULE_ANYWAY),
                default_constraint(5, "rack", DO_NOT_SCHEDULE),
            ],
            objects=[service({"foo": "bar"})],
            want_constraints=[
                constraint(3, "node", {"matchLabels": {"foo": "bar"}}),
                constraint(5, "rack", {"matchLabels": {"foo": "bar"}}),
            ],
            want_paths=[max_int32_paths(), max_int32_paths()],
            want_counts=[{}, {}],
        ),
        id="default constraints select what the pod's service selects",
    ),
    pytest.param(
        dict(
            pod=make_pod().name("p").label("foo", "bar").obj(),
            defaults=[default_constraint(3, "node", DO_NOT_SCHEDULE)],
            objects=[service({"baz": "kep"})],
            want_status=Status(Code.SKIP),
        ),
        id="default constraints are skipped when no service selects the pod",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, make_label_selector().label("baz", "tar").obj()),
                (2, "planet", SCHEDULE_ANYWAY, make_label_selector().label("fot", "rok").obj()),
                labels={"foo": "bar", "baz": "tar"},
            ),
            defaults=[default_constraint(2, "node", DO_NOT_SCHEDULE)],
            objects=[service({"foo": "bar"})],
            want_constraints=[constraint(1, "zone", {"matchLabels": {"baz": "tar"}})],
            want_paths=[max_int32_paths()],
            want_counts=[{}],
        ),
        id="a pod's own constraints replace the default ones",
    ),
    pytest.param(
        dict(
            pod=make_pod().name("p").label("foo", "bar").obj(),
            defaults=[default_constraint(2, "node", SCHEDULE_ANYWAY)],
            objects=[service({"foo": "bar"})],
            want_status=Status(Code.SKIP),
        ),
        id="soft default constraints leave nothing to filter",
    ),
    pytest.param(
        dict(
            pod=spread((1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR), node_selector={"foo": ""}),
            nodes=POLICY_NODES,
            existing=POLICY_PODS,
            want_constraints=[constraint(1, "node", BAR_SELECTOR)],
            want_paths=[(("node-a", 1), ("node-b", 2))],
            want_counts=[{"node-a": 1, "node-b": 2}],
        ),
        id="without inclusion policies the node selector limits the domains",
    ),
    pytest.param(
        dict(
            pod=spread((1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR), node_selector={"foo": ""}),
            nodes=POLICY_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR)],
            want_paths=[(("node-a", 1), ("node-b", 2))],
            want_counts=[{"node-a": 1, "node-b": 2}],
        ),
        id="node affinity policy honor applies the node selector",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR, None, IGNORE),
                node_selector={"foo": ""},
            ),
            nodes=POLICY_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR, affinity_policy=IGNORE)],
            want_paths=[(("node-c", 0), ("node-a", 1))],
            want_counts=[{"node-a": 1, "node-b": 2, "node-c": 0}],
        ),
        id="node affinity policy ignore counts nodes the node selector rejects",
    ),
    pytest.param(
        dict(
            pod=spread((1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR), node_affinity_in=("foo", [""])),
            nodes=POLICY_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR)],
            want_paths=[(("node-a", 1), ("node-b", 2))],
            want_counts=[{"node-a": 1, "node-b": 2}],
        ),
        id="node affinity policy honor applies required node affinity",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR, None, IGNORE),
                node_affinity_in=("foo", [""]),
            ),
            nodes=POLICY_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR, affinity_policy=IGNORE)],
            want_paths=[(("node-c", 0), ("node-a", 1))],
            want_counts=[{"node-a": 1, "node-b": 2, "node-c": 0}],
        ),
        id="node affinity policy ignore counts nodes the node affinity rejects",
    ),
    pytest.param(
        dict(
            pod=spread((1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR)),
            nodes=TAINT_NODES,
            existing=POLICY_PODS,
            want_constraints=[constraint(1, "node", BAR_SELECTOR)],
            want_paths=[(("node-c", 0), ("node-a", 1))],
            want_counts=[{"node-a": 1, "node-b": 2, "node-c": 0}],
        ),
        id="without inclusion policies tainted nodes are domains",
    ),
    pytest.param(
        dict(
            pod=spread((1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR)),
            nodes=TAINT_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR)],
            want_paths=[(("node-c", 0), ("node-a", 1))],
            want_counts=[{"node-a": 1, "node-b": 2, "node-c": 0}],
        ),
        id="node taints policy ignore by default keeps tainted nodes",
    ),
    pytest.param(
        dict(
            pod=spread((1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR, None, None, HONOR)),
            nodes=TAINT_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR, taints_policy=HONOR)],
            want_paths=[(("node-a", 1), ("node-b", 2))],
            want_counts=[{"node-a": 1, "node-b": 2}],
        ),
        id="node taints policy honor drops nodes with untolerated taints",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR, None, None, HONOR),
                tolerations=["node.kubernetes.io/unschedulable"],
            ),
            nodes=TAINT_NODES,
            existing=POLICY_PODS,
            node_inclusion_policy=True,
            want_constraints=[constraint(1, "node", BAR_SELECTOR, taints_policy=HONOR)],
            want_paths=[(("node-c", 0), ("node-a", 1))],
            want_counts=[{"node-a": 1, "node-b": 2, "node-c": 0}],
        ),
        id="node taints policy honor keeps nodes whose taints are tolerated",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR, None, IGNORE),
                node_selector={"foo": ""},
            ),
            nodes=[
                zone_node("node-a", "zone1", FOO),
                zone_node("node-b", "zone1"),
                zone_node("node-x", "zone2", FOO),
            ],
            existing=pods(
                ("p-b1", "node-b", FOO), ("p-b2", "node-b", FOO), ("p-x1", "node-x", FOO)
            ),
            node_inclusion_policy=True,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", FOO_SELECTOR, affinity_policy=IGNORE),
            ],
            want_paths=[(("zone1", 0), ("zone2", 1)), (("node-a", 0), ("node-x", 1))],
            want_counts=[{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
        ),
        id="zone honors node affinity while node ignores it",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR, None, None, HONOR),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR),
            ),
            nodes=[
                zone_node("node-a", "zone1", FOO),
                zone_node("node-b", "zone1", None, UNSCHEDULABLE_TAINTS),
                zone_node("node-x", "zone2", FOO),
            ],
            existing=pods(
                ("p-b1", "node-b", FOO), ("p-b2", "node-b", FOO), ("p-x1", "node-x", FOO)
            ),
            node_inclusion_policy=True,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR, taints_policy=HONOR),
                constraint(1, "node", FOO_SELECTOR),
            ],
            want_paths=[(("zone1", 0), ("zone2", 1)), (("node-a", 0), ("node-x", 1))],
            want_counts=[{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
        ),
        id="zone honors taints while node ignores them",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR),
                node_selector={"foo": ""},
            ),
            nodes=[
                zone_node("node-a", "zone1"),
                zone_node("node-b", "zone1", FOO, UNSCHEDULABLE_TAINTS),
                zone_node("node-x", "zone2", FOO),
                zone_node("node-y", "zone2"),
            ],
            existing=pods(
                ("p-a1", "node-a", FOO),
                ("p-a2", "node-a", FOO),
                ("p-x1", "node-x", FOO),
                ("p-y1", "node-y", FOO),
            ),
            node_inclusion_policy=True,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "node", FOO_SELECTOR),
            ],
            want_paths=[(("zone1", 0), ("zone2", 1)), (("node-b", 0), ("node-x", 1))],
            want_counts=[{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
        ),
        id="both constraints honor node affinity and ignore taints",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR, None, IGNORE),
                (1, "node", DO_NOT_SCHEDULE, FOO_SELECTOR, None, None, HONOR),
                node_selector={"foo": ""},
            ),
            nodes=[
                zone_node("node-a", "zone1"),
                zone_node("node-b", "zone1", FOO, UNSCHEDULABLE_TAINTS),
                zone_node("node-x", "zone2", FOO),
                zone_node("node-y", "zone2", FOO),
            ],
            existing=pods(
                ("p-a1", "node-a", FOO),
                ("p-a2", "node-a", FOO),
                ("p-x1", "node-x", FOO),
                ("p-x2", "node-x", FOO),
                ("p-y1", "node-y", FOO),
            ),
            node_inclusion_policy=True,
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR, affinity_policy=IGNORE),
                constraint(1, "node", FOO_SELECTOR, taints_policy=HONOR),
            ],
            want_paths=[(("zone1", 2), ("zone2", 3)), (("node-y", 1), ("node-x", 2))],
            want_counts=[{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
        ),
        id="zone ignores node affinity while node honors affinity and taints",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR, None, None, None, ["bar"]),
                labels=FOO_BAR,
            ),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_PODS,
            want_constraints=[constraint(1, "zone", FOO_SELECTOR)],
            want_paths=[(("zone2", 2), ("zone1", 3))],
            want_counts=[{"zone1": 3, "zone2": 2}],
        ),
        id="match label keys are ignored when the feature is off",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR, None, None, None, ["bar"]),
                labels={"foo": "", "bar": "a"},
            ),
            nodes=FOUR_NODES,
            existing=pods(
                ("p-a1", "node-a", FOO),
                ("p-a2", "node-a", {"foo": "", "bar": "a"}),
                ("p-b1", "node-b", FOO),
                ("p-y1", "node-y", {"foo": "", "bar": "a"}),
                ("p-y2", "node-y", BAR),
            ),
            match_label_keys=True,
            want_constraints=[
                constraint(1, "zone", make_label_selector().exists("foo").label("bar", "a").obj())
            ],
            want_paths=[(("zone1", 1), ("zone2", 1))],
            want_counts=[{"zone1": 1, "zone2": 1}],
        ),
        id="match label keys are ANDed with a label selector",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, {}, None, None, None, ["foo"]), labels=FOO_A),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_A_PODS,
            match_label_keys=True,
            want_constraints=[constraint(1, "zone", {"matchLabels": {"foo": "a"}})],
            want_paths=[(("zone2", 2), ("zone1", 3))],
            want_counts=[{"zone1": 3, "zone2": 2}],
        ),
        id="match label keys are ANDed with an empty label selector",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, None, None, None, None, ["bar"])),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_A_PODS,
            match_label_keys=True,
            want_constraints=[constraint(1, "zone", None)],
            want_paths=[(("zone1", 0), ("zone2", 0))],
            want_counts=[{"zone1": 0, "zone2": 0}],
        ),
        id="match label keys cannot widen a null label selector",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, None, None, None, None, ["bar"])),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_A_PODS,
            want_constraints=[constraint(1, "zone", None)],
            want_paths=[(("zone1", 0), ("zone2", 0))],
            want_counts=[{"zone1": 0, "zone2": 0}],
        ),
        id="a null label selector matches nothing with the feature off",
    ),
    pytest.param(
        dict(
            pod=spread((1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR, None, None, None, ["bar"])),
            nodes=FOUR_NODES,
            existing=FIVE_FOO_A_PODS,
            match_label_keys=True,
            want_constraints=[constraint(1, "zone", FOO_SELECTOR)],
            want_paths=[(("zone2", 2), ("zone1", 3))],
            want_counts=[{"zone1": 3, "zone2": 2}],
        ),
        id="match label keys the pod lacks are ignored",
    ),
    pytest.param(
        dict(
            pod=spread(
                (1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR),
                (1, "zone", DO_NOT_SCHEDULE, BAR_SELECTOR),
                labels=FOO_BAR,
            ),
            nodes=FOUR_NODES,
            existing=pods(
                ("p-a1", "node-a", FOO_BAR),
                ("p-b1", "node-b", FOO),
                ("p-x1", "node-x", BAR),
                ("p-y1", "node-y", FOO_BAR),
                ("p-y2", "node-y", BAR),
            ),
            want_constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, "zone", BAR_SELECTOR),
            ],
            want_paths=[(("zone2", 1), ("zone1", 2)), (("zone1", 1), ("zone2", 3))],
            want_counts=[{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}],
        ),
        id="two constraints may share a topology key",
    ),
]
CASES.append(
    pytest.param(
        dict(
            pod=make_pod().name("p").label("foo", "").obj(),
            nodes=[zone_node("node-a", "zone1")],
            want_status=Status(Code.SKIP),
        ),
        id="a pod without constraints and no defaults is skipped",
    )
)


@pytest.mark.parametrize("case", CASES)
def test_pre_filter_builds_the_state_upstream_builds(case: dict[str, Any]) -> None:
    plugin = new_plugin(
        case.get("existing", ()),
        case.get("nodes", ()),
        case.get("objects", ()),
        default_constraints=case.get("defaults", ()),
        enable_node_inclusion_policy_in_pod_topology_spread=case.get(
            "node_inclusion_policy", False
        ),
        enable_match_label_keys_in_pod_topology_spread=case.get("match_label_keys", False),
    )
    state = CycleState()
    node_infos = plugin.handle.snapshot_shared_lister().node_infos().list()

    result, status = plugin.pre_filter(state, case["pod"], node_infos)

    assert result is None
    assert status == case.get("want_status")
    if status is not None:
        return
    got = get_pre_filter_state(state)
    assert got.constraints == case["want_constraints"]
    assert paths_view(got) == case["want_paths"]
    assert got.tp_value_to_match_num == case["want_counts"]
