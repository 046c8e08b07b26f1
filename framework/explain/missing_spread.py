"""What PodTopologySpread and InterPodAffinity find missing on a node.

Both read the counts their PreFilter computed (pods per topology domain), the very numbers
their Filter compares, and say which constraint or term fails in which domain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework.plugins.interpodaffinity import filtering as affinity
from framework.plugins.podtopologyspread.filtering import get_pre_filter_state

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo
    from framework.interface.status import Status


def topology_spread(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """``zone=zone-b would make the skew 3 > maxSkew 1`` for each violated constraint."""
    state = get_pre_filter_state(run.state_for(node))
    labels = node.node.labels
    problems = []
    for i, constraint in enumerate(state.constraints):
        key = constraint.topology_key
        value = labels.get(key)
        if value is None:
            problems.append(f"node has no `{key}` label (a topologySpreadConstraint's key)")
            continue
        self_match = 1 if constraint.selector.matches(run.pod.labels) else 0
        matching = state.tp_value_to_match_num[i].get(value, 0)
        skew = matching + self_match - state.min_match_num(i, constraint.min_domains)
        if skew > constraint.max_skew:
            problems.append(
                f"{key}={value} would make the skew {skew} > maxSkew {constraint.max_skew} "
                f"({matching} matching pod(s) there)"
            )
    return "; ".join(problems)


def inter_pod_affinity(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """Which required (anti-)affinity term fails in the node's domain, and why."""
    state = affinity.get_pre_filter_state(run.state_for(node))
    labels = node.node.labels
    problems = []
    if not affinity.satisfy_existing_pods_anti_affinity(state, labels):
        pairs = [
            f"{k}={v}" for k, v in labels.items() if state.existing_anti_affinity_counts.get((k, v))
        ]
        problems.append(
            f"a running pod's required anti-affinity forbids this pod in {', '.join(pairs)}"
        )
    for term in state.anti_affinity_terms:
        value = labels.get(term.topology_key)
        if value is not None and state.anti_affinity_counts.get((term.topology_key, value), 0):
            problems.append(
                f"anti-affinity: a pod matching `{term.selector}` runs in "
                f"{term.topology_key}={value}"
            )
    if not affinity.satisfy_pod_affinity(state, labels):
        for term in state.affinity_terms:
            value = labels.get(term.topology_key)
            if value is None:
                problems.append(f"node has no `{term.topology_key}` label (a pod affinity key)")
            elif state.affinity_counts.get((term.topology_key, value), 0) <= 0:
                problems.append(
                    f"affinity: no pod matching `{term.selector}` runs in "
                    f"{term.topology_key}={value}"
                )
    return "; ".join(problems)
