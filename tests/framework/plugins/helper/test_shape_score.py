"""The broken linear function of utilization shapes, from upstream's TestBrokenLinearFunction."""

from __future__ import annotations

import pytest

from framework.plugins.helper.shape_score import FunctionShapePoint, build_broken_linear_function

P = FunctionShapePoint

CASES = [
    (
        "an increasing shape is flat outside its points and truncates between them",
        [P(10, 1), P(90, 9)],
        [
            (-10, 1),
            (0, 1),
            (9, 1),
            (10, 1),
            (15, 1),
            (19, 1),
            (20, 2),
            (89, 8),
            (90, 9),
            (99, 9),
            (100, 9),
            (110, 9),
        ],
    ),
    (
        "a shape that rises then falls interpolates each segment",
        [P(0, 2), P(40, 10), P(100, 0)],
        [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
    ),
    (
        "a flat shape is constant",
        [P(0, 2), P(40, 2), P(100, 2)],
        [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
    ),
    (
        "a falling segment truncates toward zero like Go, not toward minus infinity",
        [P(0, 10), P(3, 0)],
        [(1, 7), (2, 4)],
    ),
]


@pytest.mark.parametrize(
    ("points", "assertions"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_it_interpolates_between_shape_points(points, assertions):
    function = build_broken_linear_function(points)

    assert [(p, function(p)) for p, _ in assertions] == assertions
