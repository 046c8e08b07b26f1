"""Reading and writing the extender protocol's JSON with Go's encoding/json rules."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from framework.extender.go_json import GoJSONError, marshal, unmarshal
from framework.extender.types import (
    EXTENDER_BINDING_RESULT,
    EXTENDER_FILTER_RESULT,
    EXTENDER_PREEMPTION_RESULT,
    HOST_PRIORITY_LIST,
    ExtenderBindingResult,
    HostPriority,
    MetaPod,
    MetaVictims,
)


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (b'[{"Host":"n1","Score":7}]', [HostPriority("n1", 7)]),
        (b'[{"host":"n1","SCORE":-3}]', [HostPriority("n1", -3)]),
        (b'[{"Host":"n1","Score":null,"Extra":[1,2]}]', [HostPriority("n1", 0)]),
        (b'[{"Score":1,"score":2}]', [HostPriority("", 2)]),
        (b"[null]", [HostPriority()]),
        (b"null", None),
        (b"[]", []),
        (b'[{"Score":9223372036854775807}]', [HostPriority("", 9223372036854775807)]),
    ],
    ids=[
        "exact field names",
        "field names in any case",
        "null and unknown fields are skipped",
        "of two keys for one field the last wins",
        "a null element is a zero element",
        "a null list is no list",
        "an empty list",
        "the largest int64",
    ],
)
def test_host_priority_lists_decode_as_go_decodes_them(body, want):
    assert unmarshal(body, HOST_PRIORITY_LIST) == want


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (
            b'[{"Score":5.5}]',
            "json: cannot unmarshal number 5.5 into Go struct field "
            "HostPriority.Score of type int64",
        ),
        (
            b'[{"Score":5.0}]',
            "json: cannot unmarshal number 5.0 into Go struct field "
            "HostPriority.Score of type int64",
        ),
        (
            b'[{"Score":1e2}]',
            "json: cannot unmarshal number 1e2 into Go struct field "
            "HostPriority.Score of type int64",
        ),
        (
            b'[{"Score":9223372036854775808}]',
            "json: cannot unmarshal number 9223372036854775808 into Go struct field "
            "HostPriority.Score of type int64",
        ),
        (
            b'[{"Score":"7"}]',
            "json: cannot unmarshal string into Go struct field HostPriority.Score of type int64",
        ),
        (
            b'[{"Host":true}]',
            "json: cannot unmarshal bool into Go struct field HostPriority.Host of type string",
        ),
        (b'["n1"]', "json: cannot unmarshal string into Go value of type v1.HostPriority"),
        (b'{"Host":"n1"}', "json: cannot unmarshal object into Go value of type []v1.HostPriority"),
        (b"NaN", "invalid character 'N' looking for beginning of value"),
        (b"[1,]", "invalid character ']' looking for beginning of value"),
        (b'{"Host" "n1"}', "invalid character '\"' after object key"),
        (b"{'Host': 1}", "invalid character '\\'' looking for beginning of object key string"),
        (b'["n1', "unexpected EOF"),
    ],
    ids=[
        "a fraction where an integer belongs",
        "an integral float where an integer belongs",
        "an exponent where an integer belongs",
        "an integer beyond int64",
        "a quoted number",
        "a bool where a string belongs",
        "a string where an element belongs",
        "an object where a list belongs",
        "NaN is not JSON",
        "a trailing comma",
        "a missing colon",
        "single quotes",
        "an unterminated string",
    ],
)
def test_malformed_answers_fail_with_go_s_words(body, want):
    with pytest.raises(GoJSONError) as err:
        unmarshal(body, HOST_PRIORITY_LIST)
    assert str(err.value) == want


def test_errors_inside_nested_structs_name_the_innermost_struct_and_the_whole_path():
    body = b'{"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":5}]}}}'
    with pytest.raises(GoJSONError) as err:
        unmarshal(body, EXTENDER_PREEMPTION_RESULT)
    assert str(err.value) == (
        "json: cannot unmarshal number into Go struct field "
        "MetaPod.NodeNameToMetaVictims.Pods.UID of type string"
    )


@pytest.mark.parametrize(
    ("go_type", "body", "want"),
    [
        (
            EXTENDER_PREEMPTION_RESULT,
            b'{"NodeNameToMetaVictims":[]}',
            "json: cannot unmarshal array into Go struct field "
            "ExtenderPreemptionResult.NodeNameToMetaVictims of type map[string]*v1.MetaVictims",
        ),
        (
            EXTENDER_PREEMPTION_RESULT,
            b'{"NodeNameToMetaVictims":{"n1":"x"}}',
            "json: cannot unmarshal string into Go struct field "
            "ExtenderPreemptionResult.NodeNameToMetaVictims of type v1.MetaVictims",
        ),
        (
            EXTENDER_PREEMPTION_RESULT,
            b'{"NodeNameToMetaVictims":{"n1":{"Pods":{}}}}',
            "json: cannot unmarshal object into Go struct field "
            "MetaVictims.NodeNameToMetaVictims.Pods of type []*v1.MetaPod",
        ),
        (
            EXTENDER_FILTER_RESULT,
            b'{"FailedNodes":["n1"]}',
            "json: cannot unmarshal array into Go struct field "
            "ExtenderFilterResult.FailedNodes of type v1.FailedNodesMap",
        ),
        (
            EXTENDER_FILTER_RESULT,
            b'{"Nodes":{"items":{}}}',
            "json: cannot unmarshal object into Go struct field "
            "NodeList.Nodes.items of type []v1.Node",
        ),
    ],
    ids=[
        "a list where a map belongs",
        "a string where victims belong",
        "an object where the victim list belongs",
        "a list where the failed nodes map belongs",
        "an object where the node items belong",
    ],
)
def test_type_errors_name_go_s_types(go_type, body, want):
    with pytest.raises(GoJSONError) as err:
        unmarshal(body, go_type)
    assert str(err.value) == want


def test_preemption_results_decode_into_meta_victims():
    body = b'{"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"u1"},null],"NumPDBViolations":2}}}'
    result = unmarshal(body, EXTENDER_PREEMPTION_RESULT)
    assert result.node_name_to_meta_victims == {"n1": MetaVictims([MetaPod("u1"), MetaPod()], 2)}


def test_a_null_answer_is_the_zero_struct():
    assert unmarshal(b"null", EXTENDER_BINDING_RESULT) == ExtenderBindingResult("")


def test_nodes_in_a_filter_result_are_parsed_as_nodes():
    body = b'{"Nodes":{"items":[{"metadata":{"name":"n1","labels":{"a":"b"}}}]}}'
    (node,) = unmarshal(body, EXTENDER_FILTER_RESULT).nodes
    assert (node.name, node.labels) == ("n1", {"a": "b"})


def test_marshal_writes_timestamps_read_from_yaml_as_the_api_server_does():
    value = {
        "creationTimestamp": datetime(
            2026, 1, 2, 3, 4, 5, 678, tzinfo=timezone(timedelta(hours=2))
        ),
        "zoneless": datetime(2026, 1, 2, 3, 4, 5),
        "day": date(2026, 1, 2),
    }
    assert marshal(value) == (
        b'{"creationTimestamp":"2026-01-02T01:04:05Z","zoneless":"2026-01-02T03:04:05Z",'
        b'"day":"2026-01-02"}'
    )


def test_marshal_is_compact_and_escapes_html_as_go_does():
    value = {"Pod": {"note": "<a & b>\u2028"}, "Nodes": None, "NodeNames": ["é"]}
    assert (
        marshal(value)
        == (
            '{"Pod":{"note":"\\u003ca \\u0026 b\\u003e\\u2028"},"Nodes":null,"NodeNames":["é"]}'
        ).encode()
    )
