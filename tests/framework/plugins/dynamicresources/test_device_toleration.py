"""Device tolerations: upstream's resourceclaim/devicetoleration_test.go, case by case.

Device taints and tolerations are read into the core Taint and Toleration types, whose
matching is the same as upstream's ``resourceclaim.ToleratesTaint`` (no Gt/Lt for devices).
"""

from __future__ import annotations

import pytest

from framework.api.taints import Taint, Toleration

CASES = [
    (
        "toleration and taint have the same key and effect, and operator is Exists, and taint"
        " has no value, expect tolerated",
        Toleration(key="foo", operator="Exists", effect="NoSchedule"),
        Taint(key="foo", effect="NoSchedule"),
        True,
    ),
    (
        "toleration and taint have the same key and effect, and operator is Exists, and taint"
        " has some value, expect tolerated",
        Toleration(key="foo", operator="Exists", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoSchedule"),
        True,
    ),
    (
        "toleration and taint have the same effect, toleration has empty key and operator is"
        " Exists, means match all taints, expect tolerated",
        Toleration(key="", operator="Exists", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoSchedule"),
        True,
    ),
    (
        "toleration and taint have the same key, effect and value, and operator is Equal,"
        " expect tolerated",
        Toleration(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoSchedule"),
        True,
    ),
    (
        "toleration and taint have the same key and effect, but different values, and operator"
        " is Equal, expect not tolerated",
        Toleration(key="foo", operator="Equal", value="value1", effect="NoSchedule"),
        Taint(key="foo", value="value2", effect="NoSchedule"),
        False,
    ),
    (
        "toleration and taint have the same key and value, but different effects, and operator"
        " is Equal, expect not tolerated",
        Toleration(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoExecute"),
        False,
    ),
]


@pytest.mark.parametrize(
    ("toleration", "taint", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_toleration_tolerates_taint(toleration: Toleration, taint: Taint, expected: bool) -> None:
    assert toleration.tolerates(taint) is expected
