"""HTTPExtender: a scheduler extender reached over HTTP(S) (upstream ``pkg/scheduler/extender.go``).

The scheduler calls it at upstream's points (see ``framework/scheduler/schedule_one.py`` and
``framework/preemption/preemption.py``): Filter after the Filter plugins, Prioritize beside the
Score plugins, Preempt while choosing preemption candidates, Bind instead of the Bind plugins.
Each call POSTs one JSON document to ``<urlPrefix>/<verb>``; every failure raises
``ExtenderError`` with the text upstream's error would have, since that text ends up on the pod.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from framework.api.field_errors import go_quote
from framework.extender.client import ExtenderHTTPError, HTTPClient
from framework.extender.go_json import GoJSONError, GoType, marshal, unmarshal
from framework.extender.tls import tls_settings_for
from framework.extender.types import (
    EXTENDER_BINDING_RESULT,
    EXTENDER_FILTER_RESULT,
    EXTENDER_PREEMPTION_RESULT,
    HOST_PRIORITY_LIST,
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderPreemptionArgs,
    MetaPod,
    MetaVictims,
)
from framework.interface.node_info import NodeInfo
from framework.preemption.types import Victims

if TYPE_CHECKING:
    from framework.api.pod import Container, Pod
    from framework.config.types import Extender

DEFAULT_EXTENDER_TIMEOUT = timedelta(seconds=5)


class ExtenderError(Exception):
    """An extender call failed; ``str()`` is upstream's error text."""


class HTTPExtender:
    """One configured extender (a ``KubeSchedulerConfiguration.extenders`` entry)."""

    __slots__ = (
        "_bind_verb",
        "_client",
        "_filter_verb",
        "_ignorable",
        "_managed_resources",
        "_node_cache_capable",
        "_preempt_verb",
        "_prioritize_verb",
        "_url",
        "_weight",
        "http_timeout",
    )

    def __init__(self, config: Extender) -> None:
        """Raises ``ExtenderTLSError`` for unusable TLS settings, as upstream's constructor."""
        self.http_timeout = config.http_timeout or DEFAULT_EXTENDER_TIMEOUT
        """How long one call may take, the answer included (zero means the default 5s)."""
        self._client = HTTPClient(self.http_timeout.total_seconds(), tls_settings_for(config))
        self._url = config.url_prefix
        self._filter_verb = config.filter_verb
        self._prioritize_verb = config.prioritize_verb
        self._preempt_verb = config.preempt_verb
        self._bind_verb = config.bind_verb
        self._weight = config.weight
        self._node_cache_capable = config.node_cache_capable
        self._managed_resources = frozenset(r.name for r in config.managed_resources)
        self._ignorable = config.ignorable

    def __repr__(self) -> str:
        return f"<HTTPExtender {self._url}>"

    # -- what the extender offers ---------------------------------------------------------------

    def name(self) -> str:
        """The urlPrefix: upstream names extenders (and their scores) by it."""
        return self._url

    def is_ignorable(self) -> bool:
        """Whether scheduling goes on when this extender fails or cannot be reached."""
        return self._ignorable

    def is_filter(self) -> bool:
        return self._filter_verb != ""

    def is_prioritizer(self) -> bool:
        return self._prioritize_verb != ""

    def is_binder(self) -> bool:
        return self._bind_verb != ""

    def supports_preemption(self) -> bool:
        return self._preempt_verb != ""

    def is_interested(self, pod: Pod) -> bool:
        """Without managed resources, every pod; else pods whose containers or init containers
        request, or limit, one of them."""
        if not self._managed_resources:
            return True
        return self._has_managed_resources(pod.spec.containers) or self._has_managed_resources(
            pod.spec.init_containers
        )

    def _has_managed_resources(self, containers: list[Container]) -> bool:
        managed = self._managed_resources
        return any(
            not managed.isdisjoint(c.resources.requests)
            or not managed.isdisjoint(c.resources.limits)
            for c in containers
        )

    # -- Filter -----------------------------------------------------------------------------------

    def filter(
        self, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]:
        """The nodes that pass, the failed ones and the failed-and-unresolvable ones (with
        their messages).

        A node-cache-capable extender answers with names, resolved against ``nodes``. Any other
        answers with whole nodes, and, as upstream, those become fresh NodeInfos holding only
        the node as returned (no pods): Score plugins then see the nodes that way.
        """
        if not self._filter_verb:
            return list(nodes), {}, {}
        by_name = {n.node_name: n for n in nodes}
        result = self._send(
            self._filter_verb, self._extender_args(pod, nodes), EXTENDER_FILTER_RESULT
        )
        if result.error:
            raise ExtenderError(result.error)
        if self._node_cache_capable and result.node_names is not None:
            passed = [self._input_node(by_name, name) for name in result.node_names]
        elif result.nodes is not None:
            passed = [_node_info(node) for node in result.nodes]
        else:
            passed = []
        return passed, result.failed_nodes or {}, result.failed_and_unresolvable_nodes or {}

    def _input_node(self, by_name: dict[str, NodeInfo], name: str) -> NodeInfo:
        node_info = by_name.get(name)
        if node_info is None:
            raise ExtenderError(
                f"extender {go_quote(self._url)} claims a filtered node {go_quote(name)} "
                "which is not found in the input node list"
            )
        return node_info

    # -- Prioritize -------------------------------------------------------------------------------

    def prioritize(self, pod: Pod, nodes: list[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """``(host, score)`` pairs and this extender's weight; without a prioritize verb, zero
        for every node and weight zero."""
        if not self._prioritize_verb:
            return [(n.node_name, 0) for n in nodes], 0
        priorities = self._send(
            self._prioritize_verb, self._extender_args(pod, nodes), HOST_PRIORITY_LIST
        )
        return [(p.host, p.score) for p in priorities or []], self._weight

    def _extender_args(self, pod: Pod, nodes: list[NodeInfo]) -> ExtenderArgs:
        if self._node_cache_capable:
            return ExtenderArgs(pod, node_names=[n.node_name for n in nodes])
        return ExtenderArgs(pod, nodes=[n.node for n in nodes if n.node is not None])

    # -- Bind -------------------------------------------------------------------------------------

    def bind(self, pod: Pod, node_name: str) -> None:
        """Asks the extender to bind the pod; binding it in the cluster is the extender's job."""
        if not self.is_binder():
            raise ExtenderError("unexpected empty bindVerb in extender")
        args = ExtenderBindingArgs(pod.name, pod.namespace, pod.uid, node_name)
        result = self._send(self._bind_verb, args, EXTENDER_BINDING_RESULT)
        if result.error:
            raise ExtenderError(result.error)

    # -- Preempt ----------------------------------------------------------------------------------

    def process_preemption(
        self, pod: Pod, victims_by_node: dict[str, Victims], node_lister: Any
    ) -> dict[str, Victims]:
        """The candidate nodes and victims the extender keeps (possibly changed).

        The answer names victims by uid; they are looked up among the pods on each node in
        ``node_lister`` (the snapshot), so a victim the scheduler does not know is an error.
        """
        if not self.supports_preemption():
            raise ExtenderError(
                f"preempt verb is not defined for extender {self._url} "
                "but run into ProcessPreemption"
            )
        if self._node_cache_capable:
            meta = {n: MetaVictims.from_victims(v) for n, v in victims_by_node.items()}
            args = ExtenderPreemptionArgs(pod, node_name_to_meta_victims=meta)
        else:
            args = ExtenderPreemptionArgs(pod, node_name_to_victims=victims_by_node)
        result = self._send(self._preempt_verb, args, EXTENDER_PREEMPTION_RESULT)
        return self._convert_to_victims(result.node_name_to_meta_victims or {}, node_lister)

    def _convert_to_victims(
        self, meta_victims_by_node: dict[str, MetaVictims | None], node_lister: Any
    ) -> dict[str, Victims]:
        victims_by_node = {}
        for node_name, meta_victims in meta_victims_by_node.items():
            node_info = node_lister.get(node_name)
            meta = meta_victims if meta_victims is not None else MetaVictims()
            pods = [self._victim_pod(meta_pod, node_info) for meta_pod in meta.pods]
            victims_by_node[node_name] = Victims(pods, meta.num_pdb_violations)
        return victims_by_node

    def _victim_pod(self, meta_pod: MetaPod, node_info: NodeInfo) -> Pod:
        for pod_info in node_info.pods:
            if pod_info.pod.uid == meta_pod.uid:
                return pod_info.pod
        raise ExtenderError(
            f"extender: {self._url} claims to preempt pod (UID: {meta_pod}) on node: "
            f"{node_info.node_name}, but the pod is not found on that node"
        )

    # -- the exchange ----------------------------------------------------------------------------

    def _send(self, verb: str, args: Any, result_type: GoType) -> Any:
        url = self._url.rstrip("/") + "/" + verb
        try:
            status, body = self._client.post_json(url, marshal(args.to_json()))
            if status != 200:
                raise ExtenderError(f"failed {verb} with extender at URL {url}, code {status}")
            return unmarshal(body, result_type)
        except (ExtenderHTTPError, GoJSONError) as err:
            raise ExtenderError(str(err)) from err


def _node_info(node: Any) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(node)
    return node_info
