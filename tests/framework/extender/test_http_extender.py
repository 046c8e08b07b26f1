"""HTTPExtender against scripted servers: what it sends, how it reads answers, how it fails."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from framework.api.loader import load_objects
from framework.backend.cache.snapshot import new_snapshot
from framework.config.types import Extender, ExtenderManagedResource
from framework.extender.http_extender import DEFAULT_EXTENDER_TIMEOUT, ExtenderError, HTTPExtender
from framework.extender.types import MetaVictims
from framework.interface.node_info import NodeInfo
from framework.preemption.types import Victims
from tests.framework.builders import StaticLister, make_node, make_node_info, make_pod
from tests.framework.extender.servers import Reply, ScriptedServer, serving, unused_port


def extender(url: str, **config) -> HTTPExtender:
    verbs = {
        "filter_verb": "filter",
        "prioritize_verb": "prioritize",
        "preempt_verb": "preempt",
        "bind_verb": "bind",
        "weight": 1,
    }
    return HTTPExtender(Extender(url_prefix=url, **{**verbs, **config}))


def error_of(call) -> str:
    """The text of the ExtenderError ``call()`` raises."""
    with pytest.raises(ExtenderError) as err:
        call()
    return str(err.value)


def names(node_infos: list[NodeInfo]) -> list[str]:
    return [n.node_name for n in node_infos]


NODES = [make_node_info("node1"), make_node_info("node2"), make_node_info("node3")]


# -- Filter ------------------------------------------------------------------------------------


def test_filter_sends_the_pod_and_whole_nodes_without_a_node_cache():
    pod = make_pod("web", uid="uid-web")
    with serving(ScriptedServer(lambda verb, args: {"Nodes": args["Nodes"]})) as server:
        extender(server.url()).filter(pod, NODES)
    (request,) = server.requests
    assert (request.path, request.content_type) == ("/filter", "application/json")
    assert set(request.body) == {"Pod", "Nodes", "NodeNames"}
    assert request.body["NodeNames"] is None
    assert request.body["Pod"]["metadata"] == {
        "name": "web",
        "namespace": "default",
        "labels": {},
        "uid": "uid-web",
    }
    assert request.body["Pod"]["spec"]["containers"][0]["name"] == "c"
    items = request.body["Nodes"]["items"]
    assert [i["metadata"]["name"] for i in items] == ["node1", "node2", "node3"]
    assert items[0]["status"]["allocatable"] == {"cpu": "4", "memory": "8Gi", "pods": "110"}


def test_filter_sends_node_names_only_to_a_node_cache_capable_extender():
    with serving(ScriptedServer(lambda verb, args: {"NodeNames": []})) as server:
        extender(server.url(), node_cache_capable=True).filter(make_pod(), NODES)
    body = server.requests[0].body
    assert (body["Nodes"], body["NodeNames"]) == (None, ["node1", "node2", "node3"])


def test_every_pod_carries_its_uid_even_when_its_manifest_had_none():
    pod = make_pod("web")
    with serving(ScriptedServer(lambda verb, args: {"NodeNames": []})) as server:
        extender(server.url(), node_cache_capable=True).filter(pod, NODES)
    assert server.requests[0].body["Pod"]["metadata"]["uid"] == pod.uid != ""


def test_pods_read_from_yaml_with_timestamps_are_sent():
    (pod,) = load_objects(
        "apiVersion: v1\nkind: Pod\n"
        "metadata: {name: web, uid: u1, creationTimestamp: 2026-01-01T10:00:00Z}\n"
        "spec: {containers: [{name: c, image: nginx}]}\n"
    )
    with serving(ScriptedServer(lambda verb, args: {"NodeNames": []})) as server:
        extender(server.url(), node_cache_capable=True).filter(pod, NODES)
    metadata = server.requests[0].body["Pod"]["metadata"]
    assert metadata["creationTimestamp"] == "2026-01-01T10:00:00Z"


def test_names_in_a_filter_answer_are_the_scheduler_s_own_node_infos():
    answer = {
        "NodeNames": ["node3", "node1"],
        "FailedNodes": {"node2": "node(s) too hot"},
        "FailedAndUnresolvableNodes": {},
    }
    with serving(ScriptedServer(lambda verb, args: answer)) as server:
        passed, failed, unresolvable = extender(server.url(), node_cache_capable=True).filter(
            make_pod(), NODES
        )
    assert passed == [NODES[2], NODES[0]]
    assert passed[0] is NODES[2]
    assert (failed, unresolvable) == ({"node2": "node(s) too hot"}, {})


def test_whole_nodes_in_a_filter_answer_become_fresh_node_infos_without_pods():
    busy = make_node_info("node1", make_pod("running", node_name="node1", cpu="1"))

    def relabel(verb, args):
        node = args["Nodes"]["items"][0]
        node["metadata"]["labels"] = {"seen-by": "extender"}
        return {"Nodes": {"items": [node]}}

    with serving(ScriptedServer(relabel)) as server:
        (passed,), _, _ = extender(server.url()).filter(make_pod(), [busy])
    assert passed is not busy
    assert (passed.node_name, passed.pods, passed.requested.milli_cpu) == ("node1", [], 0)
    assert passed.node.labels == {"seen-by": "extender"}
    assert passed.allocatable.milli_cpu == 4000


@pytest.mark.parametrize(
    ("answer", "cache", "want_passed", "want_failed", "want_unresolvable"),
    [
        ({}, False, [], {}, {}),
        ({"NodeNames": ["node1"]}, False, [], {}, {}),
        ({"Nodes": {"items": None}}, False, [], {}, {}),
        (
            {"Nodes": {"items": [{"metadata": {"name": "node2"}}]}, "NodeNames": ["node1"]},
            True,
            ["node1"],
            {},
            {},
        ),
        ({"Nodes": {"items": [{"metadata": {"name": "node2"}}]}}, True, ["node2"], {}, {}),
        (
            {
                "nodenames": ["node1"],
                "failednodes": {"node2": "a"},
                "FAILEDANDUNRESOLVABLENODES": {"node3": "b"},
            },
            True,
            ["node1"],
            {"node2": "a"},
            {"node3": "b"},
        ),
        ({"NodeNames": None, "FailedNodes": None}, True, [], {}, {}),
    ],
    ids=[
        "an empty answer lets no node pass",
        "names from an extender without a node cache are ignored",
        "a node list without items lets no node pass",
        "a node-cache-capable extender's names win over its nodes",
        "a node-cache-capable extender may answer with whole nodes",
        "keys match field names ignoring case, as Go's decoder does",
        "null fields are empty",
    ],
)
def test_filter_reads_answers_as_upstream(
    answer, cache, want_passed, want_failed, want_unresolvable
):
    with serving(ScriptedServer(lambda verb, args: answer)) as server:
        passed, failed, unresolvable = extender(server.url(), node_cache_capable=cache).filter(
            make_pod(), NODES
        )
    assert (names(passed), failed, unresolvable) == (want_passed, want_failed, want_unresolvable)


def test_a_filter_answer_naming_an_unknown_node_is_an_error():
    with serving(ScriptedServer(lambda verb, args: {"NodeNames": ["node9"]})) as server:
        url = server.url()
        got = error_of(lambda: extender(url, node_cache_capable=True).filter(make_pod(), NODES))
    assert got == (
        f'extender "{url}" claims a filtered node "node9" which is not found in the input node list'
    )


def test_a_filter_answer_with_an_error_fails_with_that_error():
    with serving(ScriptedServer(lambda verb, args: {"Error": "quota exhausted"})) as server:
        assert error_of(lambda: extender(server.url()).filter(make_pod(), NODES)) == (
            "quota exhausted"
        )


def test_without_a_filter_verb_every_node_passes_and_nothing_is_sent():
    with serving(ScriptedServer(lambda verb, args: {})) as server:
        got = extender(server.url(), filter_verb="").filter(make_pod(), NODES)
    assert got == (NODES, {}, {})
    assert server.requests == []


# -- Prioritize --------------------------------------------------------------------------------


def test_prioritize_returns_the_extender_s_scores_and_its_weight():
    answer = [{"Host": "node1", "Score": 3}, {"host": "node2", "score": 10}]
    with serving(ScriptedServer(lambda verb, args: answer)) as server:
        got = extender(server.url(), weight=5).prioritize(make_pod(), NODES)
    assert got == ([("node1", 3), ("node2", 10)], 5)
    assert server.verbs() == ["prioritize"]
    assert len(server.requests[0].body["Nodes"]["items"]) == 3


def test_without_a_prioritize_verb_every_node_scores_zero_with_weight_zero():
    with serving(ScriptedServer(lambda verb, args: [])) as server:
        got = extender(server.url(), prioritize_verb="", weight=5).prioritize(make_pod(), NODES)
    assert got == ([("node1", 0), ("node2", 0), ("node3", 0)], 0)
    assert server.requests == []


def test_a_null_priority_list_scores_nothing():
    with serving(ScriptedServer(lambda verb, args: None)) as server:
        assert extender(server.url()).prioritize(make_pod(), NODES) == ([], 1)


# -- Bind --------------------------------------------------------------------------------------


def test_bind_sends_the_pod_s_name_namespace_uid_and_the_node():
    with serving(ScriptedServer(lambda verb, args: {"Error": ""})) as server:
        extender(server.url()).bind(make_pod("web", "team-a", uid="uid-1"), "node2")
    assert server.requests[0].body == {
        "PodName": "web",
        "PodNamespace": "team-a",
        "PodUID": "uid-1",
        "Node": "node2",
    }


def test_a_bind_answer_with_an_error_fails_with_that_error():
    with serving(ScriptedServer(lambda verb, args: {"Error": "node is full"})) as server:
        assert error_of(lambda: extender(server.url()).bind(make_pod(), "node1")) == "node is full"


def test_bind_without_a_bind_verb_is_an_error():
    bare = extender("http://127.0.0.1:1/", bind_verb="")
    assert (
        error_of(lambda: bare.bind(make_pod(), "node1")) == "unexpected empty bindVerb in extender"
    )


# -- Preempt -----------------------------------------------------------------------------------

POD1 = make_pod("pod1", uid="uid1", node_name="node1")
POD2 = make_pod("pod2", uid="uid2", node_name="node2")
POD3 = make_pod("pod3", uid="uid3", node_name="node1")
POD4 = make_pod("pod4", uid="uid4", node_name="node2")
LISTER = StaticLister([make_node_info("node1", POD1, POD3), make_node_info("node2", POD2, POD4)])
VICTIMS = {"node1": Victims([POD1, POD3], 1), "node2": Victims([POD2, POD4], 2)}
SNAPSHOT_LISTER = new_snapshot([], [make_node("node1")]).node_infos()
META_VICTIMS_JSON = {
    "node1": {"Pods": [{"UID": "uid1"}, {"UID": "uid3"}], "NumPDBViolations": 1},
    "node2": {"Pods": [{"UID": "uid2"}, {"UID": "uid4"}], "NumPDBViolations": 2},
}


def keep_all(verb, args):
    return {"NodeNameToMetaVictims": META_VICTIMS_JSON}


def test_victims_become_meta_victims_with_their_pdb_violations():
    """Upstream TestConvertToMetaVictims."""
    got = {n: MetaVictims.from_victims(v).to_json() for n, v in VICTIMS.items()}
    assert got == META_VICTIMS_JSON


def test_preempt_sends_whole_victims_without_a_node_cache_and_reads_uids_back():
    """Upstream TestConvertToVictims, through the wire."""
    with serving(ScriptedServer(keep_all)) as server:
        got = extender(server.url()).process_preemption(make_pod("big"), VICTIMS, LISTER)
    body = server.requests[0].body
    assert body["NodeNameToMetaVictims"] is None
    sent = body["NodeNameToVictims"]["node1"]
    assert [p["metadata"]["uid"] for p in sent["Pods"]] == ["uid1", "uid3"]
    assert sent["NumPDBViolations"] == 1
    assert got == VICTIMS
    assert got["node1"].pods[0] is LISTER.get("node1").pods[0].pod


def test_preempt_sends_meta_victims_to_a_node_cache_capable_extender():
    with serving(ScriptedServer(keep_all)) as server:
        extender(server.url(), node_cache_capable=True).process_preemption(
            make_pod("big"), VICTIMS, LISTER
        )
    body = server.requests[0].body
    assert (body["NodeNameToVictims"], body["NodeNameToMetaVictims"]) == (None, META_VICTIMS_JSON)


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ({}, {}),
        ({"NodeNameToMetaVictims": {"node2": {"Pods": [{"UID": "uid4"}]}}}, {"node2": ["pod4"]}),
        ({"NodeNameToMetaVictims": {"node1": None}}, {"node1": []}),
    ],
    ids=[
        "an answer without victims keeps no node",
        "the extender may drop nodes and victims",
        "a null entry keeps the node without victims",
    ],
)
def test_preempt_answers_name_the_kept_nodes_and_victims(answer, want):
    with serving(ScriptedServer(lambda verb, args: answer)) as server:
        got = extender(server.url()).process_preemption(make_pod("big"), VICTIMS, LISTER)
    assert {n: [p.name for p in v.pods] for n, v in got.items()} == want


def test_a_victim_the_scheduler_does_not_know_is_an_error():
    answer = {"NodeNameToMetaVictims": {"node1": {"Pods": [{"UID": "uid2"}]}}}
    with serving(ScriptedServer(lambda verb, args: answer)) as server:
        url = server.url()
        got = error_of(lambda: extender(url).process_preemption(make_pod("big"), VICTIMS, LISTER))
    assert got == (
        f"extender: {url} claims to preempt pod (UID: &{{uid2}}) on node: node1, "
        "but the pod is not found on that node"
    )


def test_a_node_the_scheduler_does_not_know_is_the_lister_s_error():
    answer = {"NodeNameToMetaVictims": {"node7": {"Pods": []}}}
    with serving(ScriptedServer(lambda verb, args: answer)) as server:
        ext = extender(server.url())
        with pytest.raises(LookupError) as err:
            ext.process_preemption(make_pod("big"), VICTIMS, SNAPSHOT_LISTER)
    assert str(err.value) == 'nodeinfo not found for node name "node7"'


def test_preempt_without_a_preempt_verb_is_an_error():
    bare = extender("http://x/", preempt_verb="")
    assert error_of(lambda: bare.process_preemption(make_pod(), VICTIMS, LISTER)) == (
        "preempt verb is not defined for extender http://x/ but run into ProcessPreemption"
    )


# -- which pods ------------------------------------------------------------------------------


def pod_with(**container) -> object:
    return make_pod(containers=[{"name": "app", **container}])


@pytest.mark.parametrize(
    ("managed", "pod", "want"),
    [
        ([], make_pod(containers=[]), True),
        (["memory"], pod_with(), False),
        (["memory"], pod_with(resources={"requests": {"memory": "0"}}), True),
        (["memory"], pod_with(resources={"limits": {"memory": "0"}}), True),
        (
            ["memory"],
            make_pod(
                containers=[{"name": "app"}],
                initContainers=[{"name": "init", "resources": {"requests": {"memory": "0"}}}],
            ),
            True,
        ),
        (["example.com/gpu"], pod_with(resources={"requests": {"cpu": "1"}}), False),
    ],
    ids=[
        "without managed resources every pod is interesting",
        "a container without resources is not",
        "a container requesting a managed resource is",
        "a container limiting a managed resource is",
        "an init container requesting a managed resource is",
        "other resources do not count",
    ],
)
def test_it_is_interested_in_pods_using_its_managed_resources(managed, pod, want):
    """Upstream TestIsInterested."""
    resources = [ExtenderManagedResource(name) for name in managed]
    assert extender("http://x/", managed_resources=resources).is_interested(pod) is want


def test_the_verbs_say_what_the_extender_offers():
    full = extender("http://x/", ignorable=True)
    bare = HTTPExtender(Extender(url_prefix="http://y/"))
    assert (full.name(), full.is_filter(), full.is_prioritizer()) == ("http://x/", True, True)
    assert (full.is_binder(), full.supports_preemption(), full.is_ignorable()) == (True,) * 3
    assert (bare.is_filter(), bare.is_prioritizer(), bare.is_binder()) == (False,) * 3
    assert (bare.supports_preemption(), bare.is_ignorable()) == (False, False)


# -- the exchange ------------------------------------------------------------------------------


def test_the_verb_is_appended_to_the_url_prefix_once():
    with serving(ScriptedServer(lambda verb, args: [])) as server:
        extender(server.url(path="/scheduler/v1//")).prioritize(make_pod(), NODES)
        extender(server.url(path="/scheduler/v1")).prioritize(make_pod(), NODES)
    assert [r.path for r in server.requests] == ["/scheduler/v1/prioritize"] * 2


def test_an_answer_other_than_200_fails_with_upstream_s_message():
    with serving(ScriptedServer(lambda verb, args: Reply(503, b"{}"))) as server:
        url = server.url()
        got = error_of(lambda: extender(url).filter(make_pod(), NODES))
    assert got == f"failed filter with extender at URL {url}filter, code 503"


def test_an_unreachable_extender_fails_as_go_s_client_does():
    port = unused_port()
    got = error_of(lambda: extender(f"http://127.0.0.1:{port}").filter(make_pod(), NODES))
    assert got == (
        f'Post "http://127.0.0.1:{port}/filter": dial tcp 127.0.0.1:{port}: connect: '
        "connection refused"
    )


def test_an_extender_slower_than_http_timeout_fails_with_go_s_timeout_error():
    slow = ScriptedServer(lambda verb, args: Reply(body=b"[]", delay=2.0))
    with serving(slow) as server:
        url = server.url()
        impatient = extender(url, http_timeout=timedelta(milliseconds=200))
        start = time.monotonic()
        got = error_of(lambda: impatient.prioritize(make_pod(), NODES))
        elapsed = time.monotonic() - start
    assert got == (
        f'Post "{url}prioritize": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)"
    )
    assert 0.2 <= elapsed < 1.5


def test_an_answer_whose_body_comes_too_late_fails_while_reading_it():
    slow = ScriptedServer(lambda verb, args: Reply(body=b"[]", body_delay=2.0))
    with serving(slow) as server:
        impatient = extender(server.url(), http_timeout=timedelta(milliseconds=200))
        got = error_of(lambda: impatient.prioritize(make_pod(), NODES))
    assert got == (
        "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
    )


def test_an_extender_hanging_up_without_an_answer_fails_with_eof():
    def hang_up(verb, args):
        raise ConnectionAbortedError("no answer")

    with serving(ScriptedServer(hang_up)) as server:
        url = server.url()
        assert (
            error_of(lambda: extender(url).filter(make_pod(), NODES)) == f'Post "{url}filter": EOF'
        )


def test_http_timeout_defaults_to_five_seconds():
    assert extender("http://x/").http_timeout == DEFAULT_EXTENDER_TIMEOUT == timedelta(seconds=5)
    configured = extender("http://x/", http_timeout=timedelta(seconds=2))
    assert configured.http_timeout == timedelta(seconds=2)


def test_a_url_without_http_or_https_is_refused_by_the_client():
    got = error_of(lambda: extender("unix:///run/extender.sock").filter(make_pod(), NODES))
    assert got == ('Post "unix:///run/extender.sock/filter": unsupported protocol scheme "unix"')


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (b"", "EOF"),
        (b"  \n", "EOF"),
        (b'{"Nodes": ', "unexpected EOF"),
        (b"<html>", "invalid character '<' looking for beginning of value"),
        (
            b'{"NodeNames": "node1"}',
            "json: cannot unmarshal string into Go struct field "
            "ExtenderFilterResult.NodeNames of type []string",
        ),
        (
            b'{"FailedNodes": {"node1": 5}}',
            "json: cannot unmarshal number into Go struct field "
            "ExtenderFilterResult.FailedNodes of type string",
        ),
        (
            b"[1]",
            "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult",
        ),
    ],
    ids=[
        "an empty body",
        "a body of whitespace",
        "a truncated body",
        "a body that is not JSON",
        "a string where a list belongs",
        "a number where a message belongs",
        "a list where an object belongs",
    ],
)
def test_malformed_filter_answers_fail_with_go_s_decoding_errors(body, want):
    with serving(ScriptedServer(lambda verb, args: Reply(body=body))) as server:
        ext = extender(server.url(), node_cache_capable=True)
        assert error_of(lambda: ext.filter(make_pod(), NODES)) == want


def test_only_the_first_json_value_of_an_answer_is_read():
    body = b'{"NodeNames": ["node1"]} trailing words'
    with serving(ScriptedServer(lambda verb, args: Reply(body=body))) as server:
        passed, _, _ = extender(server.url(), node_cache_capable=True).filter(make_pod(), NODES)
    assert names(passed) == ["node1"]
