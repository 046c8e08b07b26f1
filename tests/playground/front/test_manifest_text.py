"""Reading the editor's text and placing a field's problem on its line."""

import pytest

from playground.front.manifest_text import ManifestTextError, locate, read_manifest, to_text

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  containers:
  - name: a
    image: nginx
  - name: b
    image: redis
    resources:
      requests:
        cpu: lots
"""


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("metadata.name", 4),
        ("spec.containers[1].resources.requests.cpu", 15),
        ("spec.containers[1]", 11),
        ("spec.containers[0].image", 10),
        ("metadata.labels[app.kubernetes.io/name]", 6),
        ("spec.containers[5].image", 8),
        ("spec.nodeName", 7),
        ("", None),
    ],
    ids=[
        "a top-level field",
        "a field deep in a list",
        "a list item",
        "the first item",
        "a key with dots in brackets",
        "an item past the end: its list",
        "a missing field: its parent",
        "no field",
    ],
)
def test_a_field_path_is_found_on_its_line(field, line):
    assert locate(POD, field) == line


def test_the_text_round_trips_in_the_manifests_key_order():
    manifest = read_manifest(POD)
    assert list(manifest) == ["apiVersion", "kind", "metadata", "spec"]
    assert read_manifest(to_text(manifest)) == manifest


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("kind: Pod\n  name: [", "the YAML cannot be read", 2),
        ("", "expected one object (a YAML mapping), found nothing", None),
        ("kind: A\n---\nkind: B\n", "found 2 documents", None),
        ("- a\n- b\n", "found a list", None),
    ],
    ids=["broken YAML", "nothing", "two documents", "a list"],
)
def test_text_that_is_not_one_object_is_refused(text, message, line):
    with pytest.raises(ManifestTextError) as err:
        read_manifest(text)
    assert message in err.value.problem.message
    assert err.value.problem.line == line
