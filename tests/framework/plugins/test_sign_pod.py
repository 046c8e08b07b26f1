"""Every in-tree plugin's ``sign_pod`` (OpportunisticBatching): upstream's TestImageSignature,
TestPodAffinitySignature, TestPodTopoSignatures, TestFitSignPod and
TestBalancedAllocationSignPod, plus the one-line signers of the other plugins.

Fit's and BalancedAllocation's "DRA extended resource enabled" cases are not ported: DRA
extended resources are never delegated here (docs/fidelity.md), so those pods are signed.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.config.types import (
    LEAST_ALLOCATED,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.interface.signers import (
    HOST_PORTS_SIGNER_NAME,
    IMAGE_NAMES_SIGNER_NAME,
    LABELS_SIGNER_NAME,
    NODE_AFFINITY_SIGNER_NAME,
    NODE_NAME_SIGNER_NAME,
    NODE_SELECTOR_SIGNER_NAME,
    RESOURCES_SIGNER_NAME,
    TOLERATIONS_SIGNER_NAME,
    VOLUMES_SIGNER_NAME,
)
from framework.interface.status import Code
from framework.interface.types import SignFragment
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.feature import Features
from framework.plugins.imagelocality.image_locality import ImageLocality
from framework.plugins.nodeaffinity.node_affinity import NodeAffinity
from framework.plugins.nodename.node_name import NodeName
from framework.plugins.nodeports.node_ports import NodePorts
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import (
    Fit,
    compute_pod_resource_request,
    resources_signature,
)
from framework.plugins.nodeunschedulable.node_unschedulable import NodeUnschedulable
from framework.plugins.nodevolumelimits.csi import CSILimits
from framework.plugins.tainttoleration.taint_toleration import TaintToleration
from framework.plugins.volumebinding.volume_binding import VolumeBinding
from framework.plugins.volumerestrictions.volume_restrictions import VolumeRestrictions
from framework.plugins.volumezone.volume_zone import VolumeZone
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from tests.framework.builders import make_pod
from tests.framework.plugins.interpodaffinity.helpers import new_plugin as new_inter_pod_affinity
from tests.framework.plugins.podtopologyspread.helpers import new_plugin as new_topology_spread


def pod_with(containers: list[dict[str, Any]], **spec: Any):
    return make_pod(containers=containers, **spec)


@pytest.mark.parametrize(
    ("name", "containers", "want"),
    [
        ("no images", [], []),
        ("one image", [{"name": "c", "image": "myimage"}], ["myimage:latest"]),
        (
            "two images unsorted",
            [{"name": "c", "image": "zmyimage"}, {"name": "c2", "image": "myimage"}],
            ["myimage:latest", "zmyimage:latest"],
        ),
    ],
)
def test_image_signature(name, containers, want):
    plugin = ImageLocality(None, Framework(Registry(), None), Features())
    assert plugin.sign_pod(pod_with(containers)) == (
        [SignFragment(IMAGE_NAMES_SIGNER_NAME, want)],
        None,
    )


@pytest.mark.parametrize(
    ("name", "affinity", "ignore_preferred", "want", "signable"),
    [
        (
            "no affinity, default settings",
            None,
            False,
            [SignFragment(LABELS_SIGNER_NAME, {"foo": "bar"})],
            True,
        ),
        ("no affinity, ignore setting set", None, True, None, True),
        (
            "affinity set",
            {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{}]}},
            False,
            None,
            False,
        ),
    ],
)
def test_pod_affinity_signature(name, affinity, ignore_preferred, want, signable):
    plugin = new_inter_pod_affinity(ignore_preferred_terms_of_existing_pods=ignore_preferred)
    spec = {"affinity": affinity} if affinity is not None else {}
    fragments, status = plugin.sign_pod(make_pod(labels={"foo": "bar"}, **spec))
    assert (status is None or status.is_success()) == signable
    assert fragments == want


@pytest.mark.parametrize(
    ("name", "constraints", "defaulting_type", "signable"),
    [
        ("pod w constraints", [{"topologyKey": "test", "maxSkew": 1}], "System", False),
        ("pod no constraints but default", [], "System", False),
        ("pod no constraints no default", [], "List", True),
    ],
)
def test_pod_topo_signatures(name, constraints, defaulting_type, signable):
    plugin = new_topology_spread(defaulting_type=defaulting_type)
    pod = make_pod(topologySpreadConstraints=constraints) if constraints else make_pod()
    fragments, status = plugin.sign_pod(pod)
    assert fragments is None
    assert (status is None or status.is_success()) == signable
    if not signable:
        assert status.code == Code.UNSCHEDULABLE


def requests(**amounts: str) -> dict[str, Any]:
    return {"resources": {"requests": amounts}}


RESOURCE_CASES = [
    ("pod with CPU and memory requests", [requests(cpu="1000m", memory="2000")]),
    ("best-effort pod with no requests", [{}]),
    (
        "pod with multiple containers",
        [requests(cpu="500m", memory="1000"), requests(cpu="1500m", memory="3000")],
    ),
    (
        "DRA extended resource disabled",
        [requests(cpu="1000m", memory="2000", **{"example.com/gpu": "1"})],
    ),
]


def resource_pod(containers: list[dict[str, Any]]):
    return pod_with([{"name": f"c{i}", "image": "i", **c} for i, c in enumerate(containers)])


def fit_plugin() -> Fit:
    strategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=[ResourceSpec("cpu", 1)])
    return Fit(NodeResourcesFitArgs(scoring_strategy=strategy), None, Features())


def balanced_allocation_plugin() -> BalancedAllocation:
    args = NodeResourcesBalancedAllocationArgs(resources=[ResourceSpec("cpu", 1)])
    return BalancedAllocation(args, None, Features())


@pytest.mark.parametrize("build", [fit_plugin, balanced_allocation_plugin])
@pytest.mark.parametrize(("name", "containers"), RESOURCE_CASES, ids=[c[0] for c in RESOURCE_CASES])
def test_resource_plugins_sign_the_computed_request(build, name, containers):
    pod = resource_pod(containers)
    want = resources_signature(compute_pod_resource_request(pod, False))
    assert build().sign_pod(pod) == ([SignFragment(RESOURCES_SIGNER_NAME, want)], None)


def test_the_request_signature_holds_the_largest_need_at_any_moment():
    pod = resource_pod([requests(cpu="500m", memory="1000"), requests(cpu="1500m")])
    fragments, _ = fit_plugin().sign_pod(pod)
    assert fragments[0].value == {
        "MilliCPU": 2000,
        "Memory": 1000,
        "EphemeralStorage": 0,
        "AllowedPodNumber": 0,
        "ScalarResources": {},
    }


TOLERATIONS = [{"key": "b", "operator": "Exists"}, {"key": "a", "value": "1"}]


@pytest.mark.parametrize("cls", [NodeUnschedulable, TaintToleration])
def test_toleration_plugins_sign_the_sorted_tolerations(cls):
    fragments, status = cls(None, None, Features()).sign_pod(make_pod(tolerations=TOLERATIONS))
    assert status is None
    assert [f.key for f in fragments] == [TOLERATIONS_SIGNER_NAME]
    assert [t["key"] for t in fragments[0].value] == ["a", "b"]


def test_node_name_signs_the_node_name():
    fragments, _ = NodeName(None, None, Features()).sign_pod(make_pod(node_name="n1"))
    assert fragments == [SignFragment(NODE_NAME_SIGNER_NAME, "n1")]


def test_node_ports_signs_the_host_ports():
    pod = pod_with([{"name": "c", "ports": [{"containerPort": 1, "hostPort": 81}]}])
    assert NodePorts(None, None, Features()).sign_pod(pod) == (
        [SignFragment(HOST_PORTS_SIGNER_NAME, [81])],
        None,
    )


def test_node_affinity_signs_terms_in_a_canonical_order():
    def term(*values: str) -> dict[str, Any]:
        return {"matchExpressions": [{"key": "zone", "operator": "In", "values": list(values)}]}

    def affinity(*terms: dict[str, Any]) -> dict[str, Any]:
        return {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        }

    plugin = NodeAffinity(NodeAffinityArgs(), None, Features())
    one = make_pod(affinity=affinity(term("b", "a"), term("c")), nodeSelector={"x": "y"})
    other = make_pod(affinity=affinity(term("c"), term("a", "b")), nodeSelector={"x": "y"})
    assert plugin.sign_pod(one) == plugin.sign_pod(other)
    fragments, _ = plugin.sign_pod(make_pod())
    assert fragments == [
        SignFragment(NODE_AFFINITY_SIGNER_NAME, None),
        SignFragment(NODE_SELECTOR_SIGNER_NAME, {}),
    ]


VOLUMES = [
    {"name": "config", "configMap": {"name": "a"}},
    {"name": "token", "secret": {"secretName": "b"}},
    {"name": "data", "persistentVolumeClaim": {"claimName": "pvc"}},
]


@pytest.mark.parametrize("cls", [CSILimits, VolumeBinding, VolumeRestrictions, VolumeZone])
def test_volume_plugins_sign_the_volume_sources_but_config_maps_and_secrets(cls):
    plugin = cls.__new__(cls)  # sign_pod reads nothing the constructor sets
    fragments, status = plugin.sign_pod(make_pod(volumes=VOLUMES))
    assert status is None
    assert fragments == [
        SignFragment(VOLUMES_SIGNER_NAME, ['{"persistentVolumeClaim":{"claimName":"pvc"}}'])
    ]


def test_dynamic_resources_refuses_pods_with_claims():
    plugin = DynamicResources.__new__(DynamicResources)
    assert plugin.sign_pod(make_pod()) == (None, None)
    _, status = plugin.sign_pod(make_pod(resourceClaims=[{"name": "gpu"}]))
    assert status.code == Code.UNSCHEDULABLE
    assert status.message() == "pods with dra resource claims are not signable"
