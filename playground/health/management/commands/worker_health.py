"""``manage.py worker_health``: a scheduler worker's health, for an exec probe.

Prints what ``/healthz?verbose`` would (``[+]leaderElection ok`` … ``healthz check passed``)
and exits 0, or lists the failed checks and exits 1 (the reasons on standard error).
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from playground.health import healthz
from playground.health.worker_checks import RENEWAL_TOLERANCE, worker_checks


class Command(BaseCommand):
    help = "Checks that this host's scheduler worker renews its leases (exit 0) or not (exit 1)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--max-age",
            type=float,
            default=None,
            help="seconds a held lease may go without renewal "
            f"(default: SCHEDULER_LEASE_SECONDS + {RENEWAL_TOLERANCE:g})",
        )
        parser.add_argument(
            "--holder",
            default=None,
            help="the leases' holder prefix to check (default: this host's name and a colon)",
        )
        parser.add_argument("--exclude", action="append", default=[], help="a check to skip")

    def handle(self, *args: Any, **options: Any) -> None:
        max_age = options["max_age"]
        if max_age is not None and max_age <= 0:
            self.stderr.write(f"--max-age: must be positive, not {max_age:g}")
            sys.exit(2)
        checks = worker_checks(max_age, options["holder"])
        query = {"verbose": [""], "exclude": options["exclude"]}
        answer = healthz.answer("healthz", checks, query, log=False)
        self.stdout.write(answer.body, ending="")
        if answer.status != 200:
            for name, reason in answer.failures.items():
                self.stderr.write(f"[-]{name} failed: {reason}")
            sys.exit(1)
