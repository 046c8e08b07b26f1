"""The configuration an attempt page's "Compare with these weights" hands to the Compare page.

It is the configuration the attempt ran with, with the Score weights of the attempt's profile
replaced, written as the profile editor writes weights (``plugins.score`` as the whole
effective list with every default disabled, ``profile_form``'s ``weights:score``) and checked as
the editor checks; everything else stays as it was. The Compare page takes it as
``/w/<slug>/compare/?profile=<YAML>&name=<label>`` (the contract between the two pages).

The configuration an attempt ran with is the revision it recorded (the one its scheduler ran,
``SchedulingAttempt.configuration_revision``). Attempts stored before revisions were recorded
(and one whose revision was deleted since) only allow a guess: the workspace's latest revision
made before the attempt (the default configuration if none was), wrong when a revision was
applied while the attempt was under way or the scheduler had not picked it up yet. The page
says which revision it starts from and whether it was guessed, and names the Score weights
where that revision and the trace disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from playground.front.configuration import MINIMAL_CONFIGURATION, Profile, check_configuration
from playground.front.profile_edits import EditError
from playground.front.profile_form import edit_configuration
from playground.workspaces.models import SchedulingAttempt, Workspace

NAME_LENGTH = 200
"""The label given to the Compare page is cut to this many characters."""


class ReweightError(ValueError):
    """The configuration cannot be built with these weights (the message says why)."""


@dataclass(frozen=True, slots=True)
class BaseConfiguration:
    """The configuration an attempt ran with: its text, feature gates and revision number
    (None: the default configuration, no revision)."""

    text: str
    feature_gates: str = ""
    revision: int | None = None
    recorded: bool = True
    """False: the attempt recorded no revision, this one is the guess (see above)."""

    @property
    def label(self) -> str:
        return f"revision {self.revision}" if self.revision else "the default configuration"


def attempt_configuration(attempt: SchedulingAttempt) -> BaseConfiguration:
    """The revision the attempt recorded, else the workspace's latest made before it."""
    revisions = attempt.workspace.configurations
    number = attempt.configuration_revision
    if number == SchedulingAttempt.DEFAULT_CONFIGURATION:
        return BaseConfiguration(MINIMAL_CONFIGURATION)
    found = revisions.filter(revision=number).first() if number is not None else None
    if found is not None:
        return BaseConfiguration(found.text, found.feature_gates, found.revision)
    guess = revisions.filter(created__lte=attempt.created).order_by("-revision").first()
    if guess is None:
        return BaseConfiguration(MINIMAL_CONFIGURATION, recorded=False)
    return BaseConfiguration(guess.text, guess.feature_gates, guess.revision, recorded=False)


def score_weights(base: BaseConfiguration, profile_name: str) -> dict[str, int]:
    """The effective Score weights of the named profile of ``base`` (0 read as 1)."""
    return {
        name: weight or 1 for name, weight in _profile(base, profile_name).points.get("score", [])
    }


def configured_weights(base: BaseConfiguration, profile_name: str) -> dict[str, int]:
    """``score_weights``, or none when ``base`` has no such (valid) profile."""
    try:
        return score_weights(base, profile_name)
    except ReweightError:
        return {}


def weights_that_differ(configured: Mapping[str, int], recorded: Mapping[str, int]) -> list[str]:
    """The Score plugins whose configured weight is not the one the attempt recorded (or that
    the profile lacks): a sign the attempt ran with another revision."""
    return [plugin for plugin, weight in recorded.items() if configured.get(plugin) != weight]


def reweighted_configuration(
    base: BaseConfiguration, profile_name: str, weights: Mapping[str, int]
) -> str:
    """``base`` with the named profile's Score plugins at ``weights`` (the plugins not given
    keep their weights); ReweightError when kube-scheduler would refuse the result."""
    profile = _profile(base, profile_name)
    plugins = profile.points.get("score", [])
    unknown = sorted(set(weights) - {name for name, _ in plugins})
    if unknown:
        raise ReweightError(
            f"{', '.join(unknown)}: not a Score plugin of profile {profile_name} in {base.label}"
        )
    data = {f"weight:{name}": weights.get(name, weight) for name, weight in plugins}
    try:
        return edit_configuration(
            base.text, profile.index, "weights:score", data, base.feature_gates
        )
    except EditError as err:
        raise ReweightError(_refused(str(err), weights)) from None


def _profile(base: BaseConfiguration, profile_name: str) -> Profile:
    checked = check_configuration(base.text, base.feature_gates)
    if not checked.valid:
        problems = "; ".join(str(problem) for problem in checked.problems)
        raise ReweightError(f"{base.label} is not valid any more: {problems}")
    for profile in checked.profiles:
        if profile.name == profile_name:
            return profile
    raise ReweightError(f"{base.label} has no profile named {profile_name}")


def _refused(message: str, weights: Mapping[str, int]) -> str:
    """The editor's refusal, with the negative weights named when they are the reason: the
    start-up check's own message names no plugin."""
    negative = [plugin for plugin, weight in weights.items() if weight < 0]
    if "could overflow" not in message or not negative:
        return message
    return (
        f"{message} (kube-scheduler refuses a negative weight that takes the running sum of "
        f"Score weights below zero while another Score plugin follows; negative here: "
        f"{', '.join(negative)})"
    )


def compare_url(workspace: Workspace, text: str, name: str) -> str:
    """The Compare page with ``text`` as a pasted profile named ``name``."""
    page = reverse("compare", args=[workspace.slug])
    return f"{page}?{urlencode({'profile': text, 'name': name[:NAME_LENGTH]})}"


def variant_name(
    attempt: SchedulingAttempt, recorded: Mapping[str, int], weights: Mapping[str, int]
) -> str:
    """The label of the new profile: the attempt and the weights changed, e.g.
    ``default/web attempt 2: NodeResourcesFit 1→3, ImageLocality 1→0``."""
    changes = [
        f"{plugin} {recorded.get(plugin)}→{weight}"
        for plugin, weight in weights.items()
        if weight != recorded.get(plugin)
    ]
    what = ", ".join(changes) if changes else "the weights it ran with"
    return f"{attempt.pod_key} attempt {attempt.number}: {what}"
