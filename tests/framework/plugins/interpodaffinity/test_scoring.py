"""PreScore, Score and NormalizeScore of preferred (anti-)affinity, in both directions.

Ported from upstream's TestPreferredAffinity and
TestPreferredAffinityWithHardPodAffinitySymmetricWeight (interpodaffinity/scoring_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.interface.types import NodeScore
from tests.framework.plugins.interpodaffinity.helpers import (
    expressions,
    new_plugin,
    node,
    term,
    weighted,
)
from tests.framework.plugins.wrappers import make_pod

CHINA = {"region": "China"}
INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}
TEAM1_SELECTOR = expressions(("team", "In", ["team1"]))


def preferred(section: str, *terms: dict[str, Any]) -> dict[str, Any]:
    return {section: {"preferredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def security_in(value: str, topology_key: str, **kw: Any) -> dict[str, Any]:
    return term(expressions(("security", "In", [value])), topology_key, **kw)


STAY_WITH_S1_IN_REGION = preferred("podAffinity", weighted(5, security_in("S1", "region")))
STAY_WITH_S2_IN_REGION = preferred("podAffinity", weighted(6, security_in("S2", "region")))
AFFINITY3 = preferred(
    "podAffinity",
    weighted(
        8,
        term(expressions(("security", "NotIn", ["S1"]), ("security", "In", ["S2"])), "region"),
    ),
    weighted(
        2,
        term(
            expressions(("security", "Exists", None), ("wrongkey", "DoesNotExist", None)),
            "region",
        ),
    ),
)
HARD_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            term(expressions(("security", "In", ["S1", "value2"])), "region"),
            term(
                expressions(("security", "Exists", None), ("wrongkey", "DoesNotExist", None)),
                "region",
            ),
        ]
    }
}
AWAY_FROM_S1_IN_AZ = preferred("podAntiAffinity", weighted(5, security_in("S1", "az")))
AWAY_FROM_S2_IN_AZ = preferred("podAntiAffinity", weighted(5, security_in("S2", "az")))
STAY_WITH_S1_AWAY_FROM_S2 = {
    **preferred("podAffinity", weighted(8, security_in("S1", "region"))),
    **preferred("podAntiAffinity", weighted(5, security_in("S2", "az"))),
}
NAMESPACE_SELECTED = security_in(
    "S1", "region", namespaces=["subteam2.team2"], namespace_selector=TEAM1_SELECTOR
)
AFFINITY_NAMESPACE_SELECTOR = preferred("podAffinity", weighted(5, NAMESPACE_SELECTED))
ANTI_AFFINITY_NAMESPACE_SELECTOR = preferred("podAntiAffinity", weighted(5, NAMESPACE_SELECTED))
INVALID_AFFINITY = preferred("podAffinity", weighted(8, security_in("{{.bad-value.}}", "region")))
INVALID_ANTI_AFFINITY = preferred(
    "podAntiAffinity", weighted(5, security_in("{{.bad-value.}}", "az"))
)


def pod(
    labels: dict[str, str] | None = None,
    affinity: dict[str, Any] | None = None,
    node_name: str = "",
    ns: str | None = None,
) -> Any:
    wrapper = make_pod().labels(labels or {})
    if affinity is not None:
        wrapper.affinity(affinity)
    if node_name:
        wrapper.node(node_name)
    if ns is not None:
        wrapper.namespace(ns)
    return wrapper.obj()


def nodes_of(*labels: dict[str, str]) -> list[Any]:
    return [node(f"node{i}", node_labels) for i, node_labels in enumerate(labels, start=1)]


def bare_node_infos(nodes: list[Any]) -> list[NodeInfo]:
    """Upstream scores NodeInfos built from the nodes alone."""
    result = []
    for n in nodes:
        node_info = NodeInfo()
        node_info.set_node(n)
        result.append(node_info)
    return result


SKIP = Status(Code.SKIP)
M = 100

PREFERRED_AFFINITY = [
    pytest.param(
        pod(S1),
        [],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        SKIP,
        None,
        id="nothing to score without any affinity",
    ),
    pytest.param(
        pod(S1, STAY_WITH_S1_IN_REGION),
        [pod(S1, node_name="node1"), pod(S2, node_name="node2"), pod(S1, node_name="node3")],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        None,
        [M, 0, 0],
        id="affinity favours the region holding a matching pod",
    ),
    pytest.param(
        pod(affinity=STAY_WITH_S1_IN_REGION),
        [pod(S1, node_name="node1")],
        nodes_of(CHINA, CHINA_AZ1, INDIA),
        False,
        None,
        [M, M, 0],
        id="every node of the favoured region scores the same",
    ),
    pytest.param(
        pod(S1, STAY_WITH_S2_IN_REGION),
        [pod(S2, node_name=n) for n in ("node1", "node1", "node2", "node3", "node4", "node5")],
        nodes_of(CHINA, INDIA, CHINA, CHINA, INDIA),
        False,
        None,
        [M, 0, M, M, 0],
        id="the region with more matching pods scores higher",
    ),
    pytest.param(
        pod(S1, AFFINITY3),
        [pod(S1, node_name="node1"), pod(S2, node_name="node2"), pod(S1, node_name="node3")],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        None,
        [20, M, 0],
        id="different operators and weights with some terms not matching",
    ),
    pytest.param(
        pod(S2),
        [
            pod(S1, STAY_WITH_S1_IN_REGION, "node1"),
            pod(S2, STAY_WITH_S2_IN_REGION, "node2"),
        ],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        None,
        [0, M, 0],
        id="symmetry: existing pods' preferred affinity favours the pod",
    ),
    pytest.param(
        pod(S1, ns="subteam1.team1"),
        [
            pod(S1, AFFINITY_NAMESPACE_SELECTOR, "node1"),
            pod(S2, STAY_WITH_S2_IN_REGION, "node2"),
        ],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        None,
        [M, 0, 0],
        id="symmetry: an existing pod's namespace selector selects the pod's namespace",
    ),
    pytest.param(
        pod(S1, ns="subteam1.team1"),
        [
            pod(S1, ANTI_AFFINITY_NAMESPACE_SELECTOR, "node1"),
            pod(S2, STAY_WITH_S2_IN_REGION, "node2"),
        ],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        None,
        [0, M, M],
        id="symmetry: an existing pod's anti-affinity namespace selector selects the pod",
    ),
    pytest.param(
        pod(S1),
        [pod(S1, HARD_AFFINITY, "node1"), pod(S2, HARD_AFFINITY, "node2")],
        nodes_of(CHINA, INDIA, AZ1),
        False,
        None,
        [M, M, 0],
        id="symmetry: existing pods' required affinity counts with the hard weight",
    ),
    pytest.param(
        pod(S1, AWAY_FROM_S1_IN_AZ),
        [pod(S1, node_name="node1"), pod(S2, node_name="node2")],
        nodes_of(AZ1, CHINA),
        False,
        None,
        [0, M],
        id="anti-affinity disfavours the zone holding a matching pod",
    ),
    pytest.param(
        pod(S1, AWAY_FROM_S1_IN_AZ),
        [pod(S1, node_name="node1"), pod(S1, node_name="node2")],
        nodes_of(AZ1, CHINA),
        False,
        None,
        [0, M],
        id="anti-affinity ignores nodes without the topology key",
    ),
    pytest.param(
        pod(S1, AWAY_FROM_S1_IN_AZ),
        [pod(S1, node_name="node1"), pod(S1, node_name="node1"), pod(S2, node_name="node2")],
        nodes_of(AZ1, INDIA),
        False,
        None,
        [0, M],
        id="anti-affinity disfavours the node with more matching pods",
    ),
    pytest.param(
        pod(S2),
        [pod(S1, AWAY_FROM_S2_IN_AZ, "node1"), pod(S2, AWAY_FROM_S1_IN_AZ, "node2")],
        nodes_of(AZ1, AZ2),
        False,
        None,
        [0, M],
        id="symmetry: existing pods' preferred anti-affinity disfavours the pod",
    ),
    pytest.param(
        pod(S1, STAY_WITH_S1_AWAY_FROM_S2),
        [pod(S1, node_name="node1"), pod(S1, node_name="node2")],
        nodes_of(CHINA, AZ1),
        False,
        None,
        [M, 0],
        id="affinity and anti-affinity together",
    ),
    pytest.param(
        pod(S1, STAY_WITH_S1_AWAY_FROM_S2),
        [
            pod(S1, node_name=n)
            for n in ("node1", "node1", "node2", "node3", "node3", "node4", "node5")
        ],
        nodes_of(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA),
        False,
        None,
        [M, 0, M, M, 0],
        id="pods of one service gather in a region but keep apart in zones",
    ),
    pytest.param(
        pod(S1, STAY_WITH_S1_AWAY_FROM_S2),
        [
            pod(S1, node_name="node1"),
            pod(S2, node_name="node2"),
            pod(affinity=STAY_WITH_S1_AWAY_FROM_S2, node_name="node3"),
            pod(affinity=AWAY_FROM_S1_IN_AZ, node_name="node4"),
        ],
        nodes_of(CHINA, AZ1, INDIA, AZ2),
        False,
        None,
        [M, 0, M, 0],
        id="affinity, anti-affinity and both symmetries together",
    ),
    pytest.param(
        pod(S1),
        [pod(S1, node_name="node1"), pod(affinity=STAY_WITH_S1_AWAY_FROM_S2, node_name="node2")],
        nodes_of(CHINA, CHINA),
        False,
        None,
        [0, 0],
        id="equal raw scores normalize to zero",
    ),
    pytest.param(
        pod(affinity=INVALID_AFFINITY),
        [],
        nodes_of(CHINA, CHINA),
        False,
        Status.error(
            "failed to parse pod: preferredAffinityTerms: values[0][security]: Invalid value: "
            '"{{.bad-value.}}": a valid label must be an empty string or consist of alphanumeric '
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ),
        None,
        id="an invalid affinity label value fails PreScore",
    ),
    pytest.param(
        pod(affinity=INVALID_ANTI_AFFINITY),
        [],
        nodes_of(CHINA, CHINA),
        False,
        Status.error(
            "failed to parse pod: preferredAntiAffinityTerms: values[0][security]: Invalid value: "
            '"{{.bad-value.}}": a valid label must be an empty string or consist of alphanumeric '
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ),
        None,
        id="an invalid anti-affinity label value fails PreScore",
    ),
    pytest.param(
        pod(S1, AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam1.team2"),
            pod(S1, node_name="node2", ns="subteam2.team1"),
        ],
        nodes_of(CHINA, INDIA),
        False,
        None,
        [M, 0],
        id="affinity counts pods of namespaces its selector selects",
    ),
    pytest.param(
        pod(S1, AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam2.team2"),
            pod(S1, node_name="node2", ns="subteam2.team1"),
        ],
        nodes_of(CHINA, INDIA),
        False,
        None,
        [M, 0],
        id="affinity counts pods of selected and listed namespaces",
    ),
    pytest.param(
        pod(S1, ANTI_AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam1.team2"),
            pod(S1, node_name="node2", ns="subteam2.team1"),
        ],
        nodes_of(CHINA, INDIA),
        False,
        None,
        [0, M],
        id="anti-affinity counts pods of namespaces its selector selects",
    ),
    pytest.param(
        pod(S1, ANTI_AFFINITY_NAMESPACE_SELECTOR, ns="subteam1.team1"),
        [
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam1.team1"),
            pod(S1, node_name="node1", ns="subteam2.team2"),
            pod(S1, node_name="node2", ns="subteam2.team1"),
        ],
        nodes_of(CHINA, INDIA),
        False,
        None,
        [0, M],
        id="anti-affinity counts pods of selected and listed namespaces",
    ),
    pytest.param(
        pod(S2),
        [
            pod(S1, STAY_WITH_S1_AWAY_FROM_S2, "node1"),
            pod(S2, STAY_WITH_S2_IN_REGION, "node2"),
        ],
        nodes_of(CHINA, INDIA),
        True,
        SKIP,
        None,
        id="existing pods' preferred terms can be ignored",
    ),
    pytest.param(
        pod(S2),
        [
            pod(S1, STAY_WITH_S1_AWAY_FROM_S2, "node1"),
            pod(S2, STAY_WITH_S2_IN_REGION, "node2"),
        ],
        nodes_of(CHINA, INDIA),
        False,
        None,
        [0, M],
        id="existing pods' preferred terms count by default",
    ),
    pytest.param(pod(S2), [], [], False, SKIP, None, id="no nodes to score"),
]


def run_scores(plugin: Any, pod: Any, nodes: list[Any]) -> tuple[Status | None, list[int] | None]:
    state = CycleState()
    node_infos = bare_node_infos(nodes)
    status = plugin.pre_score(state, pod, node_infos)
    if status is not None:
        return status, None
    scores = []
    for node_info in node_infos:
        score, score_status = plugin.score(state, pod, node_info)
        assert score_status is None
        scores.append(NodeScore(node_info.node_name, score))
    assert plugin.normalize_score(state, pod, scores) is None
    return None, [entry.score for entry in scores]


@pytest.mark.parametrize(
    ("pod", "existing", "nodes", "ignore_preferred", "want_status", "want"), PREFERRED_AFFINITY
)
def test_preferred_affinity_scores_match_upstream(
    pod: Any,
    existing: list[Any],
    nodes: list[Any],
    ignore_preferred: bool,
    want_status: Status | None,
    want: list[int] | None,
) -> None:
    plugin = new_plugin(
        existing,
        nodes,
        hard_pod_affinity_weight=1,
        ignore_preferred_terms_of_existing_pods=ignore_preferred,
    )

    assert run_scores(plugin, pod, nodes) == (want_status, want)


HARD_POD_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            term(
                expressions(("service", "In", ["S1"])),
                "region",
                namespaces=["default", "subteam2.team2"],
                namespace_selector=TEAM1_SELECTOR,
            )
        ]
    }
}
SERVICE_S1 = {"service": "S1"}
HARD_AFFINITY_PODS = [pod(affinity=HARD_POD_AFFINITY, node_name=n) for n in ("node1", "node2")]


@pytest.mark.parametrize(
    ("pod", "weight", "want_status", "want"),
    [
        pytest.param(pod(SERVICE_S1), 1, None, [M, M, 0], id="with the default weight"),
        pytest.param(pod(SERVICE_S1), 0, SKIP, None, id="with zero weight nothing is scored"),
        pytest.param(
            pod(SERVICE_S1, ns="subteam1.team2"),
            1,
            SKIP,
            None,
            id="a namespace neither listed nor selected is not scored",
        ),
        pytest.param(
            pod(SERVICE_S1, ns="subteam1.team1"),
            1,
            None,
            [M, M, 0],
            id="a namespace the namespace selector selects",
        ),
        pytest.param(
            pod(SERVICE_S1, ns="subteam2.team2"),
            1,
            None,
            [M, M, 0],
            id="a namespace listed in the term",
        ),
    ],
)
def test_existing_required_affinity_scores_with_the_hard_pod_affinity_weight(
    pod: Any, weight: int, want_status: Status | None, want: list[int] | None
) -> None:
    nodes = nodes_of(CHINA, INDIA, AZ1)
    plugin = new_plugin(HARD_AFFINITY_PODS, nodes, hard_pod_affinity_weight=weight)

    assert run_scores(plugin, pod, nodes) == (want_status, want)


def test_normalize_scales_in_float_and_truncates_as_go_does() -> None:
    nodes = nodes_of({"region": "a"}, {"region": "b"}, {"region": "c"})
    existing = [pod(S1, node_name="node1"), pod(S2, node_name="node2")]
    affinity = preferred(
        "podAffinity",
        weighted(29, security_in("S1", "region")),
        weighted(100, security_in("S2", "region")),
    )

    # Raw scores 29, 100, 0: 100 * (29 / 100) is 28.999999999999996 in float64, so 28
    # (integer arithmetic would give 29).
    assert run_scores(new_plugin(existing, nodes), pod(S1, affinity), nodes) == (
        None,
        [28, 100, 0],
    )


def test_score_without_pre_score_state_is_an_error() -> None:
    plugin = new_plugin([], nodes_of(CHINA))

    score, status = plugin.score(CycleState(), pod(S1), bare_node_infos(nodes_of(CHINA))[0])

    assert (score, status) == (
        0,
        Status.error('failed to read "PreScoreInterPodAffinity" from cycleState: not found'),
    )
