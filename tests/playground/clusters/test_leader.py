"""Leader election on a coordination.k8s.io Lease (client-go's semantics), against the test API
server (or a real cluster with PLAYGROUND_TEST_KUBECONFIG: the Lease lives in the test's
namespace). Each candidate has its own FakeClock: a Lease is judged by when *we* saw it
change, never by the times its holder wrote."""

from __future__ import annotations

import pytest

from framework.config.defaults import default_configuration, set_defaults
from framework.config.load import load_config
from framework.util.clock import FakeClock
from playground.clusters.leader import ElectionConfig, LeaderElector, micro_time

START = 1_800_000_000.25


@pytest.fixture
def candidates(kube_api):
    """``make()``: a new candidate for the test's Lease, with its own client and clock."""
    clients = []

    def make(identity: str) -> LeaderElector:
        client = kube_api.client()
        clients.append(client)
        config = ElectionConfig(namespace=kube_api.namespace)
        return LeaderElector(client, config, FakeClock(START), identity)

    yield make
    for client in clients:
        client.close()


def spec(kube_api) -> dict:
    return kube_api.get("Lease", "playground-scheduler", kube_api.namespace)["spec"]


def test_the_first_candidate_creates_the_lease_and_leads(kube_api, candidates):
    a = candidates("host-a_1")
    assert a.tick()
    assert spec(kube_api) == {
        "holderIdentity": "host-a_1",
        "leaseDurationSeconds": 15,
        "acquireTime": micro_time(START),
        "renewTime": micro_time(START),
        "leaseTransitions": 0,
    }
    assert micro_time(START) == "2027-01-15T08:00:00.250000Z"


def test_a_held_lease_is_taken_over_only_lease_duration_after_it_last_changed(kube_api, candidates):
    a, b = candidates("host-a_1"), candidates("host-b_2")
    assert a.tick()
    assert not b.tick() and b.holder() == "host-a_1"
    for _ in range(3):  # a renews; b sees the record change each time, on its own clock
        a.clock.step(2.0)
        b.clock.step(2.0)
        assert a.tick()
        assert not b.tick()
    # a stops renewing: b waits 15 s from when it last saw a change.
    b.clock.step(14.0)
    assert not b.tick()
    b.clock.step(2.0)
    assert b.tick()
    taken = spec(kube_api)
    assert taken["holderIdentity"] == "host-b_2" and taken["leaseTransitions"] == 1
    assert taken["acquireTime"] == micro_time(b.clock.now())
    # a's next renewal finds b's record: a is no longer the leader.
    a.clock.step(2.0)
    assert not a.tick()


def test_of_two_candidates_racing_for_a_free_lease_one_wins_the_other_gets_a_conflict(
    kube_api, candidates
):
    a, b = candidates("host-a_1"), candidates("host-b_2")
    first = candidates("host-0_0")
    assert first.tick()
    first.release()
    read = b._get

    def read_then_lose_the_race():
        lease = read()
        assert a.try_acquire_or_renew()  # a updates between b's get and b's update
        return lease

    b._get = read_then_lose_the_race
    assert not b.try_acquire_or_renew()
    assert b.error.startswith(f"{kube_api.namespace}/playground-scheduler: 409")
    assert spec(kube_api)["holderIdentity"] == "host-a_1"


def test_release_empties_the_holder_for_one_second_and_keeps_the_transitions(kube_api, candidates):
    a, b = candidates("host-a_1"), candidates("host-b_2")
    a.tick()
    a.clock.step(3.0)
    assert a.release()
    released = spec(kube_api)
    assert released == {
        "holderIdentity": "",
        "leaseDurationSeconds": 1,
        "acquireTime": micro_time(START + 3.0),
        "renewTime": micro_time(START + 3.0),
        "leaseTransitions": 0,
    }
    assert b.tick()  # no wait: nobody holds it
    assert spec(kube_api)["leaseTransitions"] == 1


def test_leadership_ends_when_renewals_fail_for_renew_deadline(kube_api, candidates):
    a = candidates("host-a_1")
    assert a.tick()
    kube_api.deny("update", "leases", group="coordination.k8s.io")
    a.clock.step(2.0)
    assert a.tick()  # the renewal failed, but the deadline has not passed
    assert a.error.startswith(f"{kube_api.namespace}/playground-scheduler: 403 Forbidden")
    a.clock.step(9.9)
    assert a.tick()
    a.clock.step(0.1)
    assert not a.tick()


def test_the_configuration_names_the_lease_and_its_durations():
    defaults = ElectionConfig.from_configuration(default_configuration())
    assert defaults == ElectionConfig("kube-system", "playground-scheduler", 15.0, 10.0, 2.0)
    cfg = set_defaults(
        load_config(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "leaderElection:\n  resourceNamespace: tools\n  resourceName: mine\n"
            "  leaseDuration: 30s\n  renewDeadline: 20s\n  retryPeriod: 5s\n"
        )
    )
    assert ElectionConfig.from_configuration(cfg) == ElectionConfig("tools", "mine", 30, 20, 5)
