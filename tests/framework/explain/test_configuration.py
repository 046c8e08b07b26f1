"""Which configuration and profile explain_pod runs a pod's plugins with."""

from __future__ import annotations

import pytest

from framework.config.defaults import set_defaults
from framework.config.types import KubeSchedulerConfiguration, KubeSchedulerProfile
from framework.explain.configuration import resolve_configuration
from tests.framework.builders import make_pod


def test_without_a_profile_the_defaults_schedule_the_pod():
    cfg, name = resolve_configuration(None, make_pod())
    assert name == "default-scheduler"
    assert cfg.profiles[0].plugins is not None


def test_the_pod_goes_to_the_profile_its_scheduler_name_names_else_the_first():
    cfg = set_defaults(
        KubeSchedulerConfiguration(
            profiles=[KubeSchedulerProfile(scheduler_name="a"), KubeSchedulerProfile("b")]
        )
    )
    assert resolve_configuration(cfg, make_pod(schedulerName="b")) == (cfg, "b")
    assert resolve_configuration(cfg, make_pod(schedulerName="other")) == (cfg, "a")


def test_one_profile_is_defaulted_into_a_configuration():
    cfg, name = resolve_configuration(KubeSchedulerProfile("mine"), make_pod(schedulerName="mine"))
    assert name == "mine"
    assert [p.scheduler_name for p in cfg.profiles] == ["mine"]


def test_anything_else_is_refused_naming_the_argument():
    with pytest.raises(TypeError, match="profile: want a KubeSchedulerConfiguration"):
        resolve_configuration({"schedulerName": "x"}, make_pod())
