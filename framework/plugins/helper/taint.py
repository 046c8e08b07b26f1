"""Which node taints decide feasibility (upstream ``helper.DoNotScheduleTaintsFilterFunc``)."""

from __future__ import annotations

from collections.abc import Callable

from framework.api.taints import Taint, do_not_schedule_taints_filter


def do_not_schedule_taints_filter_func() -> Callable[[Taint], bool]:
    """Keeps NoSchedule and NoExecute taints; PreferNoSchedule only lowers a node's score."""
    return do_not_schedule_taints_filter
