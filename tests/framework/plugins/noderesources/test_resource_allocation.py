"""The pod requests scoring reads, from upstream's TestResourceAllocationScorerCalculateRequests."""

from __future__ import annotations

import pytest

from framework.config.types import ResourceSpec
from framework.plugins.noderesources.resource_allocation import ResourceAllocationScorer
from tests.framework.plugins.noderesources.builders import container, make_pod

ONE_MI = 1048576
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024
CPU_MEM = {"cpu": "1", "memory": "1Mi"}


def scorer(use_requested: bool = False) -> ResourceAllocationScorer:
    resources = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
    return ResourceAllocationScorer("test", lambda *_: 0, resources, use_requested=use_requested)


CASES = [
    ("overhead only", make_pod(overhead=CPU_MEM), [1000, ONE_MI]),
    ("1x requestless container", make_pod(containers=[container()]), [100, DEFAULT_MEMORY]),
    (
        "2x requestless container",
        make_pod(containers=[container(), container()]),
        [2 * DEFAULT_MILLI_CPU, 2 * DEFAULT_MEMORY],
    ),
    (
        "request container + requestless container",
        make_pod(containers=[container(CPU_MEM), container()]),
        [1000 + DEFAULT_MILLI_CPU, ONE_MI + DEFAULT_MEMORY],
    ),
    (
        "container + requestless container + overhead",
        make_pod(containers=[container(CPU_MEM), container()], overhead=CPU_MEM),
        [2000 + DEFAULT_MILLI_CPU, 2 * ONE_MI + DEFAULT_MEMORY],
    ),
    (
        "init container + container + requestless container + overhead",
        make_pod(
            containers=[container(CPU_MEM), container()],
            init_containers=[container({"cpu": "3"})],
            overhead=CPU_MEM,
        ),
        [4000, 2 * ONE_MI + DEFAULT_MEMORY],
    ),
    (
        "requestless init container + small init container + small container",
        make_pod(
            containers=[container({"cpu": "3m", "memory": "3"})],
            init_containers=[container(), container({"cpu": "1m", "memory": "1"})],
        ),
        [DEFAULT_MILLI_CPU, DEFAULT_MEMORY],
    ),
    (
        "requestless init container + small init container + small container + requestless "
        "container",
        make_pod(
            containers=[container({"cpu": "3m", "memory": "3"}), container()],
            init_containers=[container(), container({"cpu": "1m", "memory": "1"})],
        ),
        [3 + DEFAULT_MILLI_CPU, 3 + DEFAULT_MEMORY],
    ),
]


@pytest.mark.parametrize(
    ("pod", "want"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_it_counts_containers_without_requests_as_100m_and_200mi(pod, want):
    assert scorer().calculate_pod_resource_request_list(pod) == want


def test_it_counts_plain_requests_when_told_to():
    pod = make_pod(containers=[container(CPU_MEM), container()])

    assert scorer(use_requested=True).calculate_pod_resource_request_list(pod) == [1000, ONE_MI]
