"""Node declared features: which features a pod needs from its node (upstream
``component-helpers/nodedeclaredfeatures``, the part the scheduler uses).

Kubelets publish the features they support in ``status.declaredFeatures``; the scheduler infers
from the pod spec which of them the pod requires. Feature sets are frozensets of names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from framework.api.fields import Fields
from framework.api.pod import Pod

Version = tuple[int, int, int]

KUBE_SCHEDULER_VERSION: Version = (1, 36, 2)
"""The version inference is run for; features whose max version is older are not required."""

RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS = "RestartAllContainersOnContainerExits"
IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING = "InPlacePodLevelResourcesVerticalScaling"
EXTEND_WEB_SOCKETS_TO_KUBELET = "ExtendWebSocketsToKubelet"
IN_PLACE_POD_VERTICAL_SCALING_INIT_CONTAINERS = "InPlacePodVerticalScalingInitContainers"
USER_NAMESPACES_HOST_NETWORK_SUPPORT = "UserNamespacesHostNetworkSupport"

_RESTART_ALL_CONTAINERS_ACTION = "RestartAllContainers"


@dataclass(frozen=True, slots=True)
class Feature:
    """A declared feature: its name, whether scheduling a pod needs it, and the last version
    whose scheduling still has to check it (None: every version does)."""

    name: str
    infer_for_scheduling: Callable[[Pod], bool]
    max_version: Version | None = None


class FeatureFramework:
    """The registered features (upstream ``ndf.Framework``)."""

    __slots__ = ("features",)

    def __init__(self, features: Iterable[Feature]) -> None:
        self.features = tuple(features)

    def infer_for_pod_scheduling(self, pod: Pod, target_version: Version | None) -> frozenset[str]:
        """The features a node must declare to run the pod."""
        if target_version is None:
            raise ValueError("target version cannot be nil")
        return frozenset(
            feature.name
            for feature in self.features
            if (feature.max_version is None or target_version <= feature.max_version)
            and feature.infer_for_scheduling(pod)
        )


def _never(pod: Pod) -> bool:
    """Features that only matter for pod updates (resize) or not for pods at all."""
    return False


def requires_restart_all_containers(pod: Pod) -> bool:
    """A container restart rule with action RestartAllContainers."""
    spec = _spec(pod)
    containers = spec.mappings("containers") + spec.mappings("initContainers")
    return any(
        rule.string("action") == _RESTART_ALL_CONTAINERS_ACTION
        for container in containers
        for rule in container.mappings("restartPolicyRules")
    )


def requires_user_namespaces_host_network(pod: Pod) -> bool:
    """Host network together with a user namespace (``hostUsers: false``)."""
    spec = _spec(pod)
    return pod.spec.host_network and spec.has("hostUsers") and not spec.boolean("hostUsers")


def _spec(pod: Pod) -> Fields:
    # The fields read here are not modelled on PodSpec, so they come from the manifest.
    return Fields.of(pod.manifest, pod.describe()).mapping("spec")


ALL_FEATURES = (
    Feature(RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS, requires_restart_all_containers),
    Feature(IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING, _never),
    Feature(EXTEND_WEB_SOCKETS_TO_KUBELET, _never),
    Feature(IN_PLACE_POD_VERTICAL_SCALING_INIT_CONTAINERS, _never),
    Feature(USER_NAMESPACES_HOST_NETWORK_SUPPORT, requires_user_namespaces_host_network),
)
"""Every feature registered in v1.36 (upstream ``features.AllFeatures``)."""

DEFAULT_FRAMEWORK = FeatureFramework(ALL_FEATURES)
