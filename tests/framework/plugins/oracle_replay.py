"""Replays an oracle scenario (tests/fixtures/oracle) pod by pod for one Score plugin.

For every pending pod with recorded scores, the cluster is rebuilt as the real scheduler saw
it (running pods plus the earlier pending pods on the nodes they were bound to) and the plugin
is asked for its weighted scores over the nodes the real scheduler scored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from framework.api.loader import load_objects
from framework.api.pod import Pod
from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.interface.cycle_state import CycleState
from framework.interface.types import NodeScore
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry

ORACLE = Path(__file__).resolve().parents[2] / "fixtures" / "oracle"


@dataclass
class ScoredAttempt:
    """One pending pod's first attempt: what the plugin gave and what the scheduler recorded."""

    pod: str
    got: dict[str, int] | None
    want: dict[str, int] | None


def replay(
    scenario: str, build: Callable[[Framework], Any], plugin_name: str, weight: int
) -> Iterator[ScoredAttempt]:
    """Yields, per pending pod with recorded scores, the plugin's weighted scores (None when
    its PreScore skipped) next to the recorded ones (None when absent)."""
    objects = load_objects((ORACLE / scenario / "objects.yaml").read_text())
    expected = json.loads((ORACLE / scenario / "expected.json").read_text())["pods"]
    nodes = [o for o in objects if o.kind == "Node"]
    others = [o for o in objects if o.kind not in ("Node", "Pod")]
    placed = [o for o in objects if isinstance(o, Pod) and o.spec.node_name]
    pending = [o for o in objects if isinstance(o, Pod) and not o.spec.node_name]
    for pod, outcome in zip(pending, expected, strict=True):
        assert outcome["pod"] == pod.key
        removed = {victim for victim in outcome.get("victims", [])}
        placed = [p for p in placed if p.key not in removed]
        scores = outcome.get("weightedScores") or {}
        if scores:
            feasible = sorted(next(iter(scores.values())))
            yield ScoredAttempt(
                pod.key,
                _weighted_scores(build, placed, nodes, others, pod, feasible, weight),
                scores.get(plugin_name),
            )
        if outcome["result"] == "Scheduled":
            bound = pod.deep_copy()
            bound.spec.node_name = outcome["node"]
            placed.append(bound)


def _weighted_scores(
    build: Callable[[Framework], Any],
    placed: list[Pod],
    nodes: list[Any],
    others: list[Any],
    pod: Pod,
    feasible: list[str],
    weight: int,
) -> dict[str, int] | None:
    snapshot = new_snapshot(placed, nodes)
    handle = Framework(
        Registry(), None, snapshot_shared_lister=snapshot, cluster=InMemoryCluster(others)
    )
    plugin = build(handle)
    node_infos = [snapshot.get(name) for name in feasible]
    state = CycleState()
    status = plugin.pre_score(state, pod, node_infos)
    if status is not None and status.is_skip():
        return None
    assert status is None, status
    scores = []
    for node_info in node_infos:
        score, score_status = plugin.score(state, pod, node_info)
        assert score_status is None, score_status
        scores.append(NodeScore(node_info.node_name, score))
    assert plugin.normalize_score(state, pod, scores) is None
    return {entry.name: entry.score * weight for entry in scores}
