from __future__ import annotations

import pytest

from framework.features import DEFAULT_FEATURE_GATES, FeatureGateError, FeatureGates


@pytest.mark.parametrize(
    ("gate", "expected"),
    [
        ("DynamicResourceAllocation", True),
        ("NodeDeclaredFeatures", True),
        ("DRASchedulerFilterTimeout", True),
        ("DRADeviceBindingConditions", True),
        ("DRAResourceClaimDeviceStatus", True),
        ("SchedulerQueueingHints", True),
        ("SchedulerAsyncAPICalls", False),
        ("GangScheduling", False),
        ("GenericWorkload", False),
        ("TopologyAwareWorkloadScheduling", False),
        ("StorageCapacityScoring", False),
        ("TaintTolerationComparisonOperators", False),
        ("OpportunisticBatching", True),
        ("PodLevelResources", True),
    ],
    ids=lambda value: str(value),
)
def test_it_uses_the_v1_36_defaults(gate: str, expected: bool) -> None:
    assert DEFAULT_FEATURE_GATES.enabled(gate) is expected


def test_it_applies_overrides_without_changing_the_original() -> None:
    gates = DEFAULT_FEATURE_GATES.with_overrides({"StorageCapacityScoring": True})

    assert gates.enabled("StorageCapacityScoring") is True
    assert DEFAULT_FEATURE_GATES.enabled("StorageCapacityScoring") is False
    assert gates.overrides() == {"StorageCapacityScoring": True}


def test_overrides_accumulate() -> None:
    gates = FeatureGates({"GenericWorkload": True}).with_overrides({"GangScheduling": True})

    assert gates.enabled("GenericWorkload") and gates.enabled("GangScheduling")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"NoSuchGate": True}, "unrecognized feature gate: NoSuchGate"),
        (
            {"SchedulerQueueingHints": False},
            "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true",
        ),
        (
            {"GangScheduling": True},
            "GangScheduling is enabled, but depends on features that are disabled: "
            "[GenericWorkload]",
        ),
        (
            {"NodeDeclaredFeatures": False},
            "InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that "
            "are disabled: [NodeDeclaredFeatures]",
        ),
    ],
    ids=[
        "an unknown gate is an error",
        "a locked gate cannot change",
        "an enabled gate needs its dependencies",
        "disabling a dependency of a default-on gate is an error",
    ],
)
def test_it_rejects_bad_overrides(overrides: dict[str, bool], message: str) -> None:
    with pytest.raises(FeatureGateError) as info:
        FeatureGates(overrides)
    assert str(info.value) == message


def test_asking_for_an_unknown_gate_is_an_error() -> None:
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: Nope"):
        DEFAULT_FEATURE_GATES.enabled("Nope")


def test_it_parses_the_flag_syntax() -> None:
    gates = FeatureGates.from_string(
        "GenericWorkload=true, GangScheduling=T,StorageCapacityScoring=1"
    )

    assert gates.overrides() == {
        "GenericWorkload": True,
        "GangScheduling": True,
        "StorageCapacityScoring": True,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("GangScheduling", "missing bool value for GangScheduling"),
        (
            "GangScheduling=maybe",
            'invalid value of GangScheduling=maybe, err: strconv.ParseBool: parsing "maybe": '
            "invalid syntax",
        ),
    ],
    ids=["a gate without a value", "a value that is not a boolean"],
)
def test_it_rejects_bad_flag_text(text: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as info:
        FeatureGates.from_string(text)
    assert str(info.value) == message


def test_equal_gate_sets_compare_equal() -> None:
    assert FeatureGates({"StorageCapacityScoring": True}) == DEFAULT_FEATURE_GATES.with_overrides(
        {"StorageCapacityScoring": True}
    )
    assert FeatureGates() != FeatureGates({"StorageCapacityScoring": True})


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("", ""),
        ("SchedulerQueueingHints=true", ""),
        ("StorageCapacityScoring=false", ""),
        (
            " GangScheduling=T,GenericWorkload=1, OpportunisticBatching=False",
            "GangScheduling=true,GenericWorkload=true,OpportunisticBatching=false",
        ),
    ],
    ids=[
        "the defaults",
        "a locked gate at its value",
        "a gate set to its default",
        "overrides in any spelling",
    ],
)
def test_to_string_writes_only_the_overrides_by_name(text: str, written: str) -> None:
    gates = FeatureGates.from_string(text)

    assert gates.to_string() == written
    assert FeatureGates.from_string(written) == gates
