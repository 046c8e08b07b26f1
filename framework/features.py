"""Feature gates that change what kube-scheduler v1.36 does, with their v1.36 defaults.

The defaults are the v1.36 entries of upstream's versioned feature specs
(``pkg/features/kube_features.go``). Only gates the scheduler, its configuration or its
plugins read are listed; naming any other gate is an error, so a typo never passes silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

ALPHA = "Alpha"
BETA = "Beta"
GA = "GA"


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """A gate's default, maturity and whether it may be changed at all (LockToDefault)."""

    default: bool
    pre_release: str
    locked: bool = False


_SPECS: dict[str, FeatureSpec] = {
    "DRAAdminAccess": FeatureSpec(True, GA, locked=True),
    "DRAConsumableCapacity": FeatureSpec(True, BETA),
    "DRADeviceBindingConditions": FeatureSpec(True, BETA),
    "DRADeviceTaintRules": FeatureSpec(False, BETA),
    "DRADeviceTaints": FeatureSpec(True, BETA),
    "DRAExtendedResource": FeatureSpec(True, BETA),
    "DRAListTypeAttributes": FeatureSpec(False, ALPHA),
    "DRANodeAllocatableResources": FeatureSpec(False, ALPHA),
    "DRAPartitionableDevices": FeatureSpec(True, BETA),
    "DRAPrioritizedList": FeatureSpec(True, GA),
    "DRAResourceClaimDeviceStatus": FeatureSpec(True, BETA),
    "DRASchedulerFilterTimeout": FeatureSpec(True, BETA),
    "DRAWorkloadResourceClaims": FeatureSpec(False, ALPHA),
    "DynamicResourceAllocation": FeatureSpec(True, GA, locked=True),
    "GangScheduling": FeatureSpec(False, ALPHA),
    "GenericWorkload": FeatureSpec(False, ALPHA),
    "InPlacePodLevelResourcesVerticalScaling": FeatureSpec(True, BETA),
    "InPlacePodVerticalScaling": FeatureSpec(True, GA, locked=True),
    "MatchLabelKeysInPodTopologySpread": FeatureSpec(True, BETA),
    "NodeDeclaredFeatures": FeatureSpec(True, BETA),
    "NodeInclusionPolicyInPodTopologySpread": FeatureSpec(True, GA, locked=True),
    "NominatedNodeNameForExpectation": FeatureSpec(True, BETA),
    "OpportunisticBatching": FeatureSpec(True, BETA),
    "PodLevelResources": FeatureSpec(True, BETA),
    "SchedulerAsyncAPICalls": FeatureSpec(False, BETA),
    "SchedulerAsyncPreemption": FeatureSpec(True, BETA),
    "SchedulerPopFromBackoffQ": FeatureSpec(True, BETA),
    "SchedulerQueueingHints": FeatureSpec(True, GA, locked=True),
    "SidecarContainers": FeatureSpec(True, GA, locked=True),
    "StorageCapacityScoring": FeatureSpec(False, ALPHA),
    "TaintTolerationComparisonOperators": FeatureSpec(False, ALPHA),
    "TopologyAwareWorkloadScheduling": FeatureSpec(False, ALPHA),
    "VolumeAttributesClass": FeatureSpec(True, GA, locked=True),
    "VolumeLimitScaling": FeatureSpec(False, ALPHA),
    "WorkloadAwarePreemption": FeatureSpec(False, ALPHA),
}

FEATURE_SPECS: Mapping[str, FeatureSpec] = MappingProxyType(_SPECS)
"""Every known gate by name."""

# Upstream refuses to start when an enabled gate needs a disabled one (only edges between
# gates listed above are kept).
_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "DRAAdminAccess": ("DynamicResourceAllocation",),
    "DRAConsumableCapacity": ("DynamicResourceAllocation",),
    "DRADeviceBindingConditions": ("DynamicResourceAllocation", "DRAResourceClaimDeviceStatus"),
    "DRADeviceTaintRules": ("DRADeviceTaints",),
    "DRADeviceTaints": ("DynamicResourceAllocation",),
    "DRAExtendedResource": ("DynamicResourceAllocation",),
    "DRAListTypeAttributes": ("DynamicResourceAllocation",),
    "DRANodeAllocatableResources": ("DynamicResourceAllocation",),
    "DRAPartitionableDevices": ("DynamicResourceAllocation",),
    "DRAPrioritizedList": ("DynamicResourceAllocation",),
    "DRASchedulerFilterTimeout": ("DynamicResourceAllocation",),
    "DRAWorkloadResourceClaims": ("DynamicResourceAllocation", "GenericWorkload"),
    "GangScheduling": ("GenericWorkload",),
    "InPlacePodLevelResourcesVerticalScaling": (
        "InPlacePodVerticalScaling",
        "PodLevelResources",
        "NodeDeclaredFeatures",
    ),
    "TopologyAwareWorkloadScheduling": ("GenericWorkload",),
    "WorkloadAwarePreemption": ("GangScheduling",),
}


class FeatureGateError(ValueError):
    """An unknown gate, a locked gate changed, a bad ``--feature-gates`` value or a missing
    dependency; several problems are reported together, one per line."""


class FeatureGates:
    """An immutable set of gate values: the v1.36 defaults plus any overrides."""

    __slots__ = ("_enabled",)

    def __init__(self, overrides: Mapping[str, bool] | None = None) -> None:
        enabled = {name: spec.default for name, spec in _SPECS.items()}
        problems = _apply(enabled, overrides or {})
        if problems:
            raise FeatureGateError("\n".join(problems))
        self._enabled: Mapping[str, bool] = MappingProxyType(enabled)

    def enabled(self, name: str) -> bool:
        """Whether the gate is on; asking for a gate that does not exist is a programming error."""
        try:
            return self._enabled[name]
        except KeyError:
            raise FeatureGateError(f"unrecognized feature gate: {name}") from None

    def with_overrides(self, overrides: Mapping[str, bool]) -> FeatureGates:
        """A new set: these gates' values, given as overrides of the defaults, on top of ours."""
        return FeatureGates({**self.overrides(), **overrides})

    def overrides(self) -> dict[str, bool]:
        """The gates whose value differs from the v1.36 default."""
        return {n: v for n, v in self._enabled.items() if v != _SPECS[n].default}

    def as_dict(self) -> dict[str, bool]:
        return dict(self._enabled)

    def __reduce__(self) -> tuple[type[FeatureGates], tuple[dict[str, bool]]]:
        # Pickled as its overrides (a comparison sends its inputs to worker processes); the
        # read-only mapping it keeps cannot be pickled.
        return (type(self), (self.overrides(),))

    @classmethod
    def from_string(cls, text: str) -> FeatureGates:
        """Parses the ``--feature-gates`` flag syntax: ``A=true,B=false``."""
        overrides: dict[str, bool] = {}
        for item in text.split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, value = item.partition("=")
            name = name.strip()
            if not sep:
                raise FeatureGateError(f"missing bool value for {name}")
            parsed = _parse_go_bool(value.strip())
            if parsed is None:
                raise FeatureGateError(
                    f"invalid value of {name}={value.strip()}, err: "
                    f'strconv.ParseBool: parsing "{value.strip()}": invalid syntax'
                )
            overrides[name] = parsed
        return cls(overrides)

    def to_string(self) -> str:
        """The shortest ``--feature-gates`` value that gives these gates: the overrides, by
        name (``""`` for the defaults); ``from_string`` reads it back."""
        return ",".join(
            f"{name}={_go_bool(value)}" for name, value in sorted(self.overrides().items())
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FeatureGates) and self._enabled == other._enabled

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._enabled.items())))

    def __repr__(self) -> str:
        return f"FeatureGates({self.overrides()!r})"


def _apply(enabled: dict[str, bool], overrides: Mapping[str, bool]) -> list[str]:
    problems = []
    for name, value in overrides.items():
        spec = _SPECS.get(name)
        if spec is None:
            problems.append(f"unrecognized feature gate: {name}")
        elif spec.locked and value != spec.default:
            problems.append(
                f"cannot set feature gate {name} to {_go_bool(value)}, "
                f"feature is locked to {_go_bool(spec.default)}"
            )
        else:
            enabled[name] = bool(value)
    if problems:
        return problems
    for name in sorted(_DEPENDENCIES):
        if not enabled[name]:
            continue
        missing = [dep for dep in _DEPENDENCIES[name] if not enabled[dep]]
        if missing:
            problems.append(
                f"{name} is enabled, but depends on features that are disabled: "
                f"[{' '.join(missing)}]"
            )
    return problems


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


def _parse_go_bool(text: str) -> bool | None:
    """strconv.ParseBool's accepted spellings."""
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    return None


DEFAULT_FEATURE_GATES = FeatureGates()
"""The gates as kube-scheduler v1.36 starts without ``--feature-gates``."""
