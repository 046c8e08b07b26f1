"""The playground's JSONField stores what Django's would, through orjson where it can."""

from __future__ import annotations

import json

import pytest

from playground.workspaces.fields import dumps, loads
from playground.workspaces.models import SchedulerCommand

DOCUMENTS = [
    pytest.param({"metadata": {"name": "web"}, "n": [1, 2.5, None, True]}, id="a manifest"),
    pytest.param({"big": 2**70, "small": -(2**70)}, id="integers beyond 64 bits"),
    pytest.param({"note": "zoné ☸"}, id="text beyond ASCII"),
    pytest.param([], id="an empty list"),
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_a_document_reads_back_as_it_was_stored(workspace, document):
    command = SchedulerCommand.objects.create(workspace=workspace, kind="pause", payload=document)
    assert SchedulerCommand.objects.get(pk=command.pk).payload == document


@pytest.mark.parametrize("document", DOCUMENTS)
def test_dumps_and_loads_agree_with_the_standard_library(document):
    assert json.loads(dumps(document)) == document
    assert loads(json.dumps(document)) == document


def test_integer_keys_are_written_as_strings_as_the_standard_library_writes_them():
    assert loads(dumps({1: "a"})) == json.loads(json.dumps({1: "a"})) == {"1": "a"}


def test_a_document_orjson_refuses_to_read_is_read_by_the_standard_library():
    assert loads('{"x": NaN}')["x"] != loads('{"x": NaN}')["x"]  # NaN is not equal to itself
