"""The batch cache's durations, the async preemption's goroutine metrics and the DRA
binding-condition wait's metrics."""

from __future__ import annotations

from framework import metrics as m
from framework.api.resource_claim import ResourceClaim
from framework.simulator import Simulation
from tests.framework.plugins.dynamicresources.test_binding_conditions import (
    DEVICE_CLASS,
    DRIVER,
    DRIVER_2,
    bound_claim,
    fabric_slice,
    plugin,
    second_claim,
    two_claims_pod,
)
from tests.framework.plugins.dynamicresources.test_claims import claim_manifest, pod, run
from tests.framework.test_metrics import node, simulate
from tests.framework.test_metrics import pod as pod_manifest
from tests.framework.test_opportunistic_batching import (
    BATCHABLE_CONFIG,
    OFF,
    ON,
    batchable_objects,
)

PROFILE = "default-scheduler"


def counts(metrics: m.Metrics, name: str) -> dict[tuple[tuple[str, str], ...], int]:
    return {labels: h.count for labels, h in metrics.histograms(name).items()}


def test_each_cycle_asks_for_a_hint_and_each_placement_stores_its_ranking():
    simulation = Simulation(BATCHABLE_CONFIG, batchable_objects(nodes=6, pods=8), features=ON)
    simulation.run()
    # The first pod has no ranking to use; the next five take hints; the ranking is then used
    # up, and the last two fit nowhere.
    assert counts(simulation.metrics, m.GET_NODE_HINT_DURATION_SECONDS) == {
        (("hinted", "hint"), ("profile", PROFILE)): 5,
        (("hinted", "no_hint"), ("profile", PROFILE)): 3,
    }
    assert counts(simulation.metrics, m.STORE_SCHEDULE_RESULTS_DURATION_SECONDS) == {
        (("profile", PROFILE),): 6
    }


def test_without_the_gate_the_batch_cache_is_not_timed():
    simulation = Simulation(BATCHABLE_CONFIG, batchable_objects(nodes=2, pods=2), features=OFF)
    simulation.run()
    assert simulation.metrics.histograms(m.GET_NODE_HINT_DURATION_SECONDS) == {}


def test_an_async_preemption_counts_one_goroutine_as_upstream_records_it():
    metrics = simulate(
        node("n1", "2"),
        pod_manifest("low1", "1", on="n1"),
        pod_manifest("low2", "1", on="n1"),
        pod_manifest("high", "2", priority=100),
    )
    assert metrics.series(m.PREEMPTION_GOROUTINES_EXECUTION_TOTAL) == {(("result", "success"),): 1}
    duration = metrics.histogram(m.PREEMPTION_GOROUTINES_DURATION_SECONDS, result="success")
    # Go evaluates the deferred observation's argument when the goroutine starts.
    assert duration is not None and duration.count == 1 and duration.counts[0] == 1


def test_no_preemption_no_goroutine():
    metrics = simulate(node("n1", "2"), pod_manifest("a", "1"))
    assert metrics.series(m.PREEMPTION_GOROUTINES_EXECUTION_TOTAL) == {}


def binding(metrics: m.Metrics) -> tuple[dict, dict]:
    allocations = {
        (dict(k)["driver"], dict(k)["status"]): v
        for k, v in metrics.series(m.DRA_BINDINGCONDITIONS_ALLOCATIONS_TOTAL).items()
    }
    waits = {
        (dict(k)["driver"], dict(k)["status"]): h.count
        for k, h in metrics.histograms(m.DRA_BINDINGCONDITIONS_WAIT_DURATION_SECONDS).items()
    }
    return allocations, waits


def test_a_wait_that_times_out_counts_its_device_as_timeout():
    pl = plugin([ResourceClaim.from_dict(claim_manifest()), DEVICE_CLASS, fabric_slice()])
    run(pl, pod())
    assert binding(pl.handle.metrics) == ({(DRIVER, "timeout"): 1}, {(DRIVER, "timeout"): 1})
    assert all(
        dict(k)["profile"] == PROFILE
        for k in pl.handle.metrics.series(m.DRA_BINDINGCONDITIONS_ALLOCATIONS_TOTAL)
    )


def test_claims_ready_for_binding_count_each_driver_as_success():
    objects = [bound_claim(), second_claim(bound_claim), fabric_slice(), fabric_slice(DRIVER_2)]
    pl = plugin([*objects, DEVICE_CLASS])
    assert run(pl, two_claims_pod())["pre_bind"] is None
    success = {(DRIVER, "success"): 1, (DRIVER_2, "success"): 1}
    assert binding(pl.handle.metrics) == (success, success)
