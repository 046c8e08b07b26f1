"""Where a pod deletion or addition would requeue a pod rejected by a topology plugin.

PodTopologySpread's and InterPodAffinity's queueing hints queue the pod on a change of a pod
their terms select; which topology domain the change lands in decides whether it helps. From
the counts their PreFilter computed, this names the domains: for spread, the domains whose
matching pods make the skew too large ("a Pod matching `app=web` deleted on a node of
zone=zone-a"); for affinity, a matching pod added in a domain, and for anti-affinity, the
matching pods' domains they would have to leave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework.interface.cycle_state import NotFoundError
from framework.plugins.interpodaffinity import filtering as affinity
from framework.plugins.podtopologyspread import filtering as spread

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun


def spread_domains(run: FilterRun) -> list[str]:
    """For each constraint, the domains of rejected nodes where its pods are over the skew."""
    if not _has(run, spread.PRE_FILTER_STATE_KEY):
        return []
    state = spread.get_pre_filter_state(run.state)
    out = []
    for i, constraint in enumerate(state.constraints):
        key = constraint.topology_key
        floor = state.min_match_num(i, constraint.min_domains)
        self_match = 1 if constraint.selector.matches(run.pod.labels) else 0
        crowded = sorted(
            value
            for value, count in state.tp_value_to_match_num[i].items()
            if count + self_match - floor > constraint.max_skew and _rejected_in(run, key, value)
        )
        out += [
            f"a Pod matching `{constraint.selector}` deleted on a node of {key}={value}"
            for value in crowded
        ]
    return out


def affinity_domains(run: FilterRun) -> list[str]:
    """A matching pod added for affinity terms; matching pods leaving for anti-affinity."""
    if not _has(run, affinity.PRE_FILTER_STATE_KEY):
        return []
    state = affinity.get_pre_filter_state(run.state)
    out = [
        f"a Pod matching `{term.selector}` added on a node with a `{term.topology_key}` label"
        for term in state.affinity_terms
    ]
    for term in state.anti_affinity_terms:
        values = sorted(
            value
            for (key, value), count in state.anti_affinity_counts.items()
            if key == term.topology_key and count > 0
        )
        out += [
            f"a Pod matching `{term.selector}` deleted on a node of {term.topology_key}={value}"
            for value in values
        ]
    return out


def _has(run: FilterRun, key: str) -> bool:
    """Whether the plugin's PreFilter left its state (it may have been skipped)."""
    try:
        run.state.read(key)
    except NotFoundError:
        return False
    return True


def _rejected_in(run: FilterRun, key: str, value: str) -> bool:
    return any(
        node.node.labels.get(key) == value and node.node_name in run.failures for node in run.nodes
    )


DOMAIN_HINTS = {"PodTopologySpread": spread_domains, "InterPodAffinity": affinity_domains}
"""Plugin name -> the domain-specific events that would requeue the pod."""
