"""A pod's affinity section: node affinity plus inter-pod affinity and anti-affinity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from framework.api.fields import Fields
from framework.api.labels import LabelSelector, LabelSelectorRequirement
from framework.api.node_affinity import NodeAffinity

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(slots=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None = None
    namespaces: list[str] = field(default_factory=list)
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] = field(default_factory=list)
    mismatch_label_keys: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> PodAffinityTerm:
        return cls(
            label_selector=f.parse_optional("labelSelector", LabelSelector.parse),
            namespaces=f.string_list("namespaces"),
            topology_key=f.string("topologyKey"),
            namespace_selector=f.parse_optional("namespaceSelector", LabelSelector.parse),
            match_label_keys=f.string_list("matchLabelKeys"),
            mismatch_label_keys=f.string_list("mismatchLabelKeys"),
        )

    def merge_label_keys(self, pod_labels: Mapping[str, str]) -> None:
        """Fold ``matchLabelKeys``/``mismatchLabelKeys`` into the label selector.

        The API server does this when a pod is created (the scheduler itself never reads the
        keys), so manifests that were never admitted need it done here. Keys the pod has no
        label for are skipped; a term without a label selector matches nothing anyway.
        """
        if self.label_selector is None:
            return
        added = [
            LabelSelectorRequirement(key, operator, (pod_labels[key],))
            for keys, operator in (
                (self.match_label_keys, "In"),
                (self.mismatch_label_keys, "NotIn"),
            )
            for key in keys
            if key in pod_labels
        ]
        if added:
            self.label_selector = LabelSelector(
                dict(self.label_selector.match_labels),
                [*self.label_selector.match_expressions, *added],
            )


@dataclass(slots=True)
class WeightedPodAffinityTerm:
    weight: int
    pod_affinity_term: PodAffinityTerm

    @classmethod
    def parse(cls, f: Fields) -> WeightedPodAffinityTerm:
        return cls(f.integer("weight"), PodAffinityTerm.parse(f.mapping("podAffinityTerm")))


@dataclass(slots=True)
class PodAffinity:
    """Used for both pod affinity and pod anti-affinity, which share one shape."""

    required: list[PodAffinityTerm] = field(default_factory=list)
    preferred: list[WeightedPodAffinityTerm] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> PodAffinity:
        return cls(
            required=f.parse_list(_REQUIRED, PodAffinityTerm.parse),
            preferred=f.parse_list(_PREFERRED, WeightedPodAffinityTerm.parse),
        )

    def all_terms(self) -> list[PodAffinityTerm]:
        return [*self.required, *(w.pod_affinity_term for w in self.preferred)]


PodAntiAffinity = PodAffinity


@dataclass(slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None

    @classmethod
    def parse(cls, f: Fields) -> Affinity:
        return cls(
            node_affinity=f.parse_optional("nodeAffinity", NodeAffinity.parse),
            pod_affinity=f.parse_optional("podAffinity", PodAffinity.parse),
            pod_anti_affinity=f.parse_optional("podAntiAffinity", PodAffinity.parse),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> Affinity:
        return cls.parse(Fields.of(data, "Affinity"))
