"""Kubernetes objects as the scheduler reads them, parsed from ordinary manifests.

Quantities with exact semantics, Pod and Node and the other kinds scheduling reads,
label selectors, taints and tolerations, node affinity, and pod resource requests.
"""

from framework.api.affinity import Affinity, PodAffinity, PodAffinityTerm, WeightedPodAffinityTerm
from framework.api.errors import ObjectError
from framework.api.labels import LabelSelector, Selector, SelectorError
from framework.api.loader import dump_objects, load_objects, parse_object
from framework.api.meta import KubeObject, ObjectMeta, OwnerReference
from framework.api.node import Node
from framework.api.node_affinity import NodeAffinity, NodeSelector, RequiredNodeAffinity
from framework.api.pod import Container, Pod, PodSpec, PodStatus
from framework.api.quantity import Quantity, QuantityError
from framework.api.taints import Taint, Toleration

__all__ = [
    "Affinity",
    "Container",
    "KubeObject",
    "LabelSelector",
    "Node",
    "NodeAffinity",
    "NodeSelector",
    "ObjectError",
    "ObjectMeta",
    "OwnerReference",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodSpec",
    "PodStatus",
    "Quantity",
    "QuantityError",
    "RequiredNodeAffinity",
    "Selector",
    "SelectorError",
    "Taint",
    "Toleration",
    "WeightedPodAffinityTerm",
    "dump_objects",
    "load_objects",
    "parse_object",
]
