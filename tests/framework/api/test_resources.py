"""Pod resource requests; cases from upstream component-helpers/resource/helpers_test.go and
pkg/scheduler/framework/types_test.go (CalculateResource)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.pod import Pod
from framework.api.quantity import Quantity
from framework.api.resource_names import (
    is_hugepage_resource_name,
    is_native_resource,
    is_overcommit_allowed,
    is_prefixed_native_resource,
    is_supported_pod_level_resource,
)
from framework.api.resources import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    is_attachable_volume_resource_name,
    is_extended_resource_name,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    is_scalar_resource_name,
    non_zero_requests,
    pod_request_list,
    pod_requests,
)


def container(name: str = "", restart: str | None = None, **requests: str) -> dict[str, Any]:
    data: dict[str, Any] = {"name": name, "resources": {"requests": _names(requests)}}
    if restart:
        data["restartPolicy"] = restart
    return data


def sidecar(name: str = "", **requests: str) -> dict[str, Any]:
    return container(name, "Always", **requests)


def _names(requests: dict[str, str]) -> dict[str, str]:
    return {k.replace("_", "-"): v for k, v in requests.items()}


def status(name: str, allocated: dict[str, str] | None = None, **actual: str) -> dict[str, Any]:
    data: dict[str, Any] = {"name": name, "resources": {"requests": _names(actual)}}
    if allocated:
        data["allocatedResources"] = allocated
    return data


def make_pod(
    containers=(),
    init=(),
    overhead=None,
    pod_requests_=None,
    statuses=(),
    init_statuses=(),
    conditions=(),
    pod_status_requests=None,
) -> Pod:
    spec: dict[str, Any] = {"containers": list(containers), "initContainers": list(init)}
    if overhead:
        spec["overhead"] = overhead
    if pod_requests_ is not None:
        spec["resources"] = {"requests": pod_requests_}
    status_data: dict[str, Any] = {
        "containerStatuses": list(statuses),
        "initContainerStatuses": list(init_statuses),
        "conditions": list(conditions),
    }
    if pod_status_requests is not None:
        status_data["resources"] = {"requests": pod_status_requests}
    return Pod.from_dict(
        {"kind": "Pod", "metadata": {"name": "p"}, "spec": spec, "status": status_data}
    )


def q(values: dict[str, str]) -> dict[str, Quantity]:
    return {k: Quantity.parse(v) for k, v in values.items()}


INFEASIBLE = {"type": "PodResizePending", "status": "True", "reason": "Infeasible"}
DEFERRED = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}

REQUEST_CASES = [
    (
        "a larger init container sets the request",
        make_pod([container(cpu="1")], [container(cpu="4")]),
        {"cpu": "4"},
    ),
    (
        "app containers add up past a smaller init container",
        make_pod([container(cpu="2"), container(cpu="3")], [container(cpu="2")]),
        {"cpu": "5"},
    ),
    (
        "overhead is added",
        make_pod(
            [container(cpu="2"), container(cpu="3")],
            [container(cpu="2")],
            overhead={"cpu": "1", "memory": "1Gi"},
        ),
        {"cpu": "6", "memory": "1Gi"},
    ),
    (
        "an infeasible resize counts what is running",
        make_pod(
            [container("c1", cpu="4")], statuses=[status("c1", cpu="2")], conditions=[INFEASIBLE]
        ),
        {"cpu": "2"},
    ),
    (
        "an infeasible resize still counts what is allocated",
        make_pod(
            [container("c1", cpu="6")],
            statuses=[status("c1", {"cpu": "4"}, cpu="2")],
            conditions=[INFEASIBLE],
        ),
        {"cpu": "4"},
    ),
    (
        "without a resize status the larger of asked and running counts",
        make_pod([container("c1", cpu="4")], statuses=[status("c1", cpu="2")]),
        {"cpu": "4"},
    ),
    (
        "a resize takes the maximum per resource",
        make_pod(
            [container("c1", cpu="30m", memory="20M", ephemeral_storage="10G")],
            statuses=[
                status(
                    "c1",
                    {"cpu": "20m", "memory": "10M", "ephemeral-storage": "30G"},
                    cpu="10m",
                    memory="30M",
                    ephemeral_storage="20G",
                )
            ],
        ),
        {"cpu": "30m", "memory": "30M", "ephemeral-storage": "30G"},
    ),
    (
        "a resizing sidecar that is infeasible counts what is running",
        make_pod(
            init=[sidecar("s1", cpu="4")],
            init_statuses=[status("s1", cpu="2")],
            conditions=[INFEASIBLE],
        ),
        {"cpu": "2"},
    ),
    (
        "a sidecar adds to the app container",
        make_pod([container("c1", cpu="1")], [sidecar("s1", cpu="1")]),
        {"cpu": "2"},
    ),
    (
        "several sidecars add up beside the app containers",
        make_pod(
            [container(cpu="1")],
            [container(cpu="5"), sidecar(cpu="1"), sidecar(cpu="2"), sidecar(cpu="3")],
        ),
        {"cpu": "7"},
    ),
    (
        "an init container counts the sidecars started before it only",
        make_pod(
            [container(cpu="1")],
            [
                container(cpu="5"),
                sidecar(cpu="1"),
                sidecar(cpu="2"),
                container(cpu="5"),
                sidecar(cpu="3"),
            ],
        ),
        {"cpu": "8"},
    ),
    (
        "a sidecar then an init container then the app",
        make_pod([container(cpu="100")], [sidecar(cpu="10"), container(cpu="200")]),
        {"cpu": "210"},
    ),
    (
        "pod-level memory replaces the container sum",
        make_pod(pod_requests_={"memory": "2Mi"}),
        {"memory": "2Mi"},
    ),
    (
        "pod-level memory and container-level cpu combine",
        make_pod([container(cpu="2m")], pod_requests_={"memory": "2Mi"}),
        {"memory": "2Mi", "cpu": "2m"},
    ),
    (
        "unsupported pod-level resources are ignored",
        make_pod([container(storage="3Mi")], pod_requests_={"storage": "2Mi"}),
        {"storage": "3Mi"},
    ),
    (
        "pod-level requests win over containers, init containers and sidecars",
        make_pod(
            [container(memory="3Mi", cpu="2m")],
            [sidecar(memory="5Mi", cpu="4m"), container(memory="6Mi", cpu="8m")],
            pod_requests_={"memory": "15Mi", "cpu": "18m"},
        ),
        {"memory": "15Mi", "cpu": "18m"},
    ),
    (
        "pod-level hugepages are supported",
        make_pod(
            [container(memory="4Mi", **{"hugepages-1Gi": "1Gi"})],
            pod_requests_={"cpu": "1", "hugepages-2Mi": "10Mi"},
        ),
        {"cpu": "1", "memory": "4Mi", "hugepages-2Mi": "10Mi", "hugepages-1Gi": "1Gi"},
    ),
    (
        "pod-level requests use the larger of spec and status while resizing",
        make_pod(
            [container("c1", cpu="500m")],
            statuses=[status("c1", cpu="700m")],
            pod_requests_={"cpu": "700m"},
            pod_status_requests={"cpu": "500m"},
        ),
        {"cpu": "700m"},
    ),
]


@pytest.mark.parametrize(
    ("pod", "expected"), [c[1:] for c in REQUEST_CASES], ids=[c[0] for c in REQUEST_CASES]
)
def test_pod_request_list_follows_upstream(pod, expected):
    assert pod_request_list(pod) == q(expected)


def test_overhead_can_be_excluded():
    pod = make_pod([container(cpu="2"), container(cpu="3")], overhead={"cpu": "1"})
    assert pod_request_list(pod, exclude_overhead=True) == q({"cpu": "5"})


def test_status_resources_can_be_ignored():
    pod = make_pod(
        [container("c1", cpu="4")], statuses=[status("c1", cpu="2")], conditions=[INFEASIBLE]
    )
    assert pod_request_list(pod, use_status_resources=False) == q({"cpu": "4"})


def test_pod_level_resources_can_be_skipped():
    pod = make_pod([container(memory="5Mi")], pod_requests_={"memory": "2Mi"})
    assert pod_request_list(pod, skip_pod_level_resources=True) == q({"memory": "5Mi"})


def test_pod_requests_are_in_scheduler_units():
    pod = make_pod([container(cpu="250m", memory="1Gi", **{"example.com/gpu": "2"})])
    assert pod_requests(pod) == {"cpu": 250, "memory": 1024**3, "example.com/gpu": 2}


def test_requests_are_summed_exactly_before_rounding():
    pod = make_pod([container(cpu="0.4m"), container(cpu="0.4m"), container(cpu="0.4m")])
    assert pod_requests(pod) == {"cpu": 2}


def test_missing_requests_are_filled_but_explicit_zeros_are_kept():
    pod = make_pod([container(), container(cpu="0", memory="0")])
    filled = pod_requests(
        pod, non_missing_container_requests={"cpu": 100, "memory": DEFAULT_MEMORY_REQUEST}
    )
    assert filled == {"cpu": 100, "memory": DEFAULT_MEMORY_REQUEST}


NON_ZERO_CASES = [
    ("a container without requests", make_pod([container()]), (100, DEFAULT_MEMORY_REQUEST)),
    (
        "one container with requests",
        make_pod([container(cpu="500m", memory="500M")]),
        (500, 500_000_000),
    ),
    (
        "two containers with requests",
        make_pod([container(cpu="500m", memory="500M"), container(cpu="700m", memory="800M")]),
        (1200, 1_300_000_000),
    ),
    (
        "pod-level requests",
        make_pod(
            [container(cpu="500m", memory="500M")],
            [container(cpu="500m", memory="500M")],
            pod_requests_={"cpu": "1200m", "memory": "1200M"},
        ),
        (1200, 1_200_000_000),
    ),
    (
        "pod-level memory only fills in default cpu",
        make_pod([container()], [container()], pod_requests_={"memory": "1200M"}),
        (DEFAULT_MILLI_CPU_REQUEST, 1_200_000_000),
    ),
    (
        "pod-level cpu only fills in default memory",
        make_pod([container()], [container()], pod_requests_={"cpu": "500m"}),
        (500, DEFAULT_MEMORY_REQUEST),
    ),
    (
        "a deferred resize counts the larger request",
        make_pod(
            [container("c1", cpu="700m", memory="800M")],
            statuses=[status("c1", cpu="500m", memory="500M")],
            conditions=[DEFERRED],
        ),
        (700, 800_000_000),
    ),
    (
        "an infeasible resize counts what runs",
        make_pod(
            [container("c1", cpu="700m", memory="800M")],
            statuses=[status("c1", cpu="500m", memory="500M")],
            conditions=[INFEASIBLE],
        ),
        (500, 500_000_000),
    ),
]


@pytest.mark.parametrize(
    ("pod", "expected"), [c[1:] for c in NON_ZERO_CASES], ids=[c[0] for c in NON_ZERO_CASES]
)
def test_non_zero_requests_follow_calculate_resource(pod, expected):
    assert non_zero_requests(pod) == expected


def test_pod_level_set_checks_only_supported_resources():
    assert is_pod_level_requests_set(make_pod(pod_requests_={"cpu": "1"}))
    assert not is_pod_level_requests_set(make_pod(pod_requests_={"storage": "1"}))
    assert not is_pod_level_requests_set(make_pod())
    limits_only = Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"resources": {"limits": {"memory": "1Gi"}}},
        }
    )
    assert is_pod_level_resources_set(limits_only)
    # The API server defaults pod-level requests from the limits (defaultPodRequests).
    assert is_pod_level_requests_set(limits_only)
    limits_only.spec.resources.requests.clear()
    assert not is_pod_level_requests_set(limits_only)


@pytest.mark.parametrize(
    ("name", "supported"),
    [
        ("cpu", True),
        ("memory", True),
        ("hugepages-2Mi", True),
        ("ephemeral-storage", False),
        ("example.com/gpu", False),
    ],
    ids=["cpu", "memory", "hugepages", "ephemeral storage", "an extended resource"],
)
def test_supported_pod_level_resources(name, supported):
    assert is_supported_pod_level_resource(name) is supported


NAME_CASES = [
    # name, extended, native, prefixed native, hugepage, attachable, scalar, overcommit
    ("cpu", False, True, False, False, False, False, True),
    ("example.com/gpu", True, False, False, False, False, True, False),
    ("kubernetes.io/batteries", False, True, True, False, False, True, True),
    ("hugepages-2Mi", False, True, False, True, False, True, False),
    ("attachable-volumes-aws-ebs", False, True, False, False, True, True, True),
    ("requests.example.com/gpu", False, False, False, False, False, False, False),
    ("example.com/bad name", False, False, False, False, False, False, False),
]


@pytest.mark.parametrize(
    ("name", "extended", "native", "prefixed", "hugepage", "attachable", "scalar", "overcommit"),
    NAME_CASES,
    ids=[c[0] for c in NAME_CASES],
)
def test_resource_name_kinds(
    name, extended, native, prefixed, hugepage, attachable, scalar, overcommit
):
    assert is_extended_resource_name(name) is extended
    assert is_native_resource(name) is native
    assert is_prefixed_native_resource(name) is prefixed
    assert is_hugepage_resource_name(name) is hugepage
    assert is_attachable_volume_resource_name(name) is attachable
    assert is_scalar_resource_name(name) is scalar
    assert is_overcommit_allowed(name) is overcommit
