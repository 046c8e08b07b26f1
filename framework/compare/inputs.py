"""What every variant of a comparison schedules: the objects, and optionally a recording's
stream of changes after them (``framework.compare.recording``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from framework.compare.recording import Change, read_recording
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates


@dataclass(frozen=True)
class CompareInputs:
    """The cluster every variant starts from and what happens to it afterwards."""

    objects_text: str
    changes: tuple[Change, ...] | list[Change] = ()
    seed: int = 0
    features: FeatureGates = field(default=DEFAULT_FEATURE_GATES)


def inputs_from_recording(
    text: str, seed: int = 0, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> CompareInputs:
    """Inputs whose objects are the recording's snapshot (its leading ``t == 0`` ADDED lines)
    and whose changes are the rest."""
    _, changes = read_recording(text)
    split = next(
        (i for i, c in enumerate(changes) if not (c.t == 0 and c.type == "ADDED")), len(changes)
    )
    snapshot = [change.object for change in changes[:split]]
    return CompareInputs(
        objects_text=json.dumps(snapshot),
        changes=tuple(changes[split:]),
        seed=seed,
        features=features,
    )
