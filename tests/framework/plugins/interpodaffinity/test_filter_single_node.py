"""PreFilter and Filter of required (anti-)affinity against one node.

Ported from upstream's TestRequiredAffinitySingleNode (interpodaffinity/filtering_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from tests.framework.plugins.interpodaffinity.helpers import (
    expressions,
    new_plugin,
    node,
    pod_with_affinity_terms,
    term,
)
from tests.framework.plugins.wrappers import PodAffinityKind, make_pod

REQUIRED = PodAffinityKind.REQUIRED
SECURITYSCAN = {"service": "securityscan"}
S1 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})
EXISTING = make_pod().labels(SECURITYSCAN).node("node1").obj()
SKIP = Status(Code.SKIP)
AFFINITY_NOT_MATCH = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match pod affinity rules"
)
ANTI_AFFINITY_NOT_MATCH = Status(Code.UNSCHEDULABLE, "node(s) didn't match pod anti-affinity rules")
EXISTING_ANTI_AFFINITY_NOT_MATCH = Status(
    Code.UNSCHEDULABLE, "node(s) didn't satisfy existing pods anti-affinity rules"
)
BAD_VALUE = (
    "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "
    '"{{.bad-value.}}": a valid label must be an empty string or consist of alphanumeric '
    "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SECURITYSCAN_OR_VALUE2 = expressions(("service", "In", ["securityscan", "value2"]))
TEAM1_SELECTOR = expressions(("team", "In", ["team1"]))


def pod(labels: dict[str, str] = S1) -> Any:
    return make_pod().labels(labels)


def existing_in(namespace: str) -> Any:
    return make_pod().namespace(namespace).labels(SECURITYSCAN).node("node1").obj()


CASES = [
    pytest.param(
        make_pod().obj(),
        [],
        SKIP,
        None,
        id="a pod without required affinity on a node without pods is skipped",
    ),
    pytest.param(
        pod().pod_affinity_in("service", "region", ["securityscan", "value2"], REQUIRED).obj(),
        [EXISTING],
        None,
        None,
        id="affinity with In matches the existing pod",
    ),
    pytest.param(
        pod()
        .pod_affinity(
            "region", expressions(("service", "NotIn", ["securityscan3", "value3"])), REQUIRED
        )
        .obj(),
        [EXISTING],
        None,
        None,
        id="affinity with NotIn matches the existing pod",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "default", "", S1, [term(SECURITYSCAN_OR_VALUE2, namespaces=["DiffNameSpace"])], None
        ),
        [make_pod().namespace("ns").label("service", "securityscan").node("node1").obj()],
        None,
        AFFINITY_NOT_MATCH,
        id="affinity is not satisfied by a pod of another namespace",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_affinity_in("service", "", ["antivirusscan", "value2"], REQUIRED)
        .obj(),
        [EXISTING],
        None,
        AFFINITY_NOT_MATCH,
        id="affinity whose selector matches no pod fails",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "default",
            "",
            S1,
            [
                term(
                    expressions(("service", "Exists", None), ("wrongkey", "DoesNotExist", None)),
                    "region",
                ),
                term(
                    expressions(
                        ("service", "In", ["securityscan"]), ("service", "NotIn", ["WrongValue"])
                    ),
                    "region",
                ),
            ],
            None,
        ),
        [EXISTING],
        None,
        None,
        id="several terms with different operators all match",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "default",
            "",
            S1,
            [
                term(
                    expressions(("service", "Exists", None), ("wrongkey", "DoesNotExist", None)),
                    "region",
                ),
                term(
                    expressions(
                        ("service", "In", ["securityscan2"]), ("service", "NotIn", ["WrongValue"])
                    ),
                    "region",
                ),
            ],
            None,
        ),
        [EXISTING],
        None,
        AFFINITY_NOT_MATCH,
        id="requirements are ANDed so one unmatched expression fails",
    ),
    pytest.param(
        pod()
        .pod_affinity_in("service", "region", ["securityscan", "value2"], REQUIRED)
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"], REQUIRED)
        .obj(),
        [EXISTING],
        None,
        None,
        id="affinity and anti-affinity are both satisfied",
    ),
    pytest.param(
        pod()
        .pod_affinity_in("service", "region", ["securityscan", "value2"], REQUIRED)
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"], REQUIRED)
        .obj(),
        [
            make_pod()
            .node("node1")
            .labels(SECURITYSCAN)
            .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"], REQUIRED)
            .obj()
        ],
        None,
        None,
        id="affinity, anti-affinity and the existing pod's anti-affinity are satisfied",
    ),
    pytest.param(
        pod()
        .pod_affinity_in("service", "region", ["securityscan", "value2"], REQUIRED)
        .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"], REQUIRED)
        .obj(),
        [EXISTING],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="affinity is satisfied but anti-affinity is not",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_affinity_in("service", "region", ["securityscan", "value2"], REQUIRED)
        .pod_anti_affinity_in("service", "node", ["antivirusscan", "value2"], REQUIRED)
        .obj(),
        [
            make_pod()
            .labels(SECURITYSCAN)
            .node("node1")
            .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"], REQUIRED)
            .obj()
        ],
        None,
        EXISTING_ANTI_AFFINITY_NOT_MATCH,
        id="the existing pod's anti-affinity rejects the pod",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_affinity(
            "region", expressions(("service", "NotIn", ["securityscan", "value2"])), REQUIRED
        )
        .obj(),
        [make_pod().label("service", "securityscan").node("node2").obj()],
        None,
        AFFINITY_NOT_MATCH,
        id="a pod matching its own term still needs the node to match",
    ),
    pytest.param(
        pod(SECURITYSCAN).obj(),
        [
            make_pod()
            .node("node1")
            .labels(SECURITYSCAN)
            .pod_anti_affinity_in("service", "zone", ["securityscan", "value2"], REQUIRED)
            .obj()
        ],
        None,
        EXISTING_ANTI_AFFINITY_NOT_MATCH,
        id="existing anti-affinity applies to a pod without affinity",
    ),
    pytest.param(
        pod(SECURITYSCAN).obj(),
        [
            make_pod()
            .node("node1")
            .labels(SECURITYSCAN)
            .pod_anti_affinity(
                "zone", expressions(("service", "NotIn", ["securityscan", "value2"])), REQUIRED
            )
            .obj()
        ],
        SKIP,
        None,
        id="existing anti-affinity that does not match the pod leaves nothing to filter",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_anti_affinity_exists("service", "region", REQUIRED)
        .pod_anti_affinity_exists("security", "region", REQUIRED)
        .obj(),
        [
            make_pod()
            .node("node1")
            .labels(S1)
            .pod_anti_affinity_exists("security", "zone", REQUIRED)
            .obj()
        ],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="the pod's anti-affinity rejects the node before the existing pod's is checked",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_anti_affinity_exists("service", "zone", REQUIRED)
        .pod_anti_affinity_exists("security", "zone", REQUIRED)
        .obj(),
        [
            make_pod()
            .node("node1")
            .labels(S1)
            .pod_anti_affinity_exists("security", "zone", REQUIRED)
            .obj()
        ],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="symmetry a1: the pods partially match each other",
    ),
    pytest.param(
        pod(S1).pod_anti_affinity_exists("security", "zone", REQUIRED).obj(),
        [
            make_pod()
            .node("node1")
            .labels(SECURITYSCAN)
            .pod_anti_affinity_exists("service", "zone", REQUIRED)
            .pod_anti_affinity_exists("security", "zone", REQUIRED)
            .obj()
        ],
        None,
        EXISTING_ANTI_AFFINITY_NOT_MATCH,
        id="symmetry a2: the pods partially match each other",
    ),
    pytest.param(
        pod({"abc": "", "xyz": ""})
        .pod_anti_affinity_exists("abc", "zone", REQUIRED)
        .pod_anti_affinity_exists("def", "zone", REQUIRED)
        .obj(),
        [
            make_pod()
            .node("node1")
            .labels({"def": "", "xyz": ""})
            .pod_anti_affinity_exists("abc", "zone", REQUIRED)
            .pod_anti_affinity_exists("def", "zone", REQUIRED)
            .obj()
        ],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="symmetry b1: the pods partially match each other",
    ),
    pytest.param(
        pod({"def": "", "xyz": ""})
        .pod_anti_affinity_exists("abc", "zone", REQUIRED)
        .pod_anti_affinity_exists("def", "zone", REQUIRED)
        .obj(),
        [
            make_pod()
            .node("node1")
            .labels({"abc": "", "xyz": ""})
            .pod_anti_affinity_exists("abc", "zone", REQUIRED)
            .pod_anti_affinity_exists("def", "zone", REQUIRED)
            .obj()
        ],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="symmetry b2: the pods partially match each other",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_affinity_in("service", "region", ["{{.bad-value.}}"], REQUIRED)
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], REQUIRED)
        .obj(),
        [],
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, BAD_VALUE),
        None,
        id="an invalid label value in the first term fails PreFilter",
    ),
    pytest.param(
        pod(SECURITYSCAN)
        .pod_affinity_in("service", "region", ["foo"], REQUIRED)
        .pod_affinity_in("service", "node", ["{{.bad-value.}}"], REQUIRED)
        .obj(),
        [],
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, BAD_VALUE),
        None,
        id="an invalid label value in the second term fails PreFilter",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "default",
            "",
            S1,
            [term(SECURITYSCAN_OR_VALUE2, "region", namespace_selector=TEAM1_SELECTOR)],
            None,
        ),
        [existing_in("subteam1.team1")],
        None,
        None,
        id="affinity reaches a namespace its namespace selector selects",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "default",
            "",
            S1,
            [term(SECURITYSCAN_OR_VALUE2, "region", namespace_selector=TEAM1_SELECTOR)],
            None,
        ),
        [existing_in("subteam1.team2")],
        None,
        AFFINITY_NOT_MATCH,
        id="affinity does not reach a namespace its selector does not select",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "subteam1.team1",
            "",
            S1,
            None,
            [term(SECURITYSCAN_OR_VALUE2, "zone", namespace_selector=TEAM1_SELECTOR)],
        ),
        [existing_in("subteam2.team1")],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="anti-affinity reaches a namespace its namespace selector selects",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "subteam1.team1",
            "",
            S1,
            None,
            [term(SECURITYSCAN_OR_VALUE2, "zone", namespace_selector={})],
        ),
        [existing_in("subteam2.team1")],
        None,
        ANTI_AFFINITY_NOT_MATCH,
        id="an empty namespace selector reaches every namespace",
    ),
    pytest.param(
        pod_with_affinity_terms(
            "subteam1.team1",
            "",
            S1,
            None,
            [term(SECURITYSCAN_OR_VALUE2, "zone", namespace_selector=TEAM1_SELECTOR)],
        ),
        [existing_in("subteam1.team2")],
        None,
        None,
        id="anti-affinity does not reach a namespace its selector does not select",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want_pre_filter", "want_filter"), CASES)
def test_required_affinity_on_a_single_node(
    pod: Any, existing: list[Any], want_pre_filter: Status | None, want_filter: Status | None
) -> None:
    plugin = new_plugin(existing, [NODE1])
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()

    result, pre_filter_status = plugin.pre_filter(state, pod, snapshot.list())

    assert result is None
    assert pre_filter_status == want_pre_filter
    if pre_filter_status is not None:
        return
    assert plugin.filter(state, pod, snapshot.get("node1")) == want_filter
