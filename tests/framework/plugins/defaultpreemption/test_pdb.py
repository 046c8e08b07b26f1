"""Splitting victims by PDB violation (the single-pod cases of upstream's
TestFilterVictimsWithPDBViolation, for DefaultPreemption's filterPodsWithPDBViolation)."""

from __future__ import annotations

import pytest

from framework.interface.node_info import PodInfo
from framework.plugins.defaultpreemption.default_preemption import filter_pods_with_pdb_violation
from tests.framework.preemption.builders import pdb, pod

FOO = {"app": "foo"}


def victim(name: str, namespace: str = "default", **labels: str) -> PodInfo:
    return PodInfo(pod(name, namespace=namespace, labels=labels or dict(FOO)))


P1 = victim("p1")
P2 = victim("p2")
OTHER_NAMESPACE = victim("p1", namespace="other")
NO_LABELS = PodInfo(pod("p1"))
BACKEND = victim("p1", app="foo", tier="backend")

CASES = [
    ("no victims and no PDBs", [], [], [], []),
    (
        "a victim no PDB selects",
        [P1],
        [pdb(match_labels={"app": "bar"})],
        [],
        [P1],
    ),
    (
        "a victim in another namespace than the PDB",
        [OTHER_NAMESPACE],
        [pdb(match_labels=FOO)],
        [],
        [OTHER_NAMESPACE],
    ),
    ("a victim without labels", [NO_LABELS], [pdb(selector={})], [], [NO_LABELS]),
    (
        "a victim within the PDB's budget",
        [P1],
        [pdb(match_labels=FOO, disruptions_allowed=1)],
        [],
        [P1],
    ),
    (
        "a victim beyond the PDB's budget",
        [P1],
        [pdb(match_labels=FOO, disruptions_allowed=0)],
        [P1],
        [],
    ),
    (
        "several victims of one PDB: the later ones exceed the budget",
        [P1, P2],
        [pdb(match_labels=FOO, disruptions_allowed=1)],
        [P2],
        [P1],
    ),
    (
        "a victim among the PDB's disrupted pods spends nothing",
        [P1],
        [pdb(match_labels=FOO, disruptions_allowed=0, disrupted_pods=["p1"])],
        [],
        [P1],
    ),
    (
        "an empty selector matches nothing",
        [P1],
        [pdb(selector={}, disruptions_allowed=0)],
        [],
        [P1],
    ),
    (
        "a missing selector matches nothing",
        [P1],
        [pdb(disruptions_allowed=0)],
        [],
        [P1],
    ),
    (
        "an invalid selector matches nothing",
        [P1],
        [
            pdb(
                selector={"matchExpressions": [{"key": "app", "operator": "Bad"}]},
                disruptions_allowed=0,
            )
        ],
        [],
        [P1],
    ),
    (
        "one exhausted PDB among several is enough to violate",
        [BACKEND],
        [
            pdb("a", match_labels=FOO, disruptions_allowed=1),
            pdb("b", match_labels={"tier": "backend"}, disruptions_allowed=0),
        ],
        [BACKEND],
        [],
    ),
]


@pytest.mark.parametrize(
    ("victims", "pdbs", "violating", "non_violating"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_victims_are_split_by_pdb_violation(victims, pdbs, violating, non_violating) -> None:
    got_violating, got_non_violating = filter_pods_with_pdb_violation(victims, pdbs)

    assert got_violating == violating
    assert got_non_violating == non_violating


def test_every_matching_pdb_spends_budget_even_after_a_violation() -> None:
    # Unlike the pod-group variant, the plugin keeps counting against every matching PDB.
    budgets = [
        pdb("a", match_labels={"tier": "backend"}, disruptions_allowed=0),
        pdb("b", match_labels=FOO, disruptions_allowed=1),
    ]

    violating, non_violating = filter_pods_with_pdb_violation([BACKEND, P2], budgets)

    assert (violating, non_violating) == ([BACKEND, P2], [])
