"""What the placement plugins find missing on a node: taints, node affinity and selector,
the node's name, cordoning and host ports, worded for people.

Each check reuses the API helpers the plugin itself uses (taint toleration, selector terms,
host port conflicts), so the explanation names the very taint, label or port that failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework.api.node_affinity import NodeSelectorTerm
from framework.api.taints import Taint, do_not_schedule_taints_filter, tolerations_tolerate_taint
from framework.interface.node_info import get_host_ports

if TYPE_CHECKING:
    from framework.api.node_affinity import NodeSelectorRequirement
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo
    from framework.interface.status import Status

UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"


def untolerated_taints(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """Every NoSchedule / NoExecute taint of the node no toleration of the pod tolerates."""
    plugin = run.framework.plugins_map.get("TaintToleration")
    comparisons = bool(getattr(plugin, "enable_comparison_operators", False))
    missing = [
        taint
        for taint in node.node.spec.taints
        if do_not_schedule_taints_filter(taint)
        and not tolerations_tolerate_taint(
            run.pod.spec.tolerations, taint, enable_comparison_operators=comparisons
        )
    ]
    return "; ".join(f"taint `{describe_taint(t)}` not tolerated" for t in missing)


def describe_taint(taint: Taint) -> str:
    value = f"={taint.value}" if taint.value else ""
    return f"{taint.key}{value}:{taint.effect}"


def node_affinity(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """The nodeSelector labels the node lacks, or why each required affinity term fails."""
    labels = node.node.labels
    problems = [
        f"label `{key}={value}` wanted by nodeSelector ({_has_label(labels, key)})"
        for key, value in run.pod.spec.node_selector.items()
        if labels.get(key) != value
    ]
    affinity = run.pod.spec.affinity
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    if required is not None and not required.match(node.node):
        terms = [
            f"term {index + 1}: " + "; ".join(_failing_requirements(term, node))
            for index, term in enumerate(required.node_selector_terms)
        ]
        problems.append("no required nodeAffinity term matches (" + " | ".join(terms) + ")")
    if not problems:
        problems.append("the profile's addedAffinity does not match the node")
    return "; ".join(problems)


def _failing_requirements(term: NodeSelectorTerm, node: NodeInfo) -> list[str]:
    if term.is_empty():
        return ["an empty term matches no node"]
    labels = node.node.labels
    failing = [
        f"`{_requirement(r)}` ({_has_label(labels, r.key)})"
        for r in term.match_expressions
        if not NodeSelectorTerm(match_expressions=[r]).matches(node.node)
    ]
    failing += [
        f"field `{_requirement(r)}` (node is {node.node_name})"
        for r in term.match_fields
        if not NodeSelectorTerm(match_fields=[r]).matches(node.node)
    ]
    return failing or ["does not match"]


def _requirement(requirement: NodeSelectorRequirement) -> str:
    values = f" ({', '.join(requirement.values)})" if requirement.values else ""
    return f"{requirement.key} {requirement.operator}{values}"


def _has_label(labels: dict[str, str], key: str) -> str:
    return f"node has `{key}={labels[key]}`" if key in labels else f"node has no `{key}` label"


def node_name(run: FilterRun, node: NodeInfo, status: Status) -> str:
    return f"the pod asks for node {run.pod.spec.node_name} (spec.nodeName)"


def node_unschedulable(run: FilterRun, node: NodeInfo, status: Status) -> str:
    return (
        "the node is cordoned (spec.unschedulable) and the pod does not tolerate "
        f"`{UNSCHEDULABLE_TAINT_KEY}:NoSchedule`"
    )


def host_ports(run: FilterRun, node: NodeInfo, status: Status) -> str:
    """Which of the pod's host ports are taken on the node."""
    taken = [
        port
        for port in get_host_ports(run.pod)
        if node.used_ports.check_conflict(port.host_ip, port.protocol, port.host_port)
    ]
    return "; ".join(
        f"host port {port.host_port}/{port.protocol} is taken"
        + (f" on {port.host_ip}" if port.host_ip and port.host_ip != "0.0.0.0" else "")
        for port in taken
    )
