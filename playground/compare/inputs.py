"""What a comparison schedules: the text it keeps (objects or a recording), and the engine's
CompareInputs built from it for one variant (under that variant's feature gates).

The text is taken once, when the comparison starts: the workspace's objects as its export
lists them (bound pods, pending pods and everything scheduling reads), a pasted or uploaded
snapshot, another workspace's export, or a recording's file. Later changes to the workspace
do not reach a comparison already made, so its result page stays the same.
"""

from __future__ import annotations

from framework.compare import CompareInputs, inputs_from_recording
from playground.clusters.models import Recording
from playground.compare.models import RECORDING, Comparison, ComparisonVariant
from playground.workspaces.fields import dumps
from playground.workspaces.importing import exported_objects
from playground.workspaces.models import Workspace
from playground.workspaces.services import valid_feature_gates


def workspace_text(workspace: Workspace) -> str:
    """The workspace's objects now, pending pods included, in its export's order, as a JSON
    list: the engine reads JSON ten times faster than YAML, which counts for a workspace of
    50,000 pods."""
    return dumps(exported_objects(workspace))


def recording_text(recording: Recording) -> str:
    """The recording's file (header, snapshot, changes); OSError when it cannot be read."""
    return recording.path.read_text(encoding="utf-8")


def recordings_of(user: object) -> list[Recording]:
    """The stopped recordings of the connections the user may open, newest first."""
    rows = Recording.objects.select_related("connection").filter(stopped_at__isnull=False)
    if not getattr(user, "is_superuser", False):
        rows = rows.filter(connection__owner=user)
    return list(rows)


def variant_inputs(comparison: Comparison, variant: ComparisonVariant) -> CompareInputs:
    """The comparison's inputs under the variant's gates (RecordingError, from the engine,
    names the line of a recording that cannot be read)."""
    features = valid_feature_gates(variant.feature_gates)
    if comparison.source == RECORDING:
        return inputs_from_recording(
            comparison.inputs_text, seed=comparison.seed, features=features
        )
    return CompareInputs(comparison.inputs_text, seed=comparison.seed, features=features)
