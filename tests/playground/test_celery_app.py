"""The Celery app's own settings of worker processes."""

from __future__ import annotations

import gc

import pytest

from playground.celery import GC_THRESHOLDS, collect_garbage_less_often


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_a_starting_worker_collects_garbage_less_often(thresholds):
    gc.set_threshold(700, 10, 10)

    collect_garbage_less_often()

    assert gc.get_threshold() == GC_THRESHOLDS
    assert GC_THRESHOLDS[0] > 700
