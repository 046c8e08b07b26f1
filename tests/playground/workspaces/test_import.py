"""Importing manifests: every format kubectl users have, all or nothing, every problem listed."""

from __future__ import annotations

import json

import pytest

from playground.workspaces.importing import Refused, import_manifests
from playground.workspaces.models import ClusterObject, ObjectChange

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
POD = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  priorityClassName: high
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
"""
PRIORITY_CLASS = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def as_json_list(*documents: str) -> str:
    import yaml

    return json.dumps([yaml.safe_load(d) for d in documents])


def as_kind_list(*documents: str) -> str:
    import yaml

    return yaml.safe_dump(
        {"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(d) for d in documents]}
    )


@pytest.mark.parametrize(
    "text",
    [
        "---".join([POD, NODE, PRIORITY_CLASS]),
        as_json_list(POD, NODE, PRIORITY_CLASS),
        as_kind_list(POD, NODE, PRIORITY_CLASS),
    ],
    ids=["multi-document yaml", "a json list", "a kind List as kubectl prints"],
)
def test_every_format_imports_the_same_objects(workspace, cluster, text):
    result = import_manifests(workspace, text)
    assert sorted(result.created) == ["Node n1", "Pod default/web", "PriorityClass high"]
    assert result.replaced == []
    assert cluster.get("Pod", "web", "default").spec.priority == 1000


def test_objects_are_written_dependencies_first(workspace):
    import_manifests(workspace, "---".join([POD, NODE, PRIORITY_CLASS]))
    assert list(ObjectChange.objects.values_list("kind", flat=True)) == [
        "PriorityClass",
        "Node",
        "Pod",
    ]


def test_existing_objects_are_replaced_as_kubectl_apply_would(workspace, cluster):
    import_manifests(workspace, NODE)
    result = import_manifests(workspace, NODE.replace('cpu: "4"', 'cpu: "8"'))
    assert (result.created, result.replaced) == ([], ["Node n1"])
    assert str(cluster.get("Node", "n1").status.allocatable["cpu"]) == "8"


def test_every_problem_is_listed_and_nothing_is_stored(workspace):
    text = "---".join(
        [
            NODE,
            POD,  # names a class that does not exist
            NODE.replace("n1", "Bad_Name"),
            NODE.replace('cpu: "4"', "cpu: lots"),
            "\napiVersion: v1\nkind: Gadget\nmetadata: {name: g}\n",
        ]
    )
    with pytest.raises(Refused) as raised:
        import_manifests(workspace, text)
    problems = [(p.object, p.field) for p in raised.value.problems]
    assert problems == [
        ('Node "Bad_Name"', "metadata.name"),
        ('Node "n1"', "status.allocatable.cpu"),
        ('Gadget "g"', "kind"),
    ]
    assert ClusterObject.objects.count() == 0


def test_objects_the_api_server_refuses_are_listed_field_by_field_and_nothing_is_stored(
    workspace,
):
    invalid = POD.replace("cpu: 500m", 'cpu: "-1"').replace("name: web}", "name: web, lables: {}}")
    text = "---".join([NODE, invalid, POD.replace("name: web}", "name: api}").replace("c,", "C,")])
    with pytest.raises(Refused) as raised:
        import_manifests(workspace, text)
    assert [str(p) for p in raised.value.problems] == [
        'Pod "default/web": strict decoding error: unknown field "metadata.lables"',
        'Pod "default/api": spec.containers[0].name: Invalid value: "C": a lowercase RFC 1123 '
        "label must consist of lower case alphanumeric characters or '-', and must start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'Pod "default/web": spec.priorityClassName: no PriorityClass with name high was found',
        'Pod "default/api": spec.priorityClassName: no PriorityClass with name high was found',
    ]
    assert ClusterObject.objects.count() == 0


def test_admission_problems_are_listed_once_the_objects_parse(workspace):
    text = "---".join([NODE, POD, NODE.replace("n1", "Bad_Name"), NODE])
    with pytest.raises(Refused) as raised:
        import_manifests(workspace, text)
    assert [str(p) for p in raised.value.problems] == [
        'Node "Bad_Name": metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'Pod "default/web": spec.priorityClassName: no PriorityClass with name high was found',
        'Node "n1": appears more than once',
    ]
    assert ClusterObject.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: Node\nmetadata: {name: [\n", "manifest: invalid YAML: "),
        ("apiVersion: v1\nkind: Node\nmetadata: {}\n", 'Node "" (document 1): metadata.name: '),
        ("---\n- 1\n", "manifest (document 1, item 1): expected an object, got int"),
        ("# nothing here\n", "manifest: no objects found"),
        (
            "kind: Node\nmetadata: {name: a}\nkind: Pod\n",
            'manifest: invalid YAML: mapping key "kind" already defined',
        ),
    ],
    ids=[
        "broken yaml",
        "an object without a name is placed by its document",
        "a list item that is no object",
        "an empty text",
        "a key given twice, as when a document separator is missing",
    ],
)
def test_unreadable_text_is_refused_with_where_it_went_wrong(workspace, text, expected):
    with pytest.raises(Refused) as raised:
        import_manifests(workspace, text)
    assert str(raised.value.problems[0]).startswith(expected)


def test_progress_is_reported_after_each_chunk(workspace):
    nodes = "---".join(NODE.replace("n1", f"n{i}") for i in range(5))
    reports = []
    import_manifests(workspace, nodes, on_progress=lambda *r: reports.append(r), chunk_size=2)
    assert reports == [(2, 5), (4, 5), (5, 5)]


def test_a_failure_in_a_later_chunk_undoes_the_earlier_ones(workspace, monkeypatch):
    from playground.workspaces.cluster import DatabaseCluster

    nodes = "---".join(NODE.replace("n1", f"n{i}") for i in range(4))
    original = DatabaseCluster.add_many

    def failing_second_chunk(self, objects, replace=True):
        if objects[0].name == "n2":
            raise RuntimeError("the database went away")
        return original(self, objects, replace)

    monkeypatch.setattr(DatabaseCluster, "add_many", failing_second_chunk)
    with pytest.raises(RuntimeError):
        import_manifests(workspace, nodes, chunk_size=2)
    assert ClusterObject.objects.count() == 0
