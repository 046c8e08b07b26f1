"""A pod's resource claims validated as upstream's ValidatePodSpec does, ported from
TestValidateDynamicResourceAllocation (upstream only counts the failures; these cases name
them, with upstream's paths and messages)."""

from __future__ import annotations

import pytest

from framework.api.validation.objects import validate_manifest

LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
REFERENCE = {"name": "my-claim", "resourceClaimName": "some-claim"}
TEMPLATE = {"name": "my-claim", "resourceClaimTemplateName": "some-claim-template"}


def pod(claims=(), pod_claims=(REFERENCE,), init=False, annotations=None) -> dict:
    container = {"name": "ctr", "image": "image", "resources": {"claims": list(claims)}}
    spec = {"containers": [container], "resourceClaims": list(pod_claims)}
    if init:
        spec["initContainers"] = [{**container, "name": "ctr-init"}]
        spec["containers"] = [{"name": "ctr", "image": "image"}]
    metadata = {"name": "some-pod", "namespace": "ns"}
    if annotations:
        metadata["annotations"] = annotations
    if "kubernetes.io/config.mirror" in (annotations or {}):
        spec["nodeName"] = "node-1"  # a mirror pod without one is refused for that first
    return {"kind": "Pod", "metadata": metadata, "spec": spec}


def errors(manifest: dict) -> list[str]:
    return [str(e) for e in validate_manifest("Pod", True, manifest)]


CLAIMS = "spec.containers[0].resources.claims"

CASES = [
    ("resource claim reference", pod([{"name": "my-claim"}]), []),
    ("resource claim template", pod([{"name": "my-claim"}], [TEMPLATE]), []),
    (
        "multiple claims with requests",
        pod(
            [{"name": "my-claim", "request": "req-0"}, {"name": "another", "request": "req-0"}],
            [REFERENCE, {**REFERENCE, "name": "another"}],
        ),
        [],
    ),
    (
        "single claim with requests",
        pod([{"name": "my-claim", "request": "req-0"}, {"name": "my-claim", "request": "req-1"}]),
        [],
    ),
    ("init container", pod([{"name": "my-claim"}], init=True), []),
    (
        "static pod with resource claim reference",
        pod([{"name": "my-claim"}], annotations={"kubernetes.io/config.mirror": "True"}),
        [": Forbidden: static pods do not support resource claims"],
    ),
    (
        "pod claim name with path",
        pod(pod_claims=[{**REFERENCE, "name": "my/claim"}]),
        [f'spec.resourceClaims[0].name: Invalid value: "my/claim": {LABEL}'],
    ),
    (
        "pod claim name empty",
        pod(pod_claims=[{**REFERENCE, "name": ""}]),
        ["spec.resourceClaims[0].name: Required value"],
    ),
    (
        "duplicate pod claim entries",
        pod(pod_claims=[REFERENCE, REFERENCE]),
        ['spec.resourceClaims[1].name: Duplicate value: "my-claim"'],
    ),
    (
        "resource claim source empty",
        pod(pod_claims=[{"name": "my-claim"}]),
        [
            'spec.resourceClaims[0]: Invalid value: {"Name":"my-claim","ResourceClaimName":null,'
            '"ResourceClaimTemplateName":null}: must specify one of: `resourceClaimName`, '
            "`resourceClaimTemplateName`"
        ],
    ),
    (
        "resource claim reference and template",
        pod([{"name": "my-claim"}], [{**REFERENCE, **TEMPLATE}]),
        [
            'spec.resourceClaims[0]: Invalid value: {"Name":"my-claim","ResourceClaimName":'
            '"some-claim","ResourceClaimTemplateName":"some-claim-template"}: at most one of '
            "`resourceClaimName` or `resourceClaimTemplateName` may be specified"
        ],
    ),
    (
        "claim not found",
        pod([{"name": "no-such-claim"}]),
        [
            f'{CLAIMS}[0]: Not found: "no-such-claim": must be one of the names in '
            "pod.spec.resourceClaims: my-claim"
        ],
    ),
    ("claim name empty", pod([{"name": ""}]), [f"{CLAIMS}[0]: Required value"]),
    (
        "pod claim name duplicates",
        pod([{"name": "my-claim"}, {"name": "my-claim"}]),
        [f'{CLAIMS}[1]: Duplicate value: "my-claim"'],
    ),
    (
        "pod claim name duplicates without and with request",
        pod([{"name": "my-claim"}, {"name": "my-claim", "request": "req-0"}]),
        [f'{CLAIMS}[1]: Duplicate value: "my-claim"'],
    ),
    (
        "pod claim name duplicates with and without request",
        pod([{"name": "my-claim", "request": "req-0"}, {"name": "my-claim"}]),
        [f'{CLAIMS}[1]: Duplicate value: "my-claim"'],
    ),
    (
        "pod claim name duplicates with requests",
        pod([{"name": "my-claim", "request": "req-0"}, {"name": "my-claim", "request": "req-0"}]),
        [f'{CLAIMS}[1]: Duplicate value: "my-claim/req-0"'],
    ),
    (
        "bad request name",
        pod([{"name": "my-claim", "request": "*$@%^"}]),
        [f'{CLAIMS}[0].request: Invalid value: "*$@%^": {LABEL}'],
    ),
    (
        "no claims defined",
        pod([{"name": "my-claim"}], pod_claims=[]),
        [
            f'{CLAIMS}[0]: Not found: "my-claim": must be one of the names in '
            "pod.spec.resourceClaims which is empty"
        ],
    ),
    (
        "invalid claim template name",
        pod(pod_claims=[{**TEMPLATE, "resourceClaimTemplateName": ".foo_bar"}]),
        [
            'spec.resourceClaims[0].resourceClaimTemplateName: Invalid value: ".foo_bar": '
            + SUBDOMAIN
        ],
    ),
    (
        "invalid claim reference name",
        pod(pod_claims=[{**REFERENCE, "resourceClaimName": ".foo_bar"}]),
        [f'spec.resourceClaims[0].resourceClaimName: Invalid value: ".foo_bar": {SUBDOMAIN}'],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"), [pytest.param(m, e, id=name) for name, m, e in CASES]
)
def test_validate_dynamic_resource_allocation(manifest, expected):
    assert errors(manifest) == expected
