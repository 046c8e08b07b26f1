"""NodeDeclaredFeatures: features a pod needs must be declared by the node."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.node import Node
from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.nodedeclaredfeatures.features import Feature, FeatureFramework
from framework.plugins.nodedeclaredfeatures.nodedeclaredfeatures import (
    ERR_REASON_UNSATISFIED_REQUIREMENTS,
    PRE_FILTER_STATE_KEY,
    NodeDeclaredFeatures,
    _PreFilterState,
)
from tests.framework.builders import StaticLister, make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import framework_of

UNSATISFIED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSATISFIED_REQUIREMENTS)
SKIP = Status(Code.SKIP)


def mock_feature(name: str, infer: bool, max_version: tuple[int, int, int] | None = None):
    return Feature(name, lambda pod: infer, max_version)


def plugin(
    enabled: bool = True,
    features: list[Feature] | None = None,
    version: tuple[int, int, int] | None = (1, 35, 0),
) -> NodeDeclaredFeatures:
    kwargs: dict[str, Any] = {"version": version}
    if features is not None:
        kwargs["ndf_framework"] = FeatureFramework(features)
    return NodeDeclaredFeatures(
        None, None, Features(enable_node_declared_features=enabled), **kwargs
    )


def node(name: str = "node-1", declared: list[str] | None = None) -> Node:
    status = {"declaredFeatures": declared} if declared is not None else {}
    return Node.from_dict({"kind": "Node", "metadata": {"name": name}, "status": status})


def node_info_of(n: Node) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(n)
    return node_info


# ---------------------------------------------------------------------------------------------
# PreFilter


@pytest.mark.parametrize(
    ("enabled", "features", "version", "want_status", "want_reqs"),
    [
        (
            False,
            [mock_feature("TestFeature1", True), mock_feature("TestFeature2", False)],
            (1, 35, 0),
            SKIP,
            None,
        ),
        (
            True,
            [mock_feature("TestFeature1", True), mock_feature("TestFeature2", False)],
            (1, 35, 0),
            None,
            {"TestFeature1"},
        ),
        (
            True,
            [
                mock_feature("TestFeature1", True, (1, 38, 0)),
                mock_feature("TestFeature2", True, (1, 38, 0)),
            ],
            (1, 35, 0),
            None,
            {"TestFeature1", "TestFeature2"},
        ),
        (
            True,
            [mock_feature("TestFeature1", False), mock_feature("TestFeature2", False)],
            (1, 35, 0),
            SKIP,
            None,
        ),
        (
            True,
            [mock_feature("TestFeature1", True, (1, 33, 0)), mock_feature("TestFeature2", False)],
            (1, 34, 0),
            SKIP,
            None,
        ),
        (
            True,
            [mock_feature("TestFeature1", True, (1, 34, 0))],
            (1, 34, 0),
            None,
            {"TestFeature1"},
        ),
    ],
    ids=[
        "the plugin disabled skips",
        "a pod with a feature requirement",
        "a pod with multiple feature requirements",
        "a pod with no requirements skips",
        "a feature is not required past its max version",
        "a feature is still required at its max version",
    ],
)
def test_pre_filter_records_the_features_the_pod_requires(
    enabled, features, version, want_status, want_reqs
):
    state = CycleState()
    result, status = plugin(enabled, features, version).pre_filter(state, make_pod(), [])
    assert result is None
    assert status == want_status
    if want_reqs is None:
        assert PRE_FILTER_STATE_KEY not in state
    else:
        assert state.read(PRE_FILTER_STATE_KEY).reqs == want_reqs


def test_pre_filter_without_a_version_is_an_error():
    _, status = plugin(features=[mock_feature("F", True)], version=None).pre_filter(
        CycleState(), make_pod(), []
    )
    assert status == Status(Code.ERROR, err=ValueError("target version cannot be nil"))
    assert status.message() == "target version cannot be nil"


# ---------------------------------------------------------------------------------------------
# Filter


@pytest.mark.parametrize(
    ("enabled", "declared", "reqs", "want"),
    [
        (False, ["FeatureA", "FeatureB"], None, None),
        (True, ["FeatureA", "FeatureB"], {"FeatureA"}, None),
        (True, ["FeatureB"], {"FeatureA"}, UNSATISFIED),
        (True, ["FeatureA", "FeatureB", "FeatureC"], {"FeatureA", "FeatureC"}, None),
        (True, None, {"FeatureA"}, UNSATISFIED),
        (True, ["FeatureA"], {"FeatureA", "FeatureB"}, UNSATISFIED),
        (
            True,
            None,
            None,
            Status.error(
                'error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found'
            ),
        ),
    ],
    ids=[
        "the plugin disabled lets every node pass",
        "a node matching the requirements passes",
        "a node not matching the requirements is rejected",
        "a node with more features than required passes",
        "a node without declared features is rejected",
        "a node with some but not all required features is rejected",
        "a missing pre-filter state is an error",
    ],
)
def test_filter_requires_every_feature_the_pod_needs(enabled, declared, reqs, want):
    state = CycleState()
    if reqs is not None:
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(frozenset(reqs)))
    status = plugin(enabled).filter(state, make_pod(), node_info_of(node(declared=declared)))
    assert status == want


# ---------------------------------------------------------------------------------------------
# What v1.36 infers from a pod spec


def pod(spec: dict[str, Any]) -> Pod:
    spec = {"containers": [{"name": "c", "image": "busybox"}], **spec}
    return Pod.from_dict({"kind": "Pod", "metadata": {"name": "p"}, "spec": spec})


RESTART_ALL = [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]
RESTART_ONE = [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ({}, set()),
        (
            {"containers": [{"name": "c", "restartPolicyRules": RESTART_ALL}]},
            {"RestartAllContainersOnContainerExits"},
        ),
        (
            {"initContainers": [{"name": "i", "restartPolicyRules": RESTART_ALL}]},
            {"RestartAllContainersOnContainerExits"},
        ),
        ({"containers": [{"name": "c", "restartPolicyRules": RESTART_ONE}]}, set()),
        ({"hostNetwork": True, "hostUsers": False}, {"UserNamespacesHostNetworkSupport"}),
        ({"hostNetwork": True, "hostUsers": True}, set()),
        ({"hostNetwork": True}, set()),
        ({"hostUsers": False}, set()),
        ({"resources": {"requests": {"cpu": "1"}}}, set()),
        (
            {
                "hostNetwork": True,
                "hostUsers": False,
                "containers": [{"name": "c", "restartPolicyRules": RESTART_ALL}],
            },
            {"RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport"},
        ),
    ],
    ids=[
        "a plain pod requires nothing",
        "a container rule restarting all containers requires RestartAllContainersOnContainerExits",
        "an init container rule restarting all containers requires it too",
        "a rule restarting only its container requires nothing",
        "host network in a user namespace requires UserNamespacesHostNetworkSupport",
        "host network with host users requires nothing",
        "host network without hostUsers set requires nothing",
        "a user namespace without host network requires nothing",
        "pod-level resources matter only for resizes, not for scheduling",
        "both requirements together",
    ],
)
def test_pre_filter_infers_the_features_v1_36_registers(spec, want):
    state = CycleState()
    _, status = NodeDeclaredFeatures(None, None, Features.from_gates()).pre_filter(
        state, pod(spec), []
    )
    if not want:
        assert status == SKIP
        return
    assert status is None
    assert state.read(PRE_FILTER_STATE_KEY).reqs == want


def test_a_malformed_restart_rule_list_is_an_error_naming_the_field():
    bad = pod({"containers": [{"name": "c", "restartPolicyRules": "RestartAllContainers"}]})
    _, status = NodeDeclaredFeatures(None, None, Features.from_gates()).pre_filter(
        CycleState(), bad, []
    )
    assert status.code == Code.ERROR
    assert "spec.containers[0].restartPolicyRules" in status.message()


def test_the_framework_rejects_nodes_lacking_a_required_feature():
    nodes = [
        node_info_of(node("old")),
        node_info_of(node("new", ["RestartAllContainersOnContainerExits", "SomethingElse"])),
    ]
    fwk = framework_of(
        [InTree(NodeDeclaredFeatures)],
        points={
            "pre_filter": [names.NODE_DECLARED_FEATURES],
            "filter": [names.NODE_DECLARED_FEATURES],
        },
        snapshot_shared_lister=StaticLister(nodes),
    )
    needs = pod({"containers": [{"name": "c", "restartPolicyRules": RESTART_ALL}]})
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, needs)
    assert status is None
    rejected = fwk.run_filter_plugins(state, needs, nodes[0])
    assert (rejected.code, rejected.reasons, rejected.plugin) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        [ERR_REASON_UNSATISFIED_REQUIREMENTS],
        names.NODE_DECLARED_FEATURES,
    )
    assert fwk.run_filter_plugins(state, needs, nodes[1]) is None


# ---------------------------------------------------------------------------------------------
# Queueing


@pytest.mark.parametrize(
    ("old_node", "new_node", "want"),
    [
        (None, node(declared=["FeatureA"]), QueueingHint.QUEUE),
        (node(), node(declared=["FeatureA"]), QueueingHint.QUEUE),
        (node(declared=["FeatureA"]), node(declared=["FeatureA"]), QueueingHint.QUEUE_SKIP),
        (node(declared=["FeatureA", "FeatureB"]), node(declared=["FeatureA"]), QueueingHint.QUEUE),
    ],
    ids=[
        "a node added queues",
        "features added to a node queue",
        "unchanged features are skipped",
        "features removed from a node also queue",
    ],
)
def test_it_queues_when_a_node_declares_different_features(old_node, new_node, want):
    hint = plugin(features=[]).is_schedulable_after_node_change(make_pod(), old_node, new_node)
    assert hint == want


def labelled_pod(uid: str = "123", name: str = "test-pod", **labels: str) -> Pod:
    return make_pod(name, uid=uid, labels=labels)


# The mock feature is required exactly when the pod carries the label foo.
LABEL_FEATURE = Feature("TestFeature", lambda p: "foo" in p.labels)


@pytest.mark.parametrize(
    ("old_pod", "new_pod", "want"),
    [
        (labelled_pod(), labelled_pod(foo="bar"), QueueingHint.QUEUE),
        (labelled_pod(foo="bar"), labelled_pod(), QueueingHint.QUEUE),
        (labelled_pod(), labelled_pod(), QueueingHint.QUEUE_SKIP),
        (
            labelled_pod("456", "another-test-pod", foo="bar"),
            labelled_pod("456", "another-test-pod"),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "an update adding a requirement queues",
        "an update removing a requirement queues",
        "an update that leaves the requirements alone is skipped",
        "another pod's update is skipped",
    ],
)
def test_it_queues_when_the_pod_update_changes_its_requirements(old_pod, new_pod, want):
    pl = plugin(features=[LABEL_FEATURE])
    assert pl.is_schedulable_after_pod_update(labelled_pod(), old_pod, new_pod) == want


def test_its_pod_hint_raises_without_a_version_so_the_pod_is_queued():
    pl = plugin(features=[LABEL_FEATURE], version=None)
    with pytest.raises(ValueError, match="target version cannot be nil"):
        pl.is_schedulable_after_pod_update(labelled_pod(), labelled_pod(), labelled_pod(foo="x"))


def test_it_registers_node_and_pod_updates_when_enabled():
    events = plugin().events_to_register()
    assert [e.event for e in events] == [
        ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE),
        ClusterEvent(EventResource.POD, ActionType.UPDATE),
    ]
    assert all(e.queueing_hint_fn is not None for e in events)


def test_it_registers_no_events_when_disabled():
    assert plugin(enabled=False).events_to_register() == []
