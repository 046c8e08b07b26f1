"""Pod signatures: upstream's TestSignatures (schedule_one_test.go) and signers_test.go."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.interface.plugins import (
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    SignPlugin,
)
from framework.interface.signers import host_ports_signer, tolerations_signer
from framework.interface.status import Code, Status
from framework.interface.types import SignFragment
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeFilter, FakeQueueSort
from tests.framework.builders import make_pod
from tests.framework.runtime.helpers import framework_of, minimal, profile


class ConstantSigPlugin(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin):
    """Passes every node, scores 1, and signs every pod with the same fragments."""

    def __init__(self, name: str, fragments: list[SignFragment], status: Status | None) -> None:
        self.name, self.fragments, self.status = name, fragments, status

    def pre_filter(self, state, pod, nodes):
        return None, None

    def filter(self, state, pod, node_info):
        return None

    def pre_score(self, state, pod, nodes):
        return None

    def score(self, state, pod, node_info):
        return 1, None

    def sign_pod(self, pod):
        return self.fragments, self.status

    def factory(self) -> Any:
        return lambda args, handle: self


@dataclass
class Config:
    name: str
    point: str
    fragments: list[SignFragment] = field(default_factory=list)
    status: Status | None = None


TEST = [SignFragment("test", 16)]
SCHEDULER = '"v1.Pod.Spec.SchedulerName":"test-scheduler"'

CASES = [
    ("no plugins", [], "{" + SCHEDULER + "}"),
    ("single filter", [Config("ConstSig", "filter", TEST)], '{"test":16,' + SCHEDULER + "}"),
    (
        "single prefilter",
        [Config("ConstSig", "pre_filter", TEST)],
        '{"test":16,' + SCHEDULER + "}",
    ),
    ("single score", [Config("ConstSig", "score", TEST)], '{"test":16,' + SCHEDULER + "}"),
    (
        "single prescore",
        [Config("ConstSig", "pre_score", TEST)],
        '{"test":16,' + SCHEDULER + "}",
    ),
    (
        "two plugins",
        [
            Config("ConstSig", "filter", TEST),
            Config("ConstSig2", "score", [SignFragment("test2", 17)]),
        ],
        '{"test":16,"test2":17,' + SCHEDULER + "}",
    ),
    (
        "plugin with multiple fragments",
        [Config("ConstSig", "filter", [SignFragment("test", 16), SignFragment("test2", 17)])],
        '{"test":16,"test2":17,' + SCHEDULER + "}",
    ),
    (
        "overlapping fragments",
        [Config("ConstSig", "filter", TEST), Config("ConstSig2", "score", TEST)],
        '{"test":16,' + SCHEDULER + "}",
    ),
    ("unsignable plugin", [Config("ConstSig", "filter", [], Status(Code.UNSCHEDULABLE))], None),
    ("error plugin", [Config("ConstSig", "filter", [], Status(Code.ERROR))], None),
]


@pytest.mark.parametrize(("name", "configs", "expected"), CASES, ids=[c[0] for c in CASES])
def test_signatures(name, configs, expected):
    plugins = [ConstantSigPlugin(c.name, c.fragments, c.status) for c in configs]
    points: dict[str, list[Any]] = {}
    for config in configs:
        entry = (config.name, 1) if config.point == "score" else config.name
        points.setdefault(config.point, []).append(entry)
    framework = framework_of(plugins, points=points)
    pod = make_pod("foo", schedulerName="test-scheduler")
    signature = framework.sign_pod(pod)
    assert signature == (expected.encode() if expected is not None else None)


def test_a_plugin_that_cannot_sign_turns_signatures_off_for_the_profile():
    signer = ConstantSigPlugin("ConstSig", TEST, None)
    framework = framework_of(
        [signer, FakeFilter("NoSign")], points={"filter": ["ConstSig", "NoSign"]}
    )
    assert framework.batchable_plugins is None
    assert framework.sign_pod(make_pod()) is None


def test_extenders_turn_signatures_off_for_the_profile():
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    framework = Framework(registry, profile(**minimal()), extenders=[object()])
    assert framework.sign_pod(make_pod()) is None


@pytest.mark.parametrize(
    ("name", "containers", "init_containers", "want"),
    [
        ("no containers", [], [], []),
        ("containers without host ports", [[{"containerPort": 80}]], [], []),
        ("single container with host port", [[{"containerPort": 1, "hostPort": 8080}]], [], [8080]),
        (
            "multiple containers, unsorted host ports, duplicates",
            [
                [{"containerPort": 1, "hostPort": 80}],
                [{"containerPort": 2, "hostPort": 443}, {"containerPort": 3, "hostPort": 80}],
            ],
            [[{"containerPort": 4, "hostPort": 9090}]],
            [80, 443, 9090],
        ),
    ],
)
def test_host_ports_signer(name, containers, init_containers, want):
    pod = make_pod(
        containers=[{"name": f"c{i}", "ports": p} for i, p in enumerate(containers)],
        initContainers=[{"name": f"i{i}", "ports": p} for i, p in enumerate(init_containers)],
    )
    assert host_ports_signer(pod) == want


def toleration(key: str, value: str, effect: str = "") -> dict[str, Any]:
    return {
        "key": key,
        "operator": "",
        "value": value,
        "effect": effect,
        "tolerationSeconds": None,
    }


@pytest.mark.parametrize(
    ("name", "tolerations", "want"),
    [
        ("no tolerations", [], []),
        (
            "single toleration",
            [{"key": "key1", "value": "value1", "effect": "NoSchedule"}],
            [toleration("key1", "value1", "NoSchedule")],
        ),
        (
            "multiple tolerations, unsorted",
            [{"key": "b", "value": "2"}, {"key": "a", "value": "1"}, {"key": "b", "value": "1"}],
            [toleration("a", "1"), toleration("b", "1"), toleration("b", "2")],
        ),
    ],
)
def test_tolerations_signer(name, tolerations, want):
    assert tolerations_signer(make_pod(tolerations=tolerations)) == want
