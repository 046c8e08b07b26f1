"""Named health checks and the answer kube-apiserver's healthz handler gives for a list of them.

The wording is upstream's (k8s.io/apiserver/pkg/server/healthz): ``ok`` when every check
passes; with ``?verbose`` a ``[+]name ok`` line per check and ``<endpoint> check passed``; a
failed check is always listed, as ``[-]name failed: reason withheld`` (the endpoint needs no
login, so the reason goes to the log only), followed by ``<endpoint> check failed``.
``?exclude=name`` (repeatable) skips a check. The one deliberate difference: a failed check
answers 503, where upstream answers 500 (docs/fidelity.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)

FAILED_STATUS = 503
"""What a failed check answers: Service Unavailable, as the issue asks; upstream says 500."""


@dataclass(frozen=True, slots=True)
class HealthCheck:
    """A check by its name: ``check`` returns when healthy and raises saying why not."""

    name: str
    check: Callable[[], object]

    def failure(self) -> str:
        """Why the check fails now ("" when it passes)."""
        try:
            self.check()
        except Exception as err:  # every failure is an answer, never an error page
            return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        return ""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: str
    failures: dict[str, str] = field(default_factory=dict)
    """Each failed check's reason, which the body withholds (for logs and the command)."""


def answer(
    endpoint: str,
    checks: Sequence[HealthCheck],
    query: Mapping[str, list[str]],
    log: bool = True,
) -> Answer:
    """The answer of ``/<endpoint>`` for ``checks`` under the query parameters ``query``;
    ``log``: the failures' reasons are logged (a command prints them itself)."""
    excluded = set(query.get("exclude", []))
    unknown = set(excluded)
    lines: list[str] = []
    failed: dict[str, str] = {}
    for check in checks:
        if check.name in excluded:
            unknown.discard(check.name)
            lines.append(f"[+]{check.name} excluded: ok")
            continue
        reason = check.failure()
        if reason:
            failed[check.name] = reason
            lines.append(f"[-]{check.name} failed: reason withheld")
        else:
            lines.append(f"[+]{check.name} ok")
    if unknown:
        names = ",".join(f'"{name}"' for name in sorted(unknown))
        lines.append(f"warn: some health checks cannot be excluded: no matches for {names}")
    listing = "".join(f"{line}\n" for line in lines)
    if failed:
        if log:
            _log_failure(endpoint, failed)
        return Answer(FAILED_STATUS, f"{listing}{endpoint} check failed\n", failed)
    if "verbose" not in query:
        return Answer(200, "ok")
    return Answer(200, f"{listing}{endpoint} check passed\n")


def answer_one(check: HealthCheck) -> Answer:
    """The answer of ``/<endpoint>/<name>``: one check on its own."""
    reason = check.failure()
    if reason:
        _log_failure(check.name, {check.name: reason})
        return Answer(
            FAILED_STATUS, "internal server error: reason withheld\n", {check.name: reason}
        )
    return Answer(200, "ok")


def _log_failure(endpoint: str, failed: Mapping[str, str]) -> None:
    """The reasons the answer withholds, for whoever reads the process's log."""
    details = "\n".join(f"[-]{name} failed: {reason}" for name, reason in failed.items())
    logger.warning("%s check failed: %s\n%s", ",".join(failed), endpoint, details)
