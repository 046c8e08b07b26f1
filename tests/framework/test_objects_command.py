"""``python -m framework objects validate FILE``: kube-apiserver's answer to creating a file's
objects, without a run (the checks ``simulate`` makes before it starts)."""

from __future__ import annotations

import io

import pytest

from framework.cli import main

REFUSED = """\
apiVersion: v1
kind: Pod
metadata: {name: a, lables: {app: a}}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: team-a}
spec: {containers: []}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "-1"}}}]}
"""


def validate(capsys, path: str) -> tuple[int, str, str]:
    status = main(["objects", "validate", path])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("example", ["dra-gpus", "resources", "preemption", "volume-binding"])
def test_an_example_file_is_valid(capsys, example):
    status, out, err = validate(capsys, f"examples/{example}/objects.yaml")
    assert (status, err) == (0, "")
    assert out.endswith(" objects would be created\n")


def test_every_refused_object_is_named_in_kube_apiservers_words(capsys, tmp_path):
    path = tmp_path / "objects.yaml"
    path.write_text(REFUSED)
    status, out, err = validate(capsys, str(path))
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        'Pod "default/a": strict decoding error: unknown field "metadata.lables"',
        'Pod "team-a/b": metadata.namespace: namespaces "team-a" not found',
        'Pod "default/c" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: '
        '"-1": must be greater than or equal to 0',
    ]


def test_standard_input_and_a_missing_file(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(REFUSED.split("---")[2]))
    status, _, err = validate(capsys, "-")
    assert status == 1 and err.startswith('Pod "default/c" is invalid')
    assert validate(capsys, "examples/missing.yaml") == (
        1,
        "",
        "open examples/missing.yaml: no such file or directory\n",
    )
