"""A revision's feature gates (kube-scheduler's --feature-gates): checked with upstream's words,
named with their field, stored as their overrides, and the configuration defaulted and
validated under them."""

from __future__ import annotations

import pytest

from framework.features import FeatureGates
from playground.scheduling.plugins import playground_registry
from playground.workspaces.models import SchedulerConfiguration
from playground.workspaces.services import (
    FEATURE_GATES_FIELD,
    ConfigurationProblem,
    add_configuration_revision,
    checked_configuration,
    revision_settings,
)

MINIMAL = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
WITHOUT_NODE_DECLARED_FEATURES = (
    "InPlacePodLevelResourcesVerticalScaling=false,NodeDeclaredFeatures=false"
)


def default_profile_plugins(checked) -> list[str]:
    (profile,) = checked.cfg.profiles
    return [plugin.name for plugin in profile.plugins.multi_point.enabled]


@pytest.mark.parametrize(
    ("gates", "messages"),
    [
        ("Nope=true", ["unrecognized feature gate: Nope"]),
        (
            "SidecarContainers=false",
            ["cannot set feature gate SidecarContainers to false, feature is locked to true"],
        ),
        (
            "GangScheduling=true",
            [
                "GangScheduling is enabled, but depends on features that are disabled: "
                "[GenericWorkload]"
            ],
        ),
        (
            "GangScheduling=maybe",
            [
                'invalid value of GangScheduling=maybe, err: strconv.ParseBool: parsing "maybe": '
                "invalid syntax"
            ],
        ),
        ("GangScheduling", ["missing bool value for GangScheduling"]),
        (
            "Nope=true,SidecarContainers=false",
            [
                "unrecognized feature gate: Nope",
                "cannot set feature gate SidecarContainers to false, feature is locked to true",
            ],
        ),
    ],
    ids=[
        "an unknown gate",
        "a locked gate changed",
        "a missing dependency",
        "a value that is not a boolean",
        "a gate without a value",
        "two problems, each on its own",
    ],
)
def test_bad_gates_are_refused_with_the_field_named_in_upstreams_words(gates, messages):
    checked = checked_configuration(MINIMAL, gates)

    assert checked.problems == [ConfigurationProblem(FEATURE_GATES_FIELD, m) for m in messages]
    assert str(checked.problems[0]) == f"--feature-gates: {messages[0]}"
    assert checked.cfg is None


def test_a_refused_revision_stores_nothing(workspace, user):
    revision, problems = add_configuration_revision(
        workspace, MINIMAL, user, feature_gates="Nope=1"
    )

    assert revision is None
    assert [str(p) for p in problems] == ["--feature-gates: unrecognized feature gate: Nope"]
    assert not SchedulerConfiguration.objects.filter(workspace=workspace).exists()


def test_a_revision_stores_its_gates_as_their_overrides_by_name(workspace, user):
    typed = " StorageCapacityScoring=T , SchedulerQueueingHints=true,OpportunisticBatching=0"

    revision, problems = add_configuration_revision(workspace, MINIMAL, user, feature_gates=typed)

    assert problems == []
    assert revision.feature_gates == "OpportunisticBatching=false,StorageCapacityScoring=true"
    settings = revision_settings(workspace.pk, revision.revision)
    assert settings.features == FeatureGates.from_string(typed)


def test_without_gates_a_revision_runs_the_v1_36_defaults(workspace, user):
    revision, _ = add_configuration_revision(workspace, MINIMAL, user)

    assert revision.feature_gates == ""
    assert revision_settings(workspace.pk, revision.revision).features == FeatureGates()
    assert revision_settings(workspace.pk, None).features == FeatureGates()


def test_the_default_profile_follows_the_gates():
    with_defaults = checked_configuration(MINIMAL)
    without = checked_configuration(MINIMAL, WITHOUT_NODE_DECLARED_FEATURES)

    assert "NodeDeclaredFeatures" in default_profile_plugins(with_defaults)
    assert without.problems == []
    assert "NodeDeclaredFeatures" not in default_profile_plugins(without)
    pre_filter = [name for name, _ in without.frameworks[0].list_plugins()["preFilter"]]
    assert "NodeResourcesFit" in pre_filter
    assert "NodeDeclaredFeatures" not in pre_filter


def test_plugin_args_are_defaulted_under_the_gates():
    """StorageCapacityScoring gives VolumeBinding's args a default shape (upstream's
    SetDefaults_VolumeBindingArgs)."""

    def volume_binding_shape(gates: str):
        (profile,) = checked_configuration(MINIMAL, gates).cfg.profiles
        (args,) = [c.args for c in profile.plugin_config if c.name == "VolumeBinding"]
        return args.shape

    assert not volume_binding_shape("")
    assert volume_binding_shape("StorageCapacityScoring=true")


def test_a_stored_revision_is_checked_again_under_its_own_gates(workspace, user):
    """A revision saved with gates that an engine upgrade no longer accepts does not start."""
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text=MINIMAL, feature_gates="Nope=true"
    )

    with pytest.raises(ValueError, match="--feature-gates: unrecognized feature gate: Nope"):
        revision_settings(workspace.pk, 1)


def test_with_gang_scheduling_on_the_default_profile_gains_gang_scheduling():
    """Upstream's getDefaultPlugins adds GangScheduling to the default multiPoint set."""
    checked = checked_configuration(MINIMAL, "GenericWorkload=true,GangScheduling=true")

    if "GangScheduling" in playground_registry(FeatureGates.from_string("GenericWorkload=true")):
        assert checked.problems == []
        assert "GangScheduling" in default_profile_plugins(checked)
    else:  # the engine does not implement the plugin yet: the profile cannot be built
        assert [p.field for p in checked.problems] == ["profiles[0]"]
        assert '"GangScheduling" does not exist' in checked.problems[0].message


def test_a_profile_enabling_a_plugin_whose_gate_is_off_starts_as_upstreams_does():
    """kube-scheduler v1.36 refuses no plugin for its gate: NodeDeclaredFeatures' factory
    builds a plugin that does nothing while the gate is off, and the profile starts."""
    text = MINIMAL + (
        "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n"
        "      enabled: [{name: NodeDeclaredFeatures}]\n"
    )

    checked = checked_configuration(text, WITHOUT_NODE_DECLARED_FEATURES)

    assert checked.problems == []
    assert "NodeDeclaredFeatures" in default_profile_plugins(checked)
