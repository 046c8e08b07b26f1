"""build_extenders: one HTTPExtender per configured extender, as upstream's buildExtenders."""

from __future__ import annotations

import pytest

from framework.config.defaults import default_configuration, set_defaults
from framework.config.load import load_config
from framework.config.types import (
    Extender,
    ExtenderManagedResource,
    ExtenderTLSConfig,
    NodeResourcesFitArgs,
    PluginConfig,
)
from framework.extender.build import BuildExtendersError, build_extenders
from framework.extender.tls import ExtenderTLSError


def configuration(*extenders: Extender):
    cfg = default_configuration()
    cfg.extenders = list(extenders)
    return cfg


def fit_args(profile) -> NodeResourcesFitArgs:
    return next(pc.args for pc in profile.plugin_config if pc.name == "NodeResourcesFit")


@pytest.mark.parametrize(
    ("extenders", "want"),
    [
        ([], []),
        ([Extender(url_prefix="http://extender.kube-system/")], ["http://extender.kube-system/"]),
        (
            [
                Extender(url_prefix="http://ignorable.kube-system/", ignorable=True),
                Extender(url_prefix="http://required.kube-system/"),
                Extender(url_prefix="http://also-ignorable.kube-system/", ignorable=True),
                Extender(url_prefix="http://also-required.kube-system/"),
            ],
            [
                "http://required.kube-system/",
                "http://also-required.kube-system/",
                "http://ignorable.kube-system/",
                "http://also-ignorable.kube-system/",
            ],
        ),
    ],
    ids=["no extenders", "a single extender", "ignorable extenders are moved to the tail"],
)
def test_extenders_are_built_in_order_with_the_ignorable_ones_last(extenders, want):
    assert [e.name() for e in build_extenders(configuration(*extenders))] == want


def test_resources_ignored_by_the_scheduler_replace_fit_s_ignored_resources_in_every_profile():
    cfg = load_config(
        """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/old]
- schedulerName: other-scheduler
extenders:
- urlPrefix: http://gpu.kube-system/
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  - name: example.com/fpga
- urlPrefix: http://tpu.kube-system/
  managedResources:
  - name: example.com/tpu
    ignoredByScheduler: true
"""
    )
    set_defaults(cfg)
    build_extenders(cfg)
    assert [fit_args(p).ignored_resources for p in cfg.profiles] == [
        ["example.com/gpu", "example.com/tpu"],
        ["example.com/gpu", "example.com/tpu"],
    ]


def test_without_ignored_resources_fit_s_args_are_left_alone():
    cfg = configuration(
        Extender(url_prefix="http://x/", managed_resources=[ExtenderManagedResource("a.b/c")])
    )
    fit_args(cfg.profiles[0]).ignored_resources = ["example.com/kept"]
    build_extenders(cfg)
    assert fit_args(cfg.profiles[0]).ignored_resources == ["example.com/kept"]


IGNORED = Extender(
    url_prefix="http://x/", managed_resources=[ExtenderManagedResource("a.b/c", True)]
)


def test_a_profile_without_fit_args_cannot_take_ignored_resources():
    cfg = configuration(IGNORED)
    cfg.profiles[0].plugin_config = [
        pc for pc in cfg.profiles[0].plugin_config if pc.name != "NodeResourcesFit"
    ]
    with pytest.raises(BuildExtendersError) as err:
        build_extenders(cfg)
    assert str(err.value) == "can't find NodeResourcesFitArgs in plugin config"


def test_fit_args_of_another_type_cannot_take_ignored_resources():
    cfg = configuration(IGNORED)
    cfg.profiles[0].plugin_config = [PluginConfig("NodeResourcesFit", {"ignoredResources": []})]
    with pytest.raises(BuildExtendersError) as err:
        build_extenders(cfg)
    assert str(err.value) == "want args to be of type NodeResourcesFitArgs, got dict"


def test_an_extender_with_unusable_tls_settings_fails_the_build():
    tls = ExtenderTLSConfig(insecure=True, ca_file="does-not-exist.crt")
    with pytest.raises(ExtenderTLSError, match="with the insecure flag is not allowed"):
        build_extenders(configuration(Extender(url_prefix="https://x/", tls_config=tls)))
