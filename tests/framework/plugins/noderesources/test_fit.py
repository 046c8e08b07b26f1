"""NodeResourcesFit PreFilter and Filter, ported from upstream's fit_test.go tables."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.device_class import DeviceClass
from framework.config.types import (
    LEAST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.noderesources.fit import (
    Fit,
    InsufficientResource,
    compute_pod_resource_request,
    fits_request,
)
from tests.framework.plugins.noderesources.builders import (
    EXTENDED_RESOURCE_A,
    EXTENDED_RESOURCE_B,
    EXTENDED_RESOURCE_DRA,
    HUGE_PAGE_RESOURCE_A,
    KUBERNETES_IO_RESOURCE_A,
    KUBERNETES_IO_RESOURCE_B,
    container,
    make_node,
    make_node_info,
    make_pod,
    resource_pod,
    sidecar,
)
from tests.framework.plugins.noderesources.builders import usage as U
from tests.framework.storage.builders import FakeHandle


def default_args(**kw: Any) -> NodeResourcesFitArgs:
    strategy = ScoringStrategy(
        type=LEAST_ALLOCATED, resources=[ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
    )
    return NodeResourcesFitArgs(scoring_strategy=strategy, **kw)


def pod(*usages: dict[str, str], init: tuple[dict[str, str], ...] = (), **kw: Any):
    """Containers from usages, init containers from ``init`` (upstream newResourceInitPod)."""
    return make_pod(
        containers=[container(u) for u in usages],
        init_containers=[container(u) for u in init],
        **kw,
    )


def reason(resource: str) -> str:
    return f"Insufficient {resource}"


def insufficient(name: str, requested: int, used: int, capacity: int, unresolvable=False):
    return InsufficientResource(name, reason(name), requested, used, capacity, unresolvable)


# cpu 10m, memory 20, 32 pods, 5 example.com/aaa, ephemeral storage 20, 5 hugepages-2Mi
NODE_CAPACITY = {
    "cpu": "10m",
    "memory": "20",
    "pods": "32",
    EXTENDED_RESOURCE_A: "5",
    "ephemeral-storage": "20",
    HUGE_PAGE_RESOURCE_A: "5",
}

EXT_A = {EXTENDED_RESOURCE_A: 0}
UNSCHED = Code.UNSCHEDULABLE
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE

ENOUGH_REQUESTS_CASES = [
    # (name, pod, pod on the node, args, features, want status, want insufficient resources)
    ("no resources requested always fits", make_pod(), [U(10, 20)], {}, {}, None, []),
    (
        "too many resources fails",
        pod(U(1, 1)),
        [U(10, 20)],
        {},
        {},
        Status(UNSCHED, reason("cpu"), reason("memory")),
        [insufficient("cpu", 1, 10, 10), insufficient("memory", 1, 20, 20)],
    ),
    (
        "too many resources fails due to init container cpu",
        pod(U(1, 1), init=(U(3, 1),)),
        [U(8, 19)],
        {},
        {},
        Status(UNSCHED, reason("cpu")),
        [insufficient("cpu", 3, 8, 10)],
    ),
    (
        "too many resources fails due to highest init container cpu",
        pod(U(1, 1), init=(U(3, 1), U(2, 1))),
        [U(8, 19)],
        {},
        {},
        Status(UNSCHED, reason("cpu")),
        [insufficient("cpu", 3, 8, 10)],
    ),
    (
        "too many resources fails due to init container memory",
        pod(U(1, 1), init=(U(1, 3),)),
        [U(9, 19)],
        {},
        {},
        Status(UNSCHED, reason("memory")),
        [insufficient("memory", 3, 19, 20)],
    ),
    (
        "too many resources fails due to highest init container memory",
        pod(U(1, 1), init=(U(1, 3), U(1, 2))),
        [U(9, 19)],
        {},
        {},
        Status(UNSCHED, reason("memory")),
        [insufficient("memory", 3, 19, 20)],
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        pod(U(1, 1), init=(U(1, 1),)),
        [U(9, 19)],
        {},
        {},
        None,
        [],
    ),
    (
        "multiple init containers fit because it's the max, not sum, of containers and init "
        "containers",
        pod(U(1, 1), init=(U(1, 1), U(1, 1))),
        [U(9, 19)],
        {},
        {},
        None,
        [],
    ),
    ("both resources fit", pod(U(1, 1)), [U(5, 5)], {}, {}, None, []),
    (
        "one resource memory fits",
        pod(U(2, 1)),
        [U(9, 5)],
        {},
        {},
        Status(UNSCHED, reason("cpu")),
        [insufficient("cpu", 2, 9, 10)],
    ),
    (
        "one resource cpu fits",
        pod(U(1, 2)),
        [U(5, 19)],
        {},
        {},
        Status(UNSCHED, reason("memory")),
        [insufficient("memory", 2, 19, 20)],
    ),
    ("equal edge case", pod(U(5, 1)), [U(5, 19)], {}, {}, None, []),
    (
        "equal edge case for init container",
        pod(U(4, 1), init=(U(5, 1),)),
        [U(5, 19)],
        {},
        {},
        None,
        [],
    ),
    (
        "extended resource fits",
        pod(U(scalars={EXTENDED_RESOURCE_A: 1})),
        [U()],
        {},
        {},
        None,
        [],
    ),
    (
        "extended resource fits for init container",
        pod(U(), init=(U(scalars={EXTENDED_RESOURCE_A: 1}),)),
        [U()],
        {},
        {},
        None,
        [],
    ),
    (
        "extended resource capacity enforced",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_A: 10})),
        [U(scalars=EXT_A)],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_A)),
        [insufficient(EXTENDED_RESOURCE_A, 10, 0, 5, True)],
    ),
    (
        "extended resource capacity enforced for init container",
        pod(U(), init=(U(1, 1, scalars={EXTENDED_RESOURCE_A: 10}),)),
        [U(scalars=EXT_A)],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_A)),
        [insufficient(EXTENDED_RESOURCE_A, 10, 0, 5, True)],
    ),
    (
        "extended resource allocatable enforced",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_A: 1})),
        [U(scalars={EXTENDED_RESOURCE_A: 5})],
        {},
        {},
        Status(UNSCHED, reason(EXTENDED_RESOURCE_A)),
        [insufficient(EXTENDED_RESOURCE_A, 1, 5, 5)],
    ),
    (
        "extended resource allocatable enforced for init container",
        pod(U(), init=(U(1, 1, scalars={EXTENDED_RESOURCE_A: 1}),)),
        [U(scalars={EXTENDED_RESOURCE_A: 5})],
        {},
        {},
        Status(UNSCHED, reason(EXTENDED_RESOURCE_A)),
        [insufficient(EXTENDED_RESOURCE_A, 1, 5, 5)],
    ),
    (
        "extended resource allocatable enforced for multiple containers",
        pod(
            U(1, 1, scalars={EXTENDED_RESOURCE_A: 3}),
            U(1, 1, scalars={EXTENDED_RESOURCE_A: 3}),
        ),
        [U(scalars={EXTENDED_RESOURCE_A: 2})],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_A)),
        [insufficient(EXTENDED_RESOURCE_A, 6, 2, 5, True)],
    ),
    (
        "extended resource allocatable admits multiple init containers",
        pod(
            U(),
            init=(
                U(1, 1, scalars={EXTENDED_RESOURCE_A: 3}),
                U(1, 1, scalars={EXTENDED_RESOURCE_A: 3}),
            ),
        ),
        [U(scalars={EXTENDED_RESOURCE_A: 2})],
        {},
        {},
        None,
        [],
    ),
    (
        "extended resource allocatable enforced for multiple init containers",
        pod(
            U(),
            init=(
                U(1, 1, scalars={EXTENDED_RESOURCE_A: 6}),
                U(1, 1, scalars={EXTENDED_RESOURCE_A: 3}),
            ),
        ),
        [U(scalars={EXTENDED_RESOURCE_A: 2})],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_A)),
        [insufficient(EXTENDED_RESOURCE_A, 6, 2, 5, True)],
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_B: 1})),
        [U()],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_B)),
        [insufficient(EXTENDED_RESOURCE_B, 1, 0, 0, True)],
    ),
    (
        "extended resource allocatable enforced for unknown resource for init container",
        pod(U(), init=(U(1, 1, scalars={EXTENDED_RESOURCE_B: 1}),)),
        [U()],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_B)),
        [insufficient(EXTENDED_RESOURCE_B, 1, 0, 0, True)],
    ),
    (
        "kubernetes.io resource capacity enforced",
        pod(U(1, 1, scalars={KUBERNETES_IO_RESOURCE_A: 10})),
        [U()],
        {},
        {},
        Status(UNRESOLVABLE, reason(KUBERNETES_IO_RESOURCE_A)),
        [insufficient(KUBERNETES_IO_RESOURCE_A, 10, 0, 0, True)],
    ),
    (
        "kubernetes.io resource capacity enforced for init container",
        pod(U(), init=(U(1, 1, scalars={KUBERNETES_IO_RESOURCE_B: 10}),)),
        [U()],
        {},
        {},
        Status(UNRESOLVABLE, reason(KUBERNETES_IO_RESOURCE_B)),
        [insufficient(KUBERNETES_IO_RESOURCE_B, 10, 0, 0, True)],
    ),
    (
        "hugepages resource capacity enforced",
        pod(U(1, 1, scalars={HUGE_PAGE_RESOURCE_A: 10})),
        [U(scalars={HUGE_PAGE_RESOURCE_A: 0})],
        {},
        {},
        Status(UNRESOLVABLE, reason(HUGE_PAGE_RESOURCE_A)),
        [insufficient(HUGE_PAGE_RESOURCE_A, 10, 0, 5, True)],
    ),
    (
        "hugepages resource capacity enforced for init container",
        pod(U(), init=(U(1, 1, scalars={HUGE_PAGE_RESOURCE_A: 10}),)),
        [U(scalars={HUGE_PAGE_RESOURCE_A: 0})],
        {},
        {},
        Status(UNRESOLVABLE, reason(HUGE_PAGE_RESOURCE_A)),
        [insufficient(HUGE_PAGE_RESOURCE_A, 10, 0, 5, True)],
    ),
    (
        "hugepages resource allocatable enforced for multiple containers",
        pod(
            U(1, 1, scalars={HUGE_PAGE_RESOURCE_A: 3}),
            U(1, 1, scalars={HUGE_PAGE_RESOURCE_A: 3}),
        ),
        [U(scalars={HUGE_PAGE_RESOURCE_A: 2})],
        {},
        {},
        Status(UNRESOLVABLE, reason(HUGE_PAGE_RESOURCE_A)),
        [insufficient(HUGE_PAGE_RESOURCE_A, 6, 2, 5, True)],
    ),
    (
        "skip checking ignored extended resource",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_B: 1})),
        [U()],
        {"ignored_resources": ["example.com/bbb"]},
        {},
        None,
        [],
    ),
    (
        "resources + pod overhead fits",
        pod(U(1, 1), overhead={"cpu": "3m", "memory": "13"}),
        [U(5, 5)],
        {},
        {},
        None,
        [],
    ),
    (
        "requests + overhead does not fit for memory",
        pod(U(1, 1), overhead={"cpu": "1m", "memory": "15"}),
        [U(5, 5)],
        {},
        {},
        Status(UNSCHED, reason("memory")),
        [insufficient("memory", 16, 5, 20)],
    ),
    (
        "skip checking ignored extended resource via resource groups",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_B: 1, KUBERNETES_IO_RESOURCE_A: 1})),
        [U()],
        {"ignored_resource_groups": ["example.com"]},
        {},
        Status(UNRESOLVABLE, reason(KUBERNETES_IO_RESOURCE_A)),
        [insufficient(KUBERNETES_IO_RESOURCE_A, 1, 0, 0, True)],
    ),
    (
        "skip checking extended resource request with quantity zero via resource groups",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_A: 0})),
        [U(scalars={EXTENDED_RESOURCE_A: 6})],
        {},
        {},
        None,
        [],
    ),
    (
        "skip checking resource request with quantity zero",
        pod(U(scalars={EXTENDED_RESOURCE_A: 1})),
        [U(20, 30, scalars={EXTENDED_RESOURCE_A: 1})],
        {},
        {"enable_pod_level_resources": True},
        None,
        [],
    ),
    (
        "both pod-level and container-level resources fit",
        pod(U(1, 1), pod_requests={"cpu": "1m", "memory": "2"}),
        [U(5, 5)],
        {},
        {"enable_pod_level_resources": True},
        None,
        [],
    ),
    (
        "pod-level cpu resource not fit",
        pod(U(1, 1), pod_requests={"cpu": "7m", "memory": "2"}),
        [U(5, 5)],
        {},
        {"enable_pod_level_resources": True},
        Status(UNSCHED, reason("cpu")),
        [insufficient("cpu", 7, 5, 10)],
    ),
    (
        "pod-level memory resource not fit",
        pod(U(1, 1), pod_requests={"cpu": "3m", "memory": "2"}),
        [U(5, 19)],
        {},
        {"enable_pod_level_resources": True},
        Status(UNSCHED, reason("memory")),
        [insufficient("memory", 2, 19, 20)],
    ),
    (
        "pod-level hugepages resource fit",
        make_pod(pod_requests={"cpu": "3m", "memory": "2", HUGE_PAGE_RESOURCE_A: "5"}),
        [],
        {},
        {"enable_pod_level_resources": True},
        None,
        [],
    ),
    (
        "both pod-level and container-level hugepages resource fit",
        pod(
            U(1, 1, scalars={HUGE_PAGE_RESOURCE_A: 3}),
            pod_requests={"cpu": "3m", "memory": "2", HUGE_PAGE_RESOURCE_A: "5"},
        ),
        [],
        {},
        {"enable_pod_level_resources": True},
        None,
        [],
    ),
    (
        "pod-level hugepages resource not fit",
        make_pod(pod_requests={"cpu": "3m", "memory": "2", HUGE_PAGE_RESOURCE_A: "10"}),
        [],
        {},
        {"enable_pod_level_resources": True},
        Status(UNRESOLVABLE, reason(HUGE_PAGE_RESOURCE_A)),
        [insufficient(HUGE_PAGE_RESOURCE_A, 10, 0, 5, True)],
    ),
    (
        "one pod-level cpu resource fits and all init and non-init containers resources fit",
        pod(U(1, 1), init=(U(1, 1),), pod_requests={"cpu": "3m", "memory": "2"}),
        [U(5, 19)],
        {},
        {"enable_pod_level_resources": True},
        Status(UNSCHED, reason("memory")),
        [insufficient("memory", 2, 19, 20)],
    ),
    (
        "extended resource backed by device plugin",
        pod(U(scalars={EXTENDED_RESOURCE_A: 1})),
        [U()],
        {},
        {"enable_dra_extended_resource": True},
        None,
        [],
    ),
    (
        "extended resource with DRA extended resources on and no device class is checked here",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_A: 1})),
        [U()],
        {},
        {"enable_dra_extended_resource": True},
        None,
        [],
    ),
    (
        "extended resource backed by DRA not enabled",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_DRA: 1})),
        [U()],
        {},
        {},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_DRA)),
        [insufficient(EXTENDED_RESOURCE_DRA, 1, 0, 0, True)],
    ),
    (
        "extended resource NOT backed by DRA",
        pod(U(1, 1, scalars={EXTENDED_RESOURCE_B: 1})),
        [U()],
        {},
        {"enable_dra_extended_resource": True},
        Status(UNRESOLVABLE, reason(EXTENDED_RESOURCE_B)),
        [insufficient(EXTENDED_RESOURCE_B, 1, 0, 0, True)],
    ),
    (
        "extended resource was backed by Device Plugin (Allocatable: 0), global cache",
        pod(U(scalars={EXTENDED_RESOURCE_A: 1})),
        [U(scalars=EXT_A)],
        {},
        {"enable_dra_extended_resource": True},
        None,
        [],
    ),
]


@pytest.mark.parametrize(
    ("pod", "node_pods", "args", "features", "want_status", "want_insufficient"),
    [case[1:] for case in ENOUGH_REQUESTS_CASES],
    ids=[case[0] for case in ENOUGH_REQUESTS_CASES],
)
def test_it_filters_nodes_by_what_they_have_left(
    pod, node_pods, args, features, want_status, want_insufficient
):
    node_info = make_node_info(make_node(capacity=NODE_CAPACITY), *map(resource_pod, node_pods))
    plugin = Fit(default_args(**args), None, Features(**features))
    state = CycleState()

    _, pre_filter_status = plugin.pre_filter(state, pod, [])
    assert pre_filter_status is None
    assert plugin.filter(state, pod, node_info) == want_status
    # The batch form says the same, also the second time (it remembers failures by amounts).
    for _ in range(2):
        batch = plugin.filter_nodes(state, pod, [node_info, node_info.clone()])
        assert batch == [want_status, want_status]

    request = compute_pod_resource_request(pod, plugin.enable_pod_level_resources)
    got = fits_request(request, node_info, plugin.ignored_resources, plugin.ignored_resource_groups)
    assert got == want_insufficient


def test_it_reports_an_error_when_pre_filter_did_not_run():
    node_info = make_node_info(make_node())
    plugin = Fit(default_args(), None, Features())

    status = plugin.filter(CycleState(), make_pod(), node_info)

    assert status.code == Code.ERROR
    assert status.message() == (
        'error reading "PreFilterNodeResourcesFit" from cycleState: not found'
    )


NOT_ENOUGH_PODS_CASES = [
    (
        "even without specified resources, predicate fails when there's no space for "
        "additional pod",
        make_pod(),
        U(10, 20),
    ),
    (
        "even if both resources fit, predicate fails when there's no space for additional pod",
        pod(U(1, 1)),
        U(5, 5),
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod",
        pod(U(5, 1)),
        U(5, 19),
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod "
        "due to init container",
        pod(U(5, 1), init=(U(5, 1),)),
        U(5, 19),
    ),
]


@pytest.mark.parametrize(
    ("pod", "node_pod"),
    [case[1:] for case in NOT_ENOUGH_PODS_CASES],
    ids=[case[0] for case in NOT_ENOUGH_PODS_CASES],
)
def test_it_counts_pods_against_the_node_pod_capacity(pod, node_pod):
    node = make_node(capacity={"cpu": "10m", "memory": "20", "pods": "1"})
    node_info = make_node_info(node, resource_pod(node_pod))
    plugin = Fit(default_args(), None, Features())
    state = CycleState()
    plugin.pre_filter(state, pod, [])

    assert plugin.filter(state, pod, node_info) == Status(Code.UNSCHEDULABLE, "Too many pods")


def test_it_describes_a_full_node_in_insufficient_resource_details():
    node = make_node(capacity={"cpu": "10m", "memory": "20", "pods": "1"})
    node_info = make_node_info(node, resource_pod(U(5, 5)))

    got = fits_request(compute_pod_resource_request(make_pod()), node_info, (), ())

    assert got == [InsufficientResource("pods", "Too many pods", 1, 1, 1)]


STORAGE_CASES = [
    ("empty storage requested, and pod fits", pod(U(1, 1)), U(2, 10), None),
    (
        "storage ephemeral local storage request exceeds allocatable",
        pod(U(ephemeral_storage=25)),
        U(2, 2),
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason("ephemeral-storage")),
    ),
    (
        "ephemeral local storage is sufficient",
        pod(U(ephemeral_storage=5)),
        U(2, 2, ephemeral_storage=10),
        None,
    ),
    ("pod fits", pod(U(ephemeral_storage=10)), U(2, 2), None),
]


@pytest.mark.parametrize(
    ("pod", "node_pod", "want"),
    [case[1:] for case in STORAGE_CASES],
    ids=[case[0] for case in STORAGE_CASES],
)
def test_it_checks_ephemeral_storage(pod, node_pod, want):
    node_info = make_node_info(make_node(capacity=NODE_CAPACITY), resource_pod(node_pod))
    plugin = Fit(default_args(), None, Features())
    state = CycleState()
    plugin.pre_filter(state, pod, [])

    assert plugin.filter(state, pod, node_info) == want


def _pod_with_sidecar(request: dict[str, str] | None, sidecar_request: dict[str, str] | None):
    return make_pod(
        containers=[container(request, name="regular")],
        init_containers=[sidecar(sidecar_request)],
    )


RESTARTABLE_INIT_CASES = [
    (
        "allow pod without restartable init containers if sidecar containers is disabled",
        make_pod(containers=[container(name="regular")]),
        False,
        None,
        None,
    ),
    (
        "not allow pod with restartable init containers if sidecar containers is disabled",
        _pod_with_sidecar(None, None),
        False,
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "Pod has a restartable init container and the SidecarContainers feature is disabled",
        ),
        None,
    ),
    (
        "allow pod without restartable init containers if sidecar containers is enabled",
        make_pod(containers=[container(name="regular")]),
        True,
        None,
        None,
    ),
    (
        "allow pod with restartable init containers if sidecar containers is enabled",
        _pod_with_sidecar(None, None),
        True,
        None,
        None,
    ),
    (
        "allow pod if the total requested resources do not exceed the node's allocatable resources",
        _pod_with_sidecar({"cpu": "1m"}, {"cpu": "1m"}),
        True,
        None,
        None,
    ),
    (
        "not allow pod if the total requested resources do exceed the node's allocatable resources",
        _pod_with_sidecar({"cpu": "1m"}, {"cpu": "2m"}),
        True,
        None,
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason("cpu")),
    ),
]


@pytest.mark.parametrize(
    ("pod", "enable_sidecars", "want_pre_filter", "want_filter"),
    [case[1:] for case in RESTARTABLE_INIT_CASES],
    ids=[case[0] for case in RESTARTABLE_INIT_CASES],
)
def test_it_counts_sidecars_and_refuses_them_when_the_feature_is_off(
    pod, enable_sidecars, want_pre_filter, want_filter
):
    node = make_node(capacity={"cpu": "2m", "memory": "0", "pods": "1"})
    node_info = make_node_info(node)
    plugin = Fit(default_args(), None, Features(enable_sidecar_containers=enable_sidecars))
    state = CycleState()

    _, pre_filter_status = plugin.pre_filter(state, pod, [])

    assert pre_filter_status == want_pre_filter
    if pre_filter_status is None:
        assert plugin.filter(state, pod, node_info) == want_filter


def test_it_keeps_the_pod_requests_it_computed_at_pre_filter_across_clones():
    plugin = Fit(default_args(), None, Features())
    state = CycleState()
    pod = resource_pod(U(3, 5), U(2, 5))
    plugin.pre_filter(state, pod, [])

    copy = state.clone()
    request = copy.read("PreFilterNodeResourcesFit").request

    assert (request.milli_cpu, request.memory) == (5, 10)


# -- DRA extended resources (upstream TestEnoughRequests's DRAExtendedResource cases) ----------

DRA_RESOURCE = "extended.resource.dra.io/something"


def dra_fit(enabled: bool = True, with_class: bool = True) -> Fit:
    """Fit over a cluster where DeviceClass ``device-class-name`` maps DRA_RESOURCE."""
    classes = [
        DeviceClass.from_dict(
            {
                "metadata": {"name": "device-class-name"},
                "spec": {"extendedResourceName": DRA_RESOURCE},
            }
        )
    ]
    handle = FakeHandle(classes if with_class else [])
    return Fit(default_args(), handle, Features(enable_dra_extended_resource=enabled))


@pytest.mark.parametrize(
    ("enabled", "allocatable", "want"),
    [
        pytest.param(True, None, None, id="extended resource backed by DRA"),
        pytest.param(
            False,
            None,
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason(DRA_RESOURCE)),
            id="extended resource backed by DRA not enabled",
        ),
        pytest.param(
            True, "0", None, id="extended resource was backed by Device Plugin (Allocatable: 0)"
        ),
        pytest.param(
            True,
            "1",
            None,
            id="a device plugin serves it: Fit checks it (1 of 1 free)",
        ),
    ],
)
def test_it_leaves_dra_backed_extended_resources_to_dynamic_resources(enabled, allocatable, want):
    capacity = dict(NODE_CAPACITY)
    if allocatable is not None:
        capacity[DRA_RESOURCE] = allocatable
    node_info = make_node_info(make_node(capacity=capacity))
    the_pod = pod({"cpu": "1m", "memory": "1", DRA_RESOURCE: "1"})
    plugin = dra_fit(enabled)
    state = CycleState()
    assert plugin.pre_filter(state, the_pod, [])[1] is None
    assert plugin.filter(state, the_pod, node_info) == want


def test_a_device_plugin_resource_is_still_checked_when_a_class_maps_it():
    """Allocatable 1, used 1: the node's device plugin is full, DRA does not step in."""
    capacity = {**NODE_CAPACITY, DRA_RESOURCE: "1"}
    node_info = make_node_info(
        make_node(capacity=capacity), resource_pod({DRA_RESOURCE: "1"}, node_name="node")
    )
    the_pod = pod({DRA_RESOURCE: "1"})
    plugin = dra_fit()
    state = CycleState()
    plugin.pre_filter(state, the_pod, [])
    assert plugin.filter(state, the_pod, node_info) == Status(
        Code.UNSCHEDULABLE, reason(DRA_RESOURCE)
    )


def test_extended_resource_not_backed_by_dra():
    node_info = make_node_info(make_node(capacity=NODE_CAPACITY))
    the_pod = pod({"example.com/bbb": "1"})
    plugin = dra_fit()
    state = CycleState()
    plugin.pre_filter(state, the_pod, [])
    assert plugin.filter(state, the_pod, node_info) == Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason("example.com/bbb")
    )


def test_pods_with_dra_backed_resources_are_not_signed():
    plugin = dra_fit()
    assert plugin.sign_pod(pod({DRA_RESOURCE: "1"})) == (
        None,
        Status(
            Code.UNSCHEDULABLE,
            "signature disabled when dra extended resources are used in the cluster",
        ),
    )
    fragments, status = dra_fit(with_class=False).sign_pod(pod({DRA_RESOURCE: "1"}))
    assert status is None and fragments
