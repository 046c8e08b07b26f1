"""Running extension points: order, skip sets, stop rules and upstream's messages."""

from __future__ import annotations

import pytest

from framework import trace
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.interface.types import (
    NodeToStatus,
    NominatingInfo,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
)
from framework.metrics import PERMIT_WAIT_DURATION_SECONDS, Metrics
from framework.testing.fake_plugins import (
    FakeBind,
    FakeFilter,
    FakePermit,
    FakePostBind,
    FakePostFilter,
    FakePreBind,
    FakePreFilter,
    FakePreScore,
    FakeReserve,
    FakeScore,
)
from framework.util.clock import FakeClock
from tests.framework.builders import StaticLister, make_node_info, make_pod
from tests.framework.runtime.helpers import framework_of

S = Code.SUCCESS
E = Code.ERROR
U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
SKIP = Code.SKIP
WAIT = Code.WAIT


def nodes(*names: str):
    return [make_node_info(name) for name in names]


# ---------------------------------------------------------------------------------------------
# PreFilter


@pytest.mark.parametrize(
    ("plugins", "want_result", "want_status", "want_skipped"),
    [
        (
            [FakePreFilter("A"), FakePreFilter("B")],
            None,
            None,
            set(),
        ),
        (
            [FakePreFilter("A", result=PreFilterResult({"n1", "n2"})), FakePreFilter("B")],
            PreFilterResult({"n1", "n2"}),
            None,
            set(),
        ),
        (
            [
                FakePreFilter("A", result=PreFilterResult({"n1", "n2"})),
                FakePreFilter("B", result=PreFilterResult({"n2", "n3"})),
            ],
            PreFilterResult({"n2"}),
            None,
            set(),
        ),
        (
            [
                FakePreFilter("A", result=PreFilterResult({"n1"})),
                FakePreFilter("B", result=PreFilterResult({"n2"})),
            ],
            PreFilterResult(set()),
            Status(UU, "node(s) didn't satisfy plugin(s) [A B] simultaneously"),
            set(),
        ),
        (
            [FakePreFilter("A", result=PreFilterResult(set()))],
            PreFilterResult(set()),
            Status(UU, "node(s) didn't satisfy plugin A"),
            set(),
        ),
        (
            [FakePreFilter("A", code=SKIP), FakePreFilter("B")],
            None,
            None,
            {"A"},
        ),
        (
            [FakePreFilter("A", code=U, message="no"), FakePreFilter("B", code=SKIP)],
            None,
            Status(U, "no").with_plugin("A"),
            {"B"},
        ),
        (
            [FakePreFilter("A", code=UU, message="never"), FakePreFilter("B", code=SKIP)],
            None,
            Status(UU, "never").with_plugin("A"),
            set(),
        ),
        (
            [FakePreFilter("A", code=E, message="boom")],
            None,
            Status.error('running PreFilter plugin "A": boom').with_plugin("A"),
            set(),
        ),
    ],
    ids=[
        "no plugin narrows the nodes",
        "one plugin narrows the nodes",
        "results of several plugins are intersected",
        "an empty intersection names every narrowing plugin",
        "an empty result names the single narrowing plugin",
        "a skipping plugin is recorded for Filter",
        "Unschedulable is returned after the remaining plugins ran",
        "UnschedulableAndUnresolvable stops at once",
        "an error is wrapped with the plugin name",
    ],
)
def test_run_pre_filter_plugins(plugins, want_result, want_status, want_skipped):
    framework = framework_of(
        plugins,
        points={"pre_filter": [p.name for p in plugins]},
        snapshot_shared_lister=StaticLister(nodes("n1", "n2", "n3")),
    )
    state = CycleState()
    result, status, _ = framework.run_pre_filter_plugins(state, make_pod())
    assert result == want_result
    assert status == want_status
    if status is not None:
        assert status.plugin == want_status.plugin
    assert set(state.skip_filter_plugins) == want_skipped


def test_pre_filter_plugins_receive_every_node_of_the_snapshot():
    seen = []

    class Recording(FakePreFilter):
        def pre_filter(self, state, pod, node_infos):
            seen.extend(n.node_name for n in node_infos)
            return None, None

    framework = framework_of(
        [Recording("A")],
        points={"pre_filter": ["A"]},
        snapshot_shared_lister=StaticLister(nodes("n1", "n2")),
    )
    framework.run_pre_filter_plugins(CycleState(), make_pod())
    assert seen == ["n1", "n2"]


# ---------------------------------------------------------------------------------------------
# Filter


@pytest.mark.parametrize(
    ("plugins", "want", "want_calls"),
    [
        ([FakeFilter("A"), FakeFilter("B")], None, ["A", "B"]),
        (
            [FakeFilter("A", code=U, message="full"), FakeFilter("B")],
            Status(U, "full").with_plugin("A"),
            ["A"],
        ),
        (
            [FakeFilter("A"), FakeFilter("B", code=UU, message="never")],
            Status(UU, "never").with_plugin("B"),
            ["A", "B"],
        ),
        (
            [FakeFilter("A", code=E, message="boom"), FakeFilter("B")],
            Status.error('running "A" filter plugin: boom').with_plugin("A"),
            ["A"],
        ),
        (
            [FakeFilter("A", code=WAIT, message="odd")],
            Status.error('running "A" filter plugin: %!w(<nil>)').with_plugin("A"),
            ["A"],
        ),
    ],
    ids=[
        "all plugins pass",
        "the first rejection stops the node's filtering",
        "a later rejection is returned with its plugin",
        "an error is wrapped with the plugin name",
        "an unexpected code is turned into an error",
    ],
)
def test_run_filter_plugins(plugins, want, want_calls):
    calls: list = []
    for plugin in plugins:
        plugin.calls = calls
    framework = framework_of(plugins, points={"filter": [p.name for p in plugins]})
    status = framework.run_filter_plugins(CycleState(), make_pod(), make_node_info("n1"))
    assert status == want
    assert [name for name, _ in calls] == want_calls


def test_filter_plugins_skipped_at_pre_filter_do_not_run():
    filter_a = FakeFilter("A", code=U)
    framework = framework_of([filter_a], points={"filter": ["A"]})
    state = CycleState()
    state.skip_filter_plugins = {"A"}
    assert framework.run_filter_plugins(state, make_pod(), make_node_info("n1")) is None
    assert filter_a.num_calls == 0


class Nominator:
    def __init__(self, by_node):
        self.by_node = by_node

    def nominated_pods_for_node(self, name):
        return self.by_node.get(name, [])


def test_nominated_pods_of_higher_priority_are_counted_when_filtering():
    from framework.interface.node_info import PodInfo

    nominated = PodInfo(make_pod("big", priority=10))
    seen_pods = []

    class CountingFilter(FakeFilter):
        def filter(self, state, pod, node_info):
            seen_pods.append(len(node_info.pods))
            return None

    framework = framework_of(
        [CountingFilter("A"), FakePreFilter("PF")],
        points={"filter": ["A"], "pre_filter": ["PF"]},
        pod_nominator=Nominator({"n1": [nominated]}),
    )
    node_info = make_node_info("n1")
    status = framework.run_filter_plugins_with_nominated_pods(
        CycleState(), make_pod("low", priority=1), node_info
    )
    assert status is None
    assert seen_pods == [1, 0], "first with the nominated pod, then without it"
    assert node_info.pods == [], "the real NodeInfo is left untouched"


def test_nominated_pods_of_lower_priority_are_ignored():
    from framework.interface.node_info import PodInfo

    seen_pods = []

    class CountingFilter(FakeFilter):
        def filter(self, state, pod, node_info):
            seen_pods.append(len(node_info.pods))
            return None

    framework = framework_of(
        [CountingFilter("A")],
        points={"filter": ["A"]},
        pod_nominator=Nominator({"n1": [PodInfo(make_pod("small", priority=0))]}),
    )
    framework.run_filter_plugins_with_nominated_pods(
        CycleState(), make_pod("high", priority=5), make_node_info("n1")
    )
    assert seen_pods == [0]


# ---------------------------------------------------------------------------------------------
# PostFilter


@pytest.mark.parametrize(
    ("plugins", "want_result", "want_status"),
    [
        (
            [FakePostFilter("A", code=S, result=PostFilterResult(NominatingInfo("n1", 1)))],
            PostFilterResult(NominatingInfo("n1", NominatingMode.OVERRIDE)),
            Status(S),
        ),
        (
            [FakePostFilter("A", code=U, message="a"), FakePostFilter("B", code=S)],
            None,
            Status(S),
        ),
        (
            [FakePostFilter("A", code=UU, message="a"), FakePostFilter("B", code=S)],
            None,
            Status(UU, "a").with_plugin("A"),
        ),
        (
            [FakePostFilter("A", code=U, message="a"), FakePostFilter("B", code=U, message="b")],
            None,
            Status(U, "a", "b").with_plugin("A"),
        ),
        (
            [FakePostFilter("A", code=E, message="boom"), FakePostFilter("B", code=S)],
            None,
            Status.error("boom").with_plugin("A"),
        ),
    ],
    ids=[
        "a successful plugin's result is returned",
        "the first success stops the loop",
        "UnschedulableAndUnresolvable stops the loop",
        "all rejections are merged under the first rejector",
        "an error stops the loop",
    ],
)
def test_run_post_filter_plugins(plugins, want_result, want_status):
    framework = framework_of(plugins, points={"post_filter": [p.name for p in plugins]})
    result, status = framework.run_post_filter_plugins(CycleState(), make_pod(), NodeToStatus())
    assert result == want_result
    assert status == want_status


def test_post_filter_can_be_skipped_entirely():
    plugin = FakePostFilter("A", code=S)
    framework = framework_of([plugin], points={"post_filter": ["A"]})
    state = CycleState()
    state.skip_all_post_filter_plugins = True
    _, status = framework.run_post_filter_plugins(state, make_pod(), NodeToStatus())
    assert status == Status(U, "All PostFilter plugins are skipped")
    assert plugin.calls == []


# ---------------------------------------------------------------------------------------------
# PreScore and Score


def test_pre_score_skip_marks_score_plugins_to_skip():
    framework = framework_of(
        [FakePreScore("A", code=SKIP), FakePreScore("B")], points={"pre_score": ["A", "B"]}
    )
    state = CycleState()
    assert framework.run_pre_score_plugins(state, make_pod(), []) is None
    assert set(state.skip_score_plugins) == {"A"}


def test_pre_score_failure_is_wrapped():
    framework = framework_of(
        [FakePreScore("A", code=E, message="boom")], points={"pre_score": ["A"]}
    )
    status = framework.run_pre_score_plugins(CycleState(), make_pod(), [])
    assert status == Status.error('running PreScore plugin "A": boom')


def halve(scores):
    for entry in scores:
        entry.score //= 2
    return None


def test_scores_are_normalized_then_weighted_and_summed():
    framework = framework_of(
        [
            FakeScore("A", scores={"n1": 10, "n2": 40}),
            FakeScore("B", scores={"n1": 100, "n2": 50}, normalize=halve),
        ],
        points={"score": [("A", 3), ("B", 2)]},
    )
    result, status = framework.run_score_plugins(CycleState(), make_pod(), nodes("n1", "n2"))
    assert status is None
    summary = {n.name: ([(s.name, s.score) for s in n.scores], n.total_score) for n in result}
    assert summary == {
        "n1": ([("A", 30), ("B", 100)], 130),
        "n2": ([("A", 120), ("B", 50)], 170),
    }


def test_score_plugins_skipped_at_pre_score_do_not_run():
    skipped = FakeScore("A")
    framework = framework_of([skipped, FakeScore("B")], points={"score": ["A", "B"]})
    state = CycleState()
    state.skip_score_plugins = {"A"}
    result, _ = framework.run_score_plugins(state, make_pod(), nodes("n1"))
    assert [s.name for s in result[0].scores] == ["B"]
    assert skipped.calls == []


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        (
            FakeScore("A", code=E),
            'running Score plugins: plugin "A" failed with: injected',
        ),
        (
            FakeScore("A", normalize=lambda scores: Status(E, "bad")),
            'running Normalize on Score plugins: plugin "A" failed with: bad',
        ),
        (
            FakeScore("A", default=101),
            'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
            "score 101, it should in the range of [0, 100] after normalizing",
        ),
        (
            FakeScore("A", default=-1),
            'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
            "score -1, it should in the range of [0, 100] after normalizing",
        ),
    ],
    ids=[
        "a failing score plugin",
        "a failing normalize",
        "a score above the maximum",
        "a score below the minimum",
    ],
)
def test_score_failures_use_upstream_messages(plugin, message):
    framework = framework_of([plugin], points={"score": ["A"]})
    result, status = framework.run_score_plugins(CycleState(), make_pod(), nodes("n1"))
    assert result is None
    assert status == Status.error(message)


# ---------------------------------------------------------------------------------------------
# Reserve, Permit


def test_reserve_stops_at_the_first_failure_and_unreserve_runs_all_in_reverse():
    calls: list = []
    plugins = [
        FakeReserve("A", calls=calls),
        FakeReserve("B", code=U, message="taken", calls=calls),
        FakeReserve("C", calls=calls),
    ]
    framework = framework_of(plugins, points={"reserve": ["A", "B", "C"]})
    state, pod = CycleState(), make_pod()
    status = framework.run_reserve_plugins_reserve(state, pod, "n1")
    assert status == Status(U, "taken").with_plugin("B")
    framework.run_reserve_plugins_unreserve(state, pod, "n1")
    assert calls == [
        ("A", "Reserve"),
        ("B", "Reserve"),
        ("C", "Unreserve"),
        ("B", "Unreserve"),
        ("A", "Unreserve"),
    ]


def test_reserve_errors_are_wrapped():
    framework = framework_of([FakeReserve("A", code=E, message="x")], points={"reserve": ["A"]})
    status = framework.run_reserve_plugins_reserve(CycleState(), make_pod(), "n1")
    assert status == Status.error('running Reserve plugin "A": x')


@pytest.mark.parametrize(
    ("plugins", "want_waits", "want_status"),
    [
        ([FakePermit("A"), FakePermit("B")], None, None),
        (
            [FakePermit("A", code=WAIT, timeout=10), FakePermit("B", code=WAIT, timeout=3600)],
            {"A": 10, "B": 900},
            Status(WAIT, "one or more plugins asked to wait and no plugin rejected pod"),
        ),
        (
            [FakePermit("A", code=WAIT, timeout=10), FakePermit("B", code=U, message="no")],
            None,
            Status(U, "no").with_plugin("B"),
        ),
        (
            [FakePermit("A", code=E, message="boom")],
            None,
            Status.error('running Permit plugin "A": boom').with_plugin("A"),
        ),
    ],
    ids=[
        "all plugins allow",
        "waits are collected and capped at 15 minutes",
        "a rejection wins over waiting",
        "an error is wrapped",
    ],
)
def test_run_permit_plugins(plugins, want_waits, want_status):
    framework = framework_of(plugins, points={"permit": [p.name for p in plugins]})
    waits, status = framework.run_permit_plugins(CycleState(), make_pod(), "n1")
    assert waits == want_waits
    assert status == want_status


def waiting_framework(clock, metrics: Metrics | None = None):
    return framework_of(
        [FakePermit("A", code=WAIT, timeout=10), FakePermit("B", code=WAIT, timeout=20)],
        points={"permit": ["A", "B"]},
        clock=clock,
        metrics=metrics,
    )


def test_a_waiting_pod_proceeds_once_every_plugin_allowed():
    clock = FakeClock()
    framework = waiting_framework(clock)
    pod = make_pod()
    waits, _ = framework.run_permit_plugins(CycleState(), pod, "n1")
    waiting = framework.add_waiting_pod(pod, waits)
    assert sorted(framework.get_waiting_pod(pod.uid).get_pending_plugins()) == ["A", "B"]
    waiting.allow("A")
    assert waiting.outcome() is None
    waiting.allow("B")
    assert framework.wait_on_permit(pod) is None
    assert framework.get_waiting_pod(pod.uid) is None


def test_a_waiting_pod_is_rejected_when_its_plugin_times_out():
    clock = FakeClock()
    framework = waiting_framework(clock)
    pod = make_pod()
    waits, _ = framework.run_permit_plugins(CycleState(), pod, "n1")
    waiting = framework.add_waiting_pod(pod, waits)
    waiting.allow("B")
    clock.step(9.9)
    assert waiting.outcome() is None
    clock.step(0.1)
    status = framework.wait_on_permit(pod)
    assert status == Status(U, "rejected due to timeout after waiting 10s at plugin A").with_plugin(
        "A"
    )


def test_a_waiting_pod_rejected_by_hand_reports_the_rejecting_plugin():
    framework = waiting_framework(FakeClock())
    pod = make_pod()
    waits, _ = framework.run_permit_plugins(CycleState(), pod, "n1")
    waiting = framework.add_waiting_pod(pod, waits)
    assert waiting.reject("A", "not today") is True
    assert waiting.reject("B", "again") is False, "the first outcome wins"
    assert framework.wait_on_permit(pod) == Status(U, "not today").with_plugin("A")


def test_reject_waiting_pod_through_the_handle():
    framework = waiting_framework(FakeClock())
    pod = make_pod()
    waits, _ = framework.run_permit_plugins(CycleState(), pod, "n1")
    framework.add_waiting_pod(pod, waits)
    assert framework.reject_waiting_pod(pod.uid) is True
    assert framework.wait_on_permit(pod) == Status(U, "removed")


def test_a_preempted_waiting_pod_ends_with_an_error():
    framework = waiting_framework(FakeClock())
    pod = make_pod()
    waits, _ = framework.run_permit_plugins(CycleState(), pod, "n1")
    framework.add_waiting_pod(pod, waits).preempt("A", "preempted")
    status = framework.wait_on_permit(pod)
    assert status == Status.error("waiting on permit for pod: preempted").with_plugin("A")


# ---------------------------------------------------------------------------------------------
# Binding cycle


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        ([FakeBind("A", code=SKIP), FakeBind("B")], None),
        ([FakeBind("A", code=SKIP), FakeBind("B", code=SKIP)], Status(SKIP)),
        ([FakeBind("A", code=E, message="down"), FakeBind("B")], "wrapped"),
        ([FakeBind("A", code=U, message="no"), FakeBind("B")], Status(U, "no").with_plugin("A")),
    ],
    ids=[
        "a skipping binder passes the pod on",
        "when every binder skips the last skip is returned",
        "a binder error is wrapped",
        "a binder rejection names the binder",
    ],
)
def test_run_bind_plugins(plugins, want):
    framework = framework_of(plugins, points={"bind": [p.name for p in plugins]})
    status = framework.run_bind_plugins(CycleState(), make_pod(), "n1")
    if want == "wrapped":
        want = Status.error('running Bind plugin "A": down')
    assert status == want


def test_pre_bind_pre_flight_skips_plugins_without_work():
    calls: list = []
    plugins = [
        FakePreBind("A", pre_flight_code=SKIP, calls=calls),
        FakePreBind("B", calls=calls),
    ]
    framework = framework_of(plugins, points={"pre_bind": ["A", "B"]})
    state, pod = CycleState(), make_pod()
    assert framework.run_pre_bind_pre_flights(state, pod, "n1") is None
    assert framework.run_pre_bind_plugins(state, pod, "n1") is None
    assert [c for c in calls if c[1] == "PreBind"] == [("B", "PreBind")]


def test_pre_bind_pre_flight_returns_skip_when_no_plugin_has_work():
    framework = framework_of([FakePreBind("A", pre_flight_code=SKIP)], points={"pre_bind": ["A"]})
    assert framework.run_pre_bind_pre_flights(CycleState(), make_pod(), "n1") == Status(SKIP)


def test_pre_bind_pre_flight_rejects_unsupported_codes():
    framework = framework_of([FakePreBind("A", pre_flight_code=U)], points={"pre_bind": ["A"]})
    status = framework.run_pre_bind_pre_flights(CycleState(), make_pod(), "n1")
    assert status == Status.error(
        'PreBindPreFlight A returned "Unschedulable", which is unsupported. '
        "It is supposed to return Success, Skip, or Error status"
    )


def test_pre_bind_failure_is_wrapped():
    framework = framework_of([FakePreBind("A", code=E, message="io")], points={"pre_bind": ["A"]})
    state = CycleState()
    framework.run_pre_bind_pre_flights(state, make_pod(), "n1")
    status = framework.run_pre_bind_plugins(state, make_pod(), "n1")
    assert status == Status.error('running PreBind plugin "A": io')


def test_post_bind_runs_every_plugin():
    calls: list = []
    framework = framework_of(
        [FakePostBind("A", calls=calls), FakePostBind("B", calls=calls)],
        points={"post_bind": ["A", "B"]},
    )
    framework.run_post_bind_plugins(CycleState(), make_pod(), "n1")
    assert calls == [("A", "PostBind"), ("B", "PostBind")]


def test_the_permit_wait_is_timed_from_when_the_pod_began_to_wait(monkeypatch):
    """A scheduler waiting on a callback asks WaitOnPermit only once the outcome is known."""
    now = [100.0]
    monkeypatch.setattr(trace, "perf_counter", lambda: now[0])
    framework = waiting_framework(FakeClock(), Metrics())
    pod = make_pod()
    waits, _ = framework.run_permit_plugins(CycleState(), pod, "n1")
    waiting = framework.add_waiting_pod(pod, waits)
    now[0] += 3.5
    waiting.allow("A")
    waiting.allow("B")
    assert framework.wait_on_permit(pod) is None
    waited = framework.metrics.histogram(PERMIT_WAIT_DURATION_SECONDS, result="Success")
    assert (waited.count, waited.sum) == (1, 3.5)
