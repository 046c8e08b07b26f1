"""InterPodAffinity's weighted scores equal the real kube-scheduler's in the oracle scenarios."""

from __future__ import annotations

import pytest

from framework.config.types import InterPodAffinityArgs
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.interpodaffinity.plugin import InterPodAffinity
from tests.framework.plugins.oracle_replay import replay


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param("mixed-small", id="the small mixed scenario"),
        pytest.param("mixed-medium", id="the medium mixed scenario"),
    ],
)
def test_weighted_scores_match_the_real_scheduler(scenario: str) -> None:
    def build(handle: object) -> InterPodAffinity:
        args = InterPodAffinityArgs(hard_pod_affinity_weight=1)
        return InterPodAffinity(args, handle, Features.from_gates())

    attempts = list(replay(scenario, build, names.INTER_POD_AFFINITY, 2))

    assert len([a for a in attempts if a.want is not None]) > 10
    assert [a for a in attempts if a.got != a.want] == []
