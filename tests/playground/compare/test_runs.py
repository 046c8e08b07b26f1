"""A comparison's run without Celery: the phase tasks called in turn (``dispatch`` keeps them),
their rows' states, the report, the traces of the differing pods, cancels, and a workspace
left exactly as it was."""

from __future__ import annotations

import pytest
from django.apps import apps

from playground.compare import runs
from playground.compare.inputs import workspace_text
from playground.compare.models import (
    CANCELLED,
    DONE,
    FAILED,
    QUEUED,
    WORKSPACE,
    Comparison,
    ComparisonVariant,
)
from tests.playground.compare.scenario import (
    BIN_PACKING,
    PENDING,
    SPREADING,
    Tasks,
    packing_cluster,
)

BROKEN = BIN_PACKING.replace("MostAllocated", "Sideways")
"""A scoring strategy NodeResourcesFit does not know."""


@pytest.fixture
def tasks():
    return Tasks()


def make_comparison(workspace, *configs: tuple[str, str]) -> Comparison:
    comparison = Comparison.objects.create(
        workspace=workspace,
        source=WORKSPACE,
        source_label="the workspace",
        inputs_text=workspace_text(workspace),
    )
    for index, (name, text) in enumerate(configs):
        ComparisonVariant.objects.create(
            comparison=comparison, index=index, name=name, config_text=text
        )
    return comparison


@pytest.fixture
def comparison(cluster, workspace):
    packing_cluster(cluster)
    return make_comparison(workspace, ("packing", BIN_PACKING), ("spreading", SPREADING))


def start(comparison, tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        runs.start(comparison, tasks)


def row_counts() -> dict[str, int]:
    return {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label != "compare"
    }


def test_both_variants_run_then_the_differing_pods_are_traced(
    comparison, tasks, django_capture_on_commit_callbacks
):
    start(comparison, tasks, django_capture_on_commit_callbacks)
    assert [phase for phase, _ in tasks.sent] == [1, 1]
    tasks.run_all(django_capture_on_commit_callbacks)
    comparison.refresh_from_db()
    assert (comparison.state, comparison.phase) == (DONE, 3)
    packing, spreading = comparison.variants.all()
    assert (packing.state, packing.trace_state, packing.worker) == (DONE, DONE, "test")
    assert packing.settled == packing.total == PENDING
    assert set(packing.result["placements"].values()) == {"node-1"}
    assert len(set(spreading.result["placements"].values())) == 3
    report = comparison.report
    assert [v["name"] for v in report["variants"]] == ["packing", "spreading"]
    assert report["differences"]["count"] == PENDING
    assert report["better"]["utilization.emptyNodes"] == "packing"
    assert report["better"]["utilization.cpu.max"] == "spreading"
    differing = runs.differing_pods(report)
    assert set(packing.attempts) == set(spreading.attempts) == set(differing)
    attempt = spreading.pod_attempts(differing[0])[0]
    assert attempt["node"] == spreading.result["placements"][differing[0]]
    assert attempt["events"], "a differing pod's attempt keeps its trace events"


def test_nothing_in_the_workspace_changes(comparison, tasks, django_capture_on_commit_callbacks):
    before_rows = row_counts()
    before_text = workspace_text(comparison.workspace)
    start(comparison, tasks, django_capture_on_commit_callbacks)
    tasks.run_all(django_capture_on_commit_callbacks)
    assert Comparison.objects.get().state == DONE
    assert row_counts() == before_rows
    assert workspace_text(comparison.workspace) == before_text


def test_two_equal_variants_end_without_a_trace_phase(
    cluster, workspace, tasks, django_capture_on_commit_callbacks
):
    packing_cluster(cluster)
    comparison = make_comparison(workspace, ("a", BIN_PACKING), ("b", BIN_PACKING))
    start(comparison, tasks, django_capture_on_commit_callbacks)
    outcomes = tasks.run_all(django_capture_on_commit_callbacks)
    assert outcomes == ["variant a done", "variant b done"]
    comparison.refresh_from_db()
    assert comparison.state == DONE and comparison.report["differences"]["count"] == 0
    assert set(comparison.variants.values_list("trace_state", flat=True)) == {""}


def test_a_cancelled_variant_is_left_out_and_the_others_compared(
    cluster, workspace, tasks, django_capture_on_commit_callbacks
):
    packing_cluster(cluster)
    comparison = make_comparison(
        workspace, ("packing", BIN_PACKING), ("spreading", SPREADING), ("again", BIN_PACKING)
    )
    start(comparison, tasks, django_capture_on_commit_callbacks)
    third = comparison.variants.get(index=2)
    assert runs.cancel_variant(third, tasks)
    outcomes = tasks.run_all(django_capture_on_commit_callbacks)
    assert "variant again was not queued" in outcomes
    comparison.refresh_from_db()
    assert comparison.state == DONE
    assert [v["name"] for v in comparison.report["variants"]] == ["packing", "spreading"]
    assert comparison.variants.get(index=2).state == CANCELLED


def test_a_running_variant_stops_when_its_row_is_cancelled(
    cluster, workspace, tasks, monkeypatch, django_capture_on_commit_callbacks
):
    packing_cluster(cluster, pending=20)
    comparison = make_comparison(workspace, ("packing", BIN_PACKING), ("spreading", SPREADING))
    start(comparison, tasks, django_capture_on_commit_callbacks)
    monkeypatch.setattr(runs, "STOP_POLL_SECONDS", 0.0)
    monkeypatch.setattr(runs, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr("framework.compare.variant.CHECK_EVERY_SECONDS", 0.0)  # every cycle
    first = comparison.variants.get(index=0)
    real_writer = runs._progress_writer

    def cancelling_writer(variant_id):
        write = real_writer(variant_id)

        def progress(settled, total):
            write(settled, total)
            if settled >= 2:  # the page's Cancel, while the variant runs
                ComparisonVariant.objects.filter(pk=first.pk).update(state=CANCELLED)

        return progress

    monkeypatch.setattr(runs, "_progress_writer", cancelling_writer)
    phase, variant_id = tasks.sent.pop(0)
    assert runs.run_phase(phase, variant_id, tasks) == "variant packing cancelled"
    first.refresh_from_db()
    assert first.state == CANCELLED and first.result is None
    assert first.settled < first.total or first.total == 0


def test_a_bad_configuration_fails_its_variant_with_the_engine_s_words(
    cluster, workspace, tasks, django_capture_on_commit_callbacks
):
    packing_cluster(cluster)
    comparison = make_comparison(workspace, ("packing", BIN_PACKING), ("broken", BROKEN))
    start(comparison, tasks, django_capture_on_commit_callbacks)
    tasks.run_all(django_capture_on_commit_callbacks)
    comparison.refresh_from_db()
    bad = comparison.variants.get(index=1)
    assert bad.state == FAILED and "scoringStrategy" in bad.error
    assert comparison.state == DONE
    assert [v["name"] for v in comparison.report["variants"]] == ["packing"]


def test_cancelling_the_comparison_stops_every_variant(
    comparison, tasks, django_capture_on_commit_callbacks
):
    start(comparison, tasks, django_capture_on_commit_callbacks)
    assert runs.cancel_comparison(comparison) == 2
    tasks.run_all()
    comparison.refresh_from_db()
    assert (comparison.state, comparison.phase, comparison.report) == (CANCELLED, 3, None)
    assert set(comparison.variants.values_list("state", flat=True)) == {CANCELLED}


def test_a_variant_claimed_twice_runs_once(comparison, tasks, django_capture_on_commit_callbacks):
    start(comparison, tasks, django_capture_on_commit_callbacks)
    phase, variant_id = tasks.sent[0]
    tasks.sent.append((phase, variant_id))  # a redelivered task
    outcomes = tasks.run_all(django_capture_on_commit_callbacks)
    assert outcomes.count("variant packing done") == 1
    assert outcomes.count("variant packing traced") == 1
    assert "variant packing was not queued" in outcomes


def test_every_variant_starts_queued(comparison):
    assert set(comparison.variants.values_list("state", flat=True)) == {QUEUED}


def test_only_the_first_differing_pods_are_traced(
    comparison, tasks, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(runs, "MAX_TRACED_PODS", 2)
    start(comparison, tasks, django_capture_on_commit_callbacks)
    tasks.run_all(django_capture_on_commit_callbacks)
    comparison.refresh_from_db()
    first_two = runs.differing_pods(comparison.report)[:2]
    assert comparison.report["differences"]["count"] == PENDING
    for variant in comparison.variants.all():
        assert sorted(variant.attempts) == sorted(first_two)


def test_with_no_variant_finished_the_comparison_fails_and_says_why(
    cluster, workspace, tasks, django_capture_on_commit_callbacks
):
    packing_cluster(cluster)
    comparison = make_comparison(workspace, ("broken", BROKEN), ("stopped", SPREADING))
    start(comparison, tasks, django_capture_on_commit_callbacks)
    runs.cancel_variant(comparison.variants.get(index=1), tasks)
    tasks.run_all(django_capture_on_commit_callbacks)
    comparison.refresh_from_db()
    assert (comparison.state, comparison.phase, comparison.report) == (FAILED, 3, None)
    assert comparison.error == "no variant finished: 1 failed, 1 cancelled"
