"""The storage capacity scorer against upstream's table (scorer_test.go)."""

from __future__ import annotations

import pytest

from framework.plugins.helper.shape_score import FunctionShapePoint
from framework.plugins.volumebinding.scorer import StorageResource, build_scorer_function

DEFAULT_SHAPE = [FunctionShapePoint(0, 0), FunctionShapePoint(100, 100)]
CUSTOM_SHAPE = [FunctionShapePoint(50, 0), FunctionShapePoint(80, 30), FunctionShapePoint(100, 50)]


def classes(*requested: int) -> dict[str, StorageResource]:
    """One class per requested amount, each out of a capacity of 100."""
    return {f"class-{i}": StorageResource(r, 100) for i, r in enumerate(requested)}


@pytest.mark.parametrize(
    ("shape", "requested", "want"),
    [
        (DEFAULT_SHAPE, (0,), 0),
        (DEFAULT_SHAPE, (30,), 30),
        (DEFAULT_SHAPE, (50,), 50),
        (DEFAULT_SHAPE, (100,), 100),
        (DEFAULT_SHAPE, (0, 0), 0),
        (DEFAULT_SHAPE, (0, 30), 15),
        (DEFAULT_SHAPE, (30, 30), 30),
        (DEFAULT_SHAPE, (30, 60), 45),
        (DEFAULT_SHAPE, (50, 50), 50),
        (DEFAULT_SHAPE, (50, 100), 75),
        (DEFAULT_SHAPE, (100, 100), 100),
        (CUSTOM_SHAPE, (0, 0), 0),
        (CUSTOM_SHAPE, (0, 30), 0),
        (CUSTOM_SHAPE, (30, 30), 0),
        (CUSTOM_SHAPE, (30, 60), 5),
        (CUSTOM_SHAPE, (50, 100), 25),
        (CUSTOM_SHAPE, (90, 90), 40),
        (CUSTOM_SHAPE, (100, 100), 50),
    ],
    ids=lambda value: str(value) if isinstance(value, tuple | int) else "",
)
def test_it_scores_like_upstream(shape, requested, want):
    assert build_scorer_function(shape)(classes(*requested)) == want


@pytest.mark.parametrize(
    ("resources", "want"),
    [
        ({}, 0),
        ({"a": StorageResource(10, 0)}, 100),
        ({"a": StorageResource(200, 100)}, 100),
        ({"a": StorageResource(1, 3), "b": StorageResource(0, 3)}, 17),
        ({"a": StorageResource(1, 2), "b": StorageResource(0, 1)}, 25),
    ],
    ids=[
        "no classes score zero",
        "no capacity scores as full",
        "more requested than available scores as full",
        "the average is rounded (16.5 up to 17)",
        "halves round away from zero as Go's math.Round",
    ],
)
def test_edge_cases(resources, want):
    assert build_scorer_function(DEFAULT_SHAPE)(resources) == want
