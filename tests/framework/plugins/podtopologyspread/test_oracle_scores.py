"""PodTopologySpread's weighted scores equal the real kube-scheduler's in the oracle scenarios."""

from __future__ import annotations

import pytest

from framework.config.types import PodTopologySpreadArgs
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.podtopologyspread.plugin import PodTopologySpread
from tests.framework.plugins.oracle_replay import replay


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param("mixed-small", id="the small mixed scenario"),
        pytest.param("mixed-medium", id="the medium mixed scenario"),
    ],
)
def test_weighted_scores_match_the_real_scheduler(scenario: str) -> None:
    def build(handle: object) -> PodTopologySpread:
        args = PodTopologySpreadArgs(defaulting_type="System")
        return PodTopologySpread(args, handle, Features.from_gates())

    attempts = list(replay(scenario, build, names.POD_TOPOLOGY_SPREAD, 2))

    assert attempts
    assert [a for a in attempts if a.got != a.want] == []
