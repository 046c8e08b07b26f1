"""InterPodAffinity: place pods near (affinity) or away from (anti-affinity) other pods.

Required terms filter nodes, both the incoming pod's and existing pods' anti-affinity; preferred
terms, in both directions, score them.
"""

from __future__ import annotations

from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.config.types import InterPodAffinityArgs
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import AffinityTerm, get_affinity_terms
from framework.interface.plugins import EnqueueExtensions, SignPlugin
from framework.interface.signers import LABELS_SIGNER_NAME
from framework.interface.status import Code, Status
from framework.interface.types import SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed, go_type_name
from framework.plugins.interpodaffinity.filtering import AffinityFiltering
from framework.plugins.interpodaffinity.pair_counts import pod_matches_all_affinity_terms
from framework.plugins.interpodaffinity.scoring import AffinityScoring


class InterPodAffinity(AffinityFiltering, AffinityScoring, EnqueueExtensions, SignPlugin):
    """Checks and scores inter-pod affinity and anti-affinity."""

    name = names.INTER_POD_AFFINITY

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        if not isinstance(args, InterPodAffinityArgs):
            raise ValueError(
                f"want args to be of type InterPodAffinityArgs, got {go_type_name(args)}"
            )
        self.handle = handle
        # The cluster plays upstream's Namespace lister.
        self.cluster = handle.cluster()
        self.hard_pod_affinity_weight = args.hard_pod_affinity_weight or 0
        self.ignore_preferred_terms_of_existing_pods = args.ignore_preferred_terms_of_existing_pods
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """A pod with pod (anti-)affinity depends on other pods: never signed. Otherwise its
        labels matter (other pods' terms may select it), unless existing pods' preferred terms
        are ignored."""
        affinity = pod.spec.affinity
        if affinity is not None and (
            affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None
        ):
            return None, Status(Code.UNSCHEDULABLE, "pods with InterPodAffinity are not signable")
        if self.ignore_preferred_terms_of_existing_pods:
            return None, None
        return [SignFragment(LABELS_SIGNER_NAME, dict(pod.metadata.labels))], None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self.enable_scheduling_queue_hint:
            # Without hints the queue's pre-check may swallow a Node/Add, so taint updates are
            # registered too (upstream issue 109437).
            node_actions |= ActionType.UPDATE_NODE_TAINT
        pod_actions = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, pod_actions), self.is_schedulable_after_pod_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_actions),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when a scheduled pod starts matching the pod's affinity, stops matching its
        anti-affinity, or a pod whose anti-affinity involved it goes away."""
        original, modified = as_typed(Pod, old_obj, new_obj)
        if original is not None and modified is not None and pod.uid == modified.uid:
            # Only label updates are registered: other pods' anti-affinity may no longer match.
            return QueueingHint.QUEUE
        if (modified is not None and _unscheduled(modified)) or (
            original is not None and _unscheduled(original)
        ):
            return QueueingHint.QUEUE_SKIP
        terms = _required_affinity_terms(pod)
        anti_terms = _required_anti_affinity_terms(pod)
        if original is not None and modified is not None:
            if not pod_matches_all_affinity_terms(
                terms, original
            ) and pod_matches_all_affinity_terms(terms, modified):
                return QueueingHint.QUEUE
            if pod_matches_all_affinity_terms(
                anti_terms, original
            ) and not pod_matches_all_affinity_terms(anti_terms, modified):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if modified is not None:
            if pod_matches_all_affinity_terms(terms, modified):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE_SKIP
        if pod_matches_all_affinity_terms(anti_terms, original):
            return QueueingHint.QUEUE
        if pod_matches_all_affinity_terms(_required_anti_affinity_terms(original), pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a node gains, or changes the value of, a topology key the pod's
        affinity needs; or loses or changes one its anti-affinity uses; or any node is added
        while the pod has anti-affinity."""
        original, modified = as_typed(Node, old_obj, new_obj)
        for term in _required_affinity_terms(pod):
            if original is None:
                if modified is not None and term.topology_key in modified.labels:
                    return QueueingHint.QUEUE
                continue
            before = original.labels.get(term.topology_key)
            after = modified.labels.get(term.topology_key) if modified is not None else None
            if before is None and after is not None:
                return QueueingHint.QUEUE
            if before is not None and after is not None and before != after:
                return QueueingHint.QUEUE
        for term in _required_anti_affinity_terms(pod):
            if original is None:
                return QueueingHint.QUEUE
            before = original.labels.get(term.topology_key)
            after = modified.labels.get(term.topology_key) if modified is not None else None
            if before is not None and after is None:
                return QueueingHint.QUEUE
            if before is not None and after is not None and before != after:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _unscheduled(pod: Pod) -> bool:
    return not pod.spec.node_name and not pod.status.nominated_node_name


def _required_affinity_terms(pod: Pod) -> list[AffinityTerm]:
    """The pod's required affinity terms; raises SelectorError (the hint then queues)."""
    affinity = pod.spec.affinity
    section = affinity.pod_affinity if affinity is not None else None
    return get_affinity_terms(pod, section.required if section is not None else [])


def _required_anti_affinity_terms(pod: Pod) -> list[AffinityTerm]:
    """The pod's required anti-affinity terms; raises SelectorError (the hint then queues)."""
    affinity = pod.spec.affinity
    section = affinity.pod_anti_affinity if affinity is not None else None
    return get_affinity_terms(pod, section.required if section is not None else [])
