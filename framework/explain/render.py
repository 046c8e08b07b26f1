"""The explain command's table output: a readable block, the histogram as text bars."""

from __future__ import annotations

from typing import Any

BAR_WIDTH = 30


def render_explanation(output: dict[str, Any]) -> str:
    """The explanation (and preemption explainer) JSON as text for a terminal."""
    lines = [f"pod {output['pod']}: {output['result']}"]
    if output.get("message"):
        lines.append(f"  {output['message']}")
    lines += _histogram(output)
    lines += _closest(output.get("closest") or [])
    lines += _requeue(output)
    preemption = output.get("preemption")
    if preemption:
        lines += render_preemption(preemption)
    return "\n".join(lines) + "\n"


def _histogram(output: dict[str, Any]) -> list[str]:
    reasons = output.get("reasons") or []
    if not reasons:
        return []
    total = max(output.get("nodes") or 0, 1)
    width = max(len(r["plugin"]) for r in reasons)
    lines = ["", f"why nodes were rejected ({output['nodes']} nodes):"]
    for entry in reasons:
        bar = "#" * max(1, round(BAR_WIDTH * entry["nodes"] / total))
        lines.append(
            f"  {entry['plugin']:<{width}}  {bar:<{BAR_WIDTH}}  {entry['nodes']:>4}  "
            f"{entry['reason']}"
        )
    if output.get("mostRejecting"):
        lines.append(f"  most rejecting: {output['mostRejecting']}")
    return lines


def _closest(closest: list[dict[str, Any]]) -> list[str]:
    if not closest:
        return []
    width = max(len(c["node"]) for c in closest)
    lines = ["", "closest nodes (failing one plugin only):"]
    for entry in closest:
        lines.append(f"  {entry['node']:<{width}}  {entry['plugin']}: {entry['missing']}")
    return lines


def _requeue(output: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if output.get("requeueOn"):
        lines += ["", "what would requeue it:"]
        for entry in output["requeueOn"]:
            lines += [f"  {entry['plugin']}: {event}" for event in entry["events"]]
    if output.get("gates"):
        lines += ["", f"scheduling gates: {', '.join(output['gates'])}"]
    next_try = output.get("nextTry")
    if next_try:
        when = (
            "" if next_try.get("inSeconds") is None else f", next try in {next_try['inSeconds']}s"
        )
        lines += ["", f"queue: {next_try['state']}{when}"]
    return lines


def render_preemption(preemption: dict[str, Any]) -> list[str]:
    """The preemption explainer: candidates, the others, the criteria and the decision."""
    lines = ["", f"preemption: {preemption['outcome']}"]
    if preemption.get("message"):
        lines.append(f"  {preemption['message']}")
    for candidate in preemption.get("candidates") or []:
        victims = ", ".join(_victim(v) for v in candidate["victims"])
        lines.append(f"  candidate {candidate['node']}: {victims}")
    for other in preemption.get("notCandidates") or []:
        lines.append(f"  not a candidate {other['node']}: {other['why']}")
    for criterion in preemption.get("criteria") or []:
        mark = "  <- decided" if criterion["decided"] else ""
        lines.append(f"  criterion: {criterion['name']}{mark}")
    if preemption.get("nominatedNode"):
        lines.append(
            f"  nominated {preemption['nominatedNode']} (decided by {preemption['decidedBy']})"
        )
    return lines


def _victim(victim: dict[str, Any]) -> str:
    pdb = ", violates a PDB" if victim["pdbViolation"] else ""
    return f"{victim['pod']} (priority {victim['priority']}{pdb})"
