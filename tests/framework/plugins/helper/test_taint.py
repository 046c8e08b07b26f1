"""The taint filter Filter plugins use: only NoSchedule and NoExecute taints keep pods off."""

from __future__ import annotations

import pytest

from framework.api.taints import Taint
from framework.plugins.helper.taint import do_not_schedule_taints_filter_func


@pytest.mark.parametrize(
    ("effect", "want"),
    [("NoSchedule", True), ("NoExecute", True), ("PreferNoSchedule", False)],
    ids=[
        "it includes taints with the NoSchedule effect",
        "it includes taints with the NoExecute effect",
        "it leaves out taints with the PreferNoSchedule effect",
    ],
)
def test_it_keeps_only_taints_that_stop_scheduling(effect, want):
    assert do_not_schedule_taints_filter_func()(Taint(key="k", effect=effect)) is want
