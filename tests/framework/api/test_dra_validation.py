"""Validation of the resource.k8s.io/v1 kinds on create, ported from upstream's
TestValidateClaim, TestValidateClass, TestValidateResourceSlice and TestValidateDeviceCapacity
(``pkg/apis/resource/validation``): same case names, paths and messages. Cases upstream runs
on its internal types are written as the v1 manifests that decode to them."""

from __future__ import annotations

import copy
import json

import pytest

from framework.api.errors import InvalidObjectError
from framework.api.loader import parse_new_object
from framework.api.validation.objects import validate_manifest

BAD_NAME = "!@#$%^"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
C_IDENTIFIER = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
    "for validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
NOT_A_REQUEST = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)
FULLY_QUALIFIED = "a fully qualified name must be a domain and a name separated by a slash"
PARAMETERS = {"kind": "foo", "apiVersion": "dra.example.com/v1"}


def errors(kind: str, manifest: dict) -> list[str]:
    namespaced = kind in ("ResourceClaim", "ResourceClaimTemplate")
    return [str(e) for e in validate_manifest(kind, namespaced, {"kind": kind, **manifest})]


# -- ResourceClaim ---------------------------------------------------------------------------


def claim(**devices) -> dict:
    requests = [{"name": "foo", "exactly": {"deviceClassName": "foo", "count": 1}}]
    return {
        "metadata": {"name": "foo", "namespace": "ns"},
        "spec": {"devices": {"requests": requests, **devices}},
    }


def with_requests(manifest: dict, *requests: dict) -> dict:
    manifest["spec"]["devices"]["requests"] += list(requests)
    return manifest


def config(requests=None, parameters=PARAMETERS) -> dict:
    entry = {"opaque": {"driver": "dra.example.com", "parameters": parameters}}
    return {**({"requests": requests} if requests is not None else {}), **entry}


BAD_CONSTRAINTS = [
    {"requests": ["foo", BAD_NAME], "matchAttribute": "missing-domain"},
    {"matchAttribute": ""},
    {},
]
INVALID_SPEC_ERRORS = [
    f'spec.devices.constraints[0].requests[1]: Invalid value: "{BAD_NAME}": {LABEL}',
    f'spec.devices.constraints[0].requests[1]: Invalid value: "{BAD_NAME}": {NOT_A_REQUEST}',
    f'spec.devices.constraints[0].matchAttribute: Invalid value: "missing-domain": {C_IDENTIFIER}',
    "spec.devices.constraints[0].matchAttribute: "
    f'Invalid value: "missing-domain": {FULLY_QUALIFIED}',
    f'spec.devices.constraints[1].matchAttribute: Invalid value: "": {C_IDENTIFIER}',
    f'spec.devices.constraints[1].matchAttribute: Invalid value: "": {FULLY_QUALIFIED}',
    'spec.devices.constraints[2]: Required value: exactly one of "matchAttribute" or '
    '"distinctAttribute" is required, but multiple fields are set',
    f'spec.devices.config[0].requests[1]: Invalid value: "{BAD_NAME}": {LABEL}',
    f'spec.devices.config[0].requests[1]: Invalid value: "{BAD_NAME}": {NOT_A_REQUEST}',
]


def first_available(**extra) -> dict:
    return {
        "name": "foo",
        "firstAvailable": [
            {"name": "foo", "deviceClassName": "foo", "count": 1},
            {"name": "bar", "deviceClassName": "foo", "count": 1},
        ],
        **extra,
    }


def prioritized(*requests, **devices) -> dict:
    manifest = claim(**devices)
    manifest["spec"]["devices"]["requests"] = list(requests) or [first_available()]
    return manifest


def expr(expression: str) -> dict:
    return {"cel": {"expression": expression}}


CLAIM_CASES = [
    ("good-claim", claim(), []),
    (
        "missing-name",
        {**claim(), "metadata": {"namespace": "ns"}},
        ["metadata.name: Required value: name or generateName is required"],
    ),
    (
        "bad-name",
        {**claim(), "metadata": {"name": BAD_NAME, "namespace": "ns"}},
        [f'metadata.name: Invalid value: "{BAD_NAME}": {SUBDOMAIN}'],
    ),
    (
        "bad-classname",
        prioritized({"name": "foo", "exactly": {"deviceClassName": BAD_NAME}}),
        [
            "spec.devices.requests[0].exactly.deviceClassName: "
            f'Invalid value: "{BAD_NAME}": {SUBDOMAIN}'
        ],
    ),
    (
        "missing-classname",
        prioritized({"name": "foo", "exactly": {"deviceClassName": ""}}),
        ["spec.devices.requests[0].exactly.deviceClassName: Required value"],
    ),
    (
        "invalid-spec",
        claim(constraints=BAD_CONSTRAINTS, config=[config(["foo", BAD_NAME])]),
        INVALID_SPEC_ERRORS,
    ),
    (
        "invalid-request-with-max-size-short-circuit",
        with_requests(
            claim(
                constraints=[*BAD_CONSTRAINTS, *[{"matchAttribute": "foo/bar"}] * 30],
                config=[config(["foo", BAD_NAME]), *[config()] * 32],
            ),
            *[{"name": f"foo{i}", "exactly": {"deviceClassName": "foo"}} for i in range(1, 33)],
        ),
        [
            "spec.devices.requests: Too many: 33: must have at most 32 items",
            "spec.devices.constraints: Too many: 33: must have at most 32 items",
            "spec.devices.config: Too many: 33: must have at most 32 items",
        ],
    ),
    (
        "valid-request",
        with_requests(
            claim(constraints=[{"matchAttribute": "foo/bar"}] * 32, config=[config()] * 32),
            *[{"name": f"foo{i}", "exactly": {"deviceClassName": "foo"}} for i in range(1, 32)],
        ),
        [],
    ),
    (
        "invalid-distinct-constraint",
        claim(
            constraints=[
                {"requests": ["foo"], "distinctAttribute": "missing-domain"},
                {"distinctAttribute": ""},
                {},
            ]
        ),
        [
            "spec.devices.constraints[0].distinctAttribute: "
            f'Invalid value: "missing-domain": {C_IDENTIFIER}',
            "spec.devices.constraints[0].distinctAttribute: "
            f'Invalid value: "missing-domain": {FULLY_QUALIFIED}',
            f'spec.devices.constraints[1].distinctAttribute: Invalid value: "": {C_IDENTIFIER}',
            f'spec.devices.constraints[1].distinctAttribute: Invalid value: "": {FULLY_QUALIFIED}',
            'spec.devices.constraints[2]: Required value: exactly one of "matchAttribute" or '
            '"distinctAttribute" is required, but multiple fields are set',
        ],
    ),
    (
        "allocation-mode",
        prioritized(
            {"name": "foo", "exactly": {"deviceClassName": "foo", "count": 1}},
            {"name": "foo2", "exactly": {"deviceClassName": "foo", "allocationMode": "All"}},
            {"name": "foo3", "exactly": {"deviceClassName": "foo", "count": -1}},
            {"name": "foo4", "exactly": {"deviceClassName": "foo", "allocationMode": "other"}},
            {
                "name": "foo5",
                "exactly": {"deviceClassName": "foo", "allocationMode": "All", "count": 2},
            },
            {"name": "foo", "exactly": {"deviceClassName": "foo", "count": 1}},
        ),
        [
            "spec.devices.requests[2].exactly.count: Invalid value: -1: must be greater than zero",
            'spec.devices.requests[3].exactly.allocationMode: Unsupported value: "other": '
            'supported values: "All", "ExactCount"',
            "spec.devices.requests[4].exactly.count: Invalid value: 2: must not be specified "
            "when allocationMode is 'All'",
            'spec.devices.requests[5]: Duplicate value: "foo"',
        ],
    ),
    (
        "configuration",
        claim(
            config=[
                config(parameters=None),
                config(parameters="hello-world"),
                # Sent as compact JSON, as kubectl sends it: {"str":"..."} is 10 bytes and the text.
                config(parameters={"str": "x" * (10 * 1024 - 10)}),
                config(parameters={"str": "x" * (10 * 1024 - 10 + 1)}),
            ]
        ),
        [
            "spec.devices.config[0].opaque.parameters: Required value",
            'spec.devices.config[1].opaque.parameters: Invalid value: "<value omitted>": '
            "must be a valid JSON object",
            "spec.devices.config[3].opaque.parameters: Too long: may not be more than 10240 bytes",
        ],
    ),
    (
        "CEL-length",
        prioritized(
            {"name": "foo", "exactly": {"deviceClassName": "foo"}},
            {
                "name": "foo-2",
                "exactly": {
                    "deviceClassName": "foo",
                    "selectors": [
                        expr('device.driver == "' + "x" * (10 * 1024 - 19) + '"'),
                        expr('device.driver == "' + "x" * (10 * 1024 - 19 + 1) + '"'),
                    ],
                },
            },
        ),
        [
            "spec.devices.requests[1].exactly.selectors[1].cel.expression: Too long: "
            "may not be more than 10240 bytes"
        ],
    ),
    ("prioritized-list-valid", prioritized(), []),
    (
        "prioritized-list-both-first-available-and-exactly-set",
        prioritized(first_available(exactly={"deviceClassName": "foo", "count": 2})),
        [
            "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or "
            "`firstAvailable` is required, but multiple fields are set"
        ],
    ),
    (
        "prioritized-list-invalid-nested-request",
        prioritized(
            {"name": "foo", "firstAvailable": [{"name": BAD_NAME, "deviceClassName": "foo"}]}
        ),
        [f'spec.devices.requests[0].firstAvailable[0].name: Invalid value: "{BAD_NAME}": {LABEL}'],
    ),
    (
        "prioritized-list-nested-requests-same-name",
        prioritized(
            {
                "name": "foo",
                "firstAvailable": [
                    {"name": "foo", "deviceClassName": "foo"},
                    {"name": "foo", "deviceClassName": "foo"},
                ],
            }
        ),
        ['spec.devices.requests[0].firstAvailable[1]: Duplicate value: "foo"'],
    ),
    (
        "prioritized-list-too-many-subrequests",
        prioritized(
            {
                "name": "foo",
                "firstAvailable": [
                    {"name": f"foo-{i}", "deviceClassName": "foo"} for i in range(9)
                ],
            }
        ),
        ["spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items"],
    ),
    (
        "prioritized-list-config-requests-with-subrequest-reference",
        prioritized(config=[config(["foo/bar"])]),
        [],
    ),
    (
        "prioritized-list-config-requests-with-parent-request-reference",
        prioritized(config=[config(["foo"])]),
        [],
    ),
    (
        "prioritized-list-config-requests-with-invalid-subrequest-reference",
        prioritized(config=[config(["foo/baz"])]),
        [f'spec.devices.config[0].requests[0]: Invalid value: "foo/baz": {NOT_A_REQUEST}'],
    ),
    (
        "prioritized-list-constraints-requests-with-invalid-subrequest-reference",
        prioritized(constraints=[{"requests": ["foo/baz"], "matchAttribute": "foo/bar"}]),
        [f'spec.devices.constraints[0].requests[0]: Invalid value: "foo/baz": {NOT_A_REQUEST}'],
    ),
    (
        "tolerations",
        prioritized(
            {
                "name": "foo",
                "exactly": {
                    "deviceClassName": "foo",
                    "tolerations": [
                        {"key": "valid-key", "operator": "Exists", "value": BAD_NAME},
                        {"key": BAD_NAME, "operator": "Equal", "effect": "some-effect"},
                        {"operator": "some-operator"},
                    ],
                },
            }
        ),
        [
            "spec.devices.requests[0].exactly.tolerations[0].value: "
            f'Invalid value: "{BAD_NAME}": must be empty for operator `Exists`',
            "spec.devices.requests[0].exactly.tolerations[1].key: "
            f'Invalid value: "{BAD_NAME}": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            "spec.devices.requests[0].exactly.tolerations[1].effect: "
            'Unsupported value: "some-effect": supported values: "NoExecute", "NoSchedule", '
            '"None"',
            "spec.devices.requests[0].exactly.tolerations[2].operator: "
            'Unsupported value: "some-operator": supported values: "Equal", "Exists"',
        ],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [pytest.param(m, e, id=name) for name, m, e in CLAIM_CASES],
)
def test_validate_claim(manifest, expected):
    assert errors("ResourceClaim", copy.deepcopy(manifest)) == expected


def test_a_claim_template_checks_its_claim_spec_under_spec_spec_and_its_metadata():
    template = {
        "metadata": {"name": "foo", "namespace": "ns"},
        "spec": {
            "metadata": {"labels": {"a": "b"}, "name": "not-allowed"},
            "spec": {"devices": {"requests": [{"name": BAD_NAME, "exactly": {}}]}},
        },
    }
    assert errors("ResourceClaimTemplate", template) == [
        "spec.metadata.name: Forbidden: cannot be set",
        f'spec.spec.devices.requests[0].name: Invalid value: "{BAD_NAME}": {LABEL}',
        "spec.spec.devices.requests[0].exactly.deviceClassName: Required value",
    ]


# -- CEL selectors ---------------------------------------------------------------------------


def test_a_selector_naming_an_undeclared_variable_is_refused_as_cel_go_reports_it():
    # TestValidateClass "selectors": the undeclared reference, with cel-go's excerpt.
    manifest = {
        "metadata": {"name": "foo"},
        "spec": {
            "selectors": [
                expr('device.driver == "dra.example.com"'),
                {},
                expr("noSuchVar"),
            ]
        },
    }
    assert errors("DeviceClass", manifest) == [
        "spec.selectors[1].cel: Required value",
        'spec.selectors[2].cel.expression: Invalid value: "noSuchVar": compilation failed: '
        "ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')\n"
        " | noSuchVar\n | ^",
    ]


def test_macro_variables_and_cel_bind_are_declared_inside_their_scope_only():
    ok = "device.attributes['x'].list.all(v, v > 0) && cel.bind(n, 1, n == 1)"
    assert (
        errors("DeviceClass", {"metadata": {"name": "c"}, "spec": {"selectors": [expr(ok)]}}) == []
    )
    outside = "[1].all(v, v > 0) && v == 1"
    (problem,) = errors(
        "DeviceClass", {"metadata": {"name": "c"}, "spec": {"selectors": [expr(outside)]}}
    )
    assert "ERROR: <input>:1:22: undeclared reference to 'v' (in container '')" in problem
    assert problem.endswith(" | " + outside + "\n | " + "." * 21 + "^")


@pytest.mark.parametrize(
    ("expression", "type_name"),
    [("device.driver", "string"), ('"gpu"', "string"), ("1", "int"), ("null", "null_type")],
)
def test_a_selector_that_is_plainly_not_a_boolean_is_refused(expression, type_name):
    manifest = {"metadata": {"name": "c"}, "spec": {"selectors": [expr(expression)]}}
    assert errors("DeviceClass", manifest) == [
        f"spec.selectors[0].cel.expression: Invalid value: {json.dumps(expression)}: "
        f"must evaluate to bool or the unknown type, not {type_name}"
    ]


def test_a_selector_that_does_not_parse_is_refused_with_the_line_and_a_caret():
    manifest = {"metadata": {"name": "c"}, "spec": {"selectors": [expr("device.x ==")]}}
    (problem,) = errors("DeviceClass", manifest)
    assert problem.startswith(
        'spec.selectors[0].cel.expression: Invalid value: "device.x ==": compilation failed: '
        "ERROR: <input>:1:"
    )
    assert "\n | device.x ==\n | " in problem


# -- DeviceClass -----------------------------------------------------------------------------

CLASS_CASES = [
    ("good-class", {"metadata": {"name": "foo"}}, []),
    (
        "bad-name",
        {"metadata": {"name": BAD_NAME}},
        [f'metadata.name: Invalid value: "{BAD_NAME}": {SUBDOMAIN}'],
    ),
    (
        "good-extended-resource-name",
        {"metadata": {"name": "foo"}, "spec": {"extendedResourceName": "example.com/gpu"}},
        [],
    ),
    (
        "bad-extended-resource-name",
        {"metadata": {"name": "foo"}, "spec": {"extendedResourceName": "example.com"}},
        [
            'spec.extendedResourceName: Invalid value: "example.com": '
            "must be a valid extended resource name"
        ],
    ),
    (
        "too-many-selectors",
        {"metadata": {"name": "foo"}, "spec": {"selectors": [expr("true")] * 33}},
        ["spec.selectors: Too many: 33: must have at most 32 items"],
    ),
    (
        "configuration",
        {
            "metadata": {"name": "foo"},
            "spec": {
                "config": [
                    {},
                    {"opaque": {"driver": "", "parameters": PARAMETERS}},
                    {"opaque": {"driver": BAD_NAME, "parameters": PARAMETERS}},
                    {"opaque": {"driver": "dra.example.com", "parameters": "hello"}},
                ]
            },
        },
        [
            "spec.config[0].opaque: Required value",
            "spec.config[1].opaque.driver: Required value",
            f'spec.config[2].opaque.driver: Invalid value: "{BAD_NAME}": {SUBDOMAIN}',
            'spec.config[3].opaque.parameters: Invalid value: "<value omitted>": '
            "must be a valid JSON object",
        ],
    ),
    (
        "too-many-configs",
        {"metadata": {"name": "foo"}, "spec": {"config": [config()] * 33}},
        ["spec.config: Too many: 33: must have at most 32 items"],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [pytest.param(m, e, id=name) for name, m, e in CLASS_CASES],
)
def test_validate_class(manifest, expected):
    assert errors("DeviceClass", copy.deepcopy(manifest)) == expected


# -- ResourceSlice ---------------------------------------------------------------------------


def device(index: int) -> dict:
    return {
        "name": f"device-{index}",
        "attributes": {"version": {"version": "1.2.3"}},
        "capacity": {"memory": {"value": "1Gi"}},
    }


def resource_slice(node="worker", driver="dra.example.com", devices=1, **spec) -> dict:
    base = {
        "nodeName": node,
        "driver": driver,
        "pool": {"name": node, "resourceSliceCount": 1},
        "devices": [device(i) for i in range(devices)],
    }
    return {"metadata": {"name": "foo"}, "spec": {**base, **spec}}


def edited(manifest: dict, change) -> dict:
    manifest = copy.deepcopy(manifest)
    change(manifest["spec"])
    return manifest


def attributes(index: int, values: dict):
    return lambda spec: spec["devices"][index].update(attributes=values)


def remove(*keys):
    return lambda spec: [spec.pop(key) for key in keys]


TAINT_KEY = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
ONE_PLACEMENT = (
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
)
ONE_DEVICE_PLACEMENT = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
SELECTOR_TERM = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["w"]}]}

SLICE_CASES = [
    ("good", resource_slice(), []),
    (
        "too-large",
        resource_slice(devices=129),
        ["spec.devices: Too many: 129: must have at most 128 items"],
    ),
    (
        "too-large-taints",
        edited(
            resource_slice(devices=65),
            lambda s: [
                d.update(taints=[{"key": "k", "effect": "NoSchedule"}]) for d in s["devices"]
            ],
        ),
        ["spec.devices: Too many: 65: must have at most 64 items"],
    ),
    (
        "bad-nodename",
        resource_slice(node=BAD_NAME),
        [
            f'spec.pool.name: Invalid value: "{BAD_NAME}": {SUBDOMAIN}',
            f'spec.nodeName: Invalid value: "{BAD_NAME}": {SUBDOMAIN}',
        ],
    ),
    (
        "bad-multi-pool-name",
        resource_slice(node=f"{BAD_NAME}/{BAD_NAME}"),
        [
            f'spec.pool.name: Invalid value: "{BAD_NAME}": {SUBDOMAIN}',
            f'spec.pool.name: Invalid value: "{BAD_NAME}": {SUBDOMAIN}',
            f'spec.nodeName: Invalid value: "{BAD_NAME}/{BAD_NAME}": {SUBDOMAIN}',
        ],
    ),
    (
        "good-pool-name",
        edited(resource_slice(), lambda s: s["pool"].update(name="x" * 253)),
        [],
    ),
    (
        "bad-pool",
        edited(
            resource_slice(),
            lambda s: s.update(
                pool={"name": "x/" * 126 + "xy", "resourceSliceCount": 0, "generation": -1}
            ),
        ),
        [
            "spec.pool.name: Too long: may not be more than 253 bytes",
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
            "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero",
        ],
    ),
    (
        "missing-pool-name",
        edited(resource_slice(), lambda s: s["pool"].update(name="")),
        ["spec.pool.name: Required value"],
    ),
    (
        "bad-empty-node-selector",
        edited(resource_slice(), lambda s: [s.pop("nodeName"), s.update(nodeSelector={})]),
        [
            "spec.nodeSelector.nodeSelectorTerms: Required value: "
            "must have at least one node selector term",
            "spec.nodeSelector.nodeSelectorTerms: Invalid value: null: "
            "must have exactly one node selector term",
        ],
    ),
    (
        "bad-node-selection",
        edited(
            resource_slice(),
            lambda s: s.update(nodeSelector={"nodeSelectorTerms": [SELECTOR_TERM]}),
        ),
        [
            'spec: Invalid value: "{`nodeName`, `nodeSelector`}": '
            + ONE_PLACEMENT
            + ", but multiple fields are set"
        ],
    ),
    (
        "bad-node-selection-all-nodes",
        edited(resource_slice(), lambda s: s.update(allNodes=True)),
        [
            'spec: Invalid value: "{`nodeName`, `allNodes`}": '
            + ONE_PLACEMENT
            + ", but multiple fields are set"
        ],
    ),
    (
        "empty-node-selection",
        edited(resource_slice(), remove("nodeName")),
        [f"spec: Required value: {ONE_PLACEMENT}"],
    ),
    (
        "bad-drivername",
        resource_slice(driver=BAD_NAME),
        [f'spec.driver: Invalid value: "{BAD_NAME}": {SUBDOMAIN}'],
    ),
    (
        "both-shared-counters-and-devices",
        resource_slice(
            sharedCounters=[{"name": "counterset", "counters": {"memory": {"value": "1Gi"}}}]
        ),
        ['spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed'],
    ),
    (
        "bad-devices",
        edited(resource_slice(devices=3), lambda s: s["devices"][1].update(name=BAD_NAME)),
        [f'spec.devices[1].name: Invalid value: "{BAD_NAME}": {LABEL}'],
    ),
    (
        "bad-attribute",
        edited(
            resource_slice(devices=5),
            lambda s: [
                attributes(1, {BAD_NAME: {}})(s),
                attributes(2, {"foo": {"string": "x", "version": "1.2.3"}})(s),
                attributes(3, {"foo": {"version": "x" * 65}})(s),
                attributes(4, {"foo": {"string": "x" * 65}})(s),
            ],
        ),
        [
            f'spec.devices[1].attributes: Invalid value: "{BAD_NAME}": {C_IDENTIFIER}',
            f'spec.devices[1].attributes[{BAD_NAME}]: Invalid value: "": '
            "exactly one value must be specified",
            'spec.devices[2].attributes[foo]: Invalid value: {"IntValue":null,"BoolValue":null,'
            '"StringValue":"x","VersionValue":"1.2.3","BoolValues":null,"IntValues":null,'
            '"StringValues":null,"VersionValues":null}: exactly one value must be specified',
            f'spec.devices[3].attributes[foo].version: Invalid value: "{"x" * 65}": '
            "must be a string compatible with semver.org spec 2.0.0",
            "spec.devices[3].attributes[foo].version: Too long: may not be more than 64 bytes",
            "spec.devices[4].attributes[foo].string: Too long: may not be more than 64 bytes",
        ],
    ),
    (
        "good-attribute-names",
        edited(
            resource_slice(devices=2),
            attributes(1, {"x" * 32: {"string": "y"}, "x" * 63 + "/" + "y" * 32: {"string": "z"}}),
        ),
        [],
    ),
    (
        "bad-attribute-c-identifier",
        edited(resource_slice(devices=2), attributes(1, {"." * 33: {"string": "y"}})),
        [
            "spec.devices[1].attributes: Too long: may not be more than 32 bytes",
            f'spec.devices[1].attributes: Invalid value: "{"." * 33}": {C_IDENTIFIER}',
        ],
    ),
    (
        "bad-attribute-domain",
        edited(resource_slice(devices=2), attributes(1, {"_" * 64 + "/y": {"string": "z"}})),
        [
            "spec.devices[1].attributes: Too long: may not be more than 63 bytes",
            f'spec.devices[1].attributes: Invalid value: "{"_" * 64}": {SUBDOMAIN}',
        ],
    ),
    (
        "bad-attribute-empty-domain-and-c-identifier",
        edited(resource_slice(devices=2), attributes(1, {"/": {"string": "z"}})),
        [
            'spec.devices[1].attributes: Invalid value: "": the domain must not be empty',
            'spec.devices[1].attributes: Invalid value: "": the name must not be empty',
        ],
    ),
    (
        "combined-attributes-capacity-length",
        edited(
            resource_slice(devices=4),
            lambda s: s["devices"][3].update(
                attributes={f"attr_{i}": {"string": "x"} for i in range(32)},
                capacity={"cap": {"value": "1Gi"}},
            ),
        ),
        [
            "spec.devices[3]: Invalid value: 33: "
            "the total number of attributes and capacities must not exceed 32"
        ],
    ),
    (
        "forbidden-request-policy-on-single-allocatable-capacity",
        edited(
            resource_slice(devices=2),
            lambda s: s["devices"][1].update(
                capacity={"cap": {"value": "1Gi", "requestPolicy": {"default": "1Gi"}}}
            ),
        ),
        [
            "spec.devices[1].capacity[cap].requestPolicy: Forbidden: "
            "allowMultipleAllocations must be true"
        ],
    ),
    (
        "taints",
        edited(
            resource_slice(),
            lambda s: s["devices"][0].update(
                taints=[
                    {"key": "example.com/taint", "value": "tainted", "effect": "NoSchedule"},
                    {"key": "example.com/taint2", "effect": "NoExecute"},
                    {},
                    {"key": BAD_NAME, "value": BAD_NAME, "effect": "some-other-effect"},
                ]
            ),
        ),
        [
            'spec.devices[0].taints[2].key: Invalid value: "": name part must be non-empty',
            f'spec.devices[0].taints[2].key: Invalid value: "": {TAINT_KEY}',
            "spec.devices[0].taints[2].effect: Required value",
            f'spec.devices[0].taints[3].key: Invalid value: "{BAD_NAME}": {TAINT_KEY}',
            f'spec.devices[0].taints[3].value: Invalid value: "{BAD_NAME}": {LABEL_VALUE}',
            'spec.devices[0].taints[3].effect: Unsupported value: "some-other-effect": '
            'supported values: "NoExecute", "NoSchedule", "None"',
        ],
    ),
    (
        "too-many-taints",
        edited(
            resource_slice(),
            lambda s: s["devices"][0].update(
                taints=[{"key": f"k{i}", "effect": "NoSchedule"} for i in range(17)]
            ),
        ),
        ["spec.devices[0].taints: Too many: 17: must have at most 16 items"],
    ),
    (
        "bad-PerDeviceNodeSelection",
        resource_slice(perDeviceNodeSelection=True),
        [
            'spec: Invalid value: "{`nodeName`, `perDeviceNodeSelection`}": '
            + ONE_PLACEMENT
            + ", but multiple fields are set",
            f"spec.devices[0]: Required value: {ONE_DEVICE_PLACEMENT}",
        ],
    ),
    (
        "invalid-false-PerDeviceNodeSelection",
        resource_slice(perDeviceNodeSelection=False),
        ["spec.perDeviceNodeSelection: Invalid value: false: must be either unset or set to true"],
    ),
    (
        "invalid-false-AllNodes",
        edited(resource_slice(), lambda s: [s.pop("nodeName"), s.update(allNodes=False)]),
        [
            "spec.allNodes: Invalid value: false: must be either unset or set to true",
            f"spec: Required value: {ONE_PLACEMENT}",
        ],
    ),
    (
        "invalid-empty-NodeName",
        edited(resource_slice(), lambda s: s.update(nodeName="", allNodes=True)),
        ['spec.nodeName: Invalid value: "": must be either unset or set to a non-empty string'],
    ),
    (
        "invalid-node-selector-in-basicdevice",
        edited(
            resource_slice(),
            lambda s: [
                s.pop("nodeName"),
                s.update(perDeviceNodeSelection=True),
                s["devices"][0].update(nodeName="", allNodes=False),
            ],
        ),
        [
            'spec.devices[0].nodeName: Invalid value: "": must not be empty',
            "spec.devices[0].allNodes: Invalid value: false: must be either unset or set to true",
            f"spec.devices[0]: Required value: {ONE_DEVICE_PLACEMENT}",
        ],
    ),
    (
        "bad-node-selector-in-basicdevice",
        edited(
            resource_slice(),
            lambda s: [
                s.pop("nodeName"),
                s.update(perDeviceNodeSelection=True),
                s["devices"][0].update(nodeName="worker", allNodes=True),
            ],
        ),
        [f'spec.devices[0]: Invalid value: "{{`nodeName`, `allNodes`}}": {ONE_DEVICE_PLACEMENT}'],
    ),
    (
        "missing-name-shared-counters",
        resource_slice(devices=0, sharedCounters=[{"counters": {"memory": {"value": "1Gi"}}}]),
        ["spec.sharedCounters[0].name: Required value"],
    ),
    (
        "bad-name-shared-counters",
        resource_slice(
            devices=0, sharedCounters=[{"name": BAD_NAME, "counters": {"m": {"value": "1"}}}]
        ),
        [f'spec.sharedCounters[0].name: Invalid value: "{BAD_NAME}": {LABEL}'],
    ),
    (
        "missing-counter-shared-counters",
        resource_slice(devices=0, sharedCounters=[{"name": "foo"}]),
        ["spec.sharedCounters[0].counters: Required value"],
    ),
    (
        "bad-countername-shared-counters",
        resource_slice(
            devices=0, sharedCounters=[{"name": "foo", "counters": {BAD_NAME: {"value": "1Gi"}}}]
        ),
        [f'spec.sharedCounters[0].counters: Invalid value: "{BAD_NAME}": {LABEL}'],
    ),
    (
        "duplicate-shared-counters",
        resource_slice(
            devices=0,
            sharedCounters=[
                {"name": "foo", "counters": {"m": {"value": "1"}}},
                {"name": "foo", "counters": {"m": {"value": "1"}}},
            ],
        ),
        ['spec.sharedCounters[1]: Duplicate value: "foo"'],
    ),
    (
        "too-many-shared-counters",
        resource_slice(
            devices=0,
            sharedCounters=[
                {"name": f"c-{i}", "counters": {"m": {"value": "1"}}} for i in range(9)
            ],
        ),
        ["spec.sharedCounters: Too many: 9: must have at most 8 items"],
    ),
]


def without_devices(manifest: dict) -> dict:
    if not manifest["spec"]["devices"]:
        del manifest["spec"]["devices"]
    return manifest


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [pytest.param(m, e, id=name) for name, m, e in SLICE_CASES],
)
def test_validate_resource_slice(manifest, expected):
    assert errors("ResourceSlice", without_devices(copy.deepcopy(manifest))) == expected


# -- request policies (TestValidateDeviceCapacity) -------------------------------------------


def policy(default=None, values=None, bounds=None) -> dict:
    found = {"default": default, "validValues": values, "validRange": bounds}
    return {k: v for k, v in found.items() if v is not None}


POLICY = "spec.devices[0].capacity[cap].requestPolicy"
CAPACITY_CASES = [
    ("no-policy", None, []),
    ("policy-without-default", policy(), []),
    (
        "policy-with-valid-values-without-default",
        policy(values=["1Gi"]),
        [f"{POLICY}.default: Required value: required when validValues is defined"],
    ),
    (
        "policy-with-valid-range-without-default",
        policy(bounds={"min": "1Gi"}),
        [f"{POLICY}.default: Required value: required when validRange is defined"],
    ),
    (
        "policy-with-valid-range-without-min",
        policy(default="1Gi", bounds={}),
        [f"{POLICY}.validRange.min: Required value: required when validRange is defined"],
    ),
    ("valid-simple-range", policy(default="1Gi", bounds={"min": "1Gi"}), []),
    (
        "valid-range-with-max-and-step",
        policy("2Gi", None, {"min": "2Gi", "max": "10Gi", "step": "2Gi"}),
        [],
    ),
    ("valid-two-options", policy(default="1Gi", values=["1Gi", "2Gi"]), []),
    (
        "more-than-one-policy",
        policy(default="1Gi", values=["1Gi"], bounds={"min": "1Gi"}),
        [
            f"{POLICY}: Forbidden: exactly one policy can be specified, cannot specify "
            '"validValues" and "validRange" at the same time'
        ],
    ),
    (
        "invalid-options",
        policy(default="1Gi", values=["20Gi"]),
        [
            f'{POLICY}.validValues[0]: Invalid value: "20Gi": '
            "option is larger than capacity value: 10Gi",
            f'{POLICY}.validValues: Invalid value: "1Gi": '
            "default value is not valid according to the requestPolicy",
        ],
    ),
    (
        "invalid-options-duplicate",
        policy(default="1Gi", values=["1Gi", "1Gi"]),
        [f'{POLICY}.validValues[1]: Duplicate value: "1073741824"'],
    ),
    (
        "invalid-options-duplicate-normalized",
        policy(default="1Ki", values=["1Ki", "1024"]),
        [f'{POLICY}.validValues[1]: Duplicate value: "1024"'],
    ),
    (
        "invalid-options-unsort",
        policy(default="1Gi", values=["2Gi", "1Gi"]),
        [
            f'{POLICY}.validValues[1]: Invalid value: "1Gi": '
            "values must be sorted in ascending order"
        ],
    ),
    (
        "invalid-range-large-min-small-max",
        policy(default="2Gi", bounds={"min": "20Gi", "max": "1Gi"}),
        [
            f'{POLICY}.validRange.min: Invalid value: "20Gi": '
            "min is larger than capacity value: 10Gi",
            f'{POLICY}.validRange.min: Invalid value: "2Gi": default is less than min: 20Gi',
            f'{POLICY}.validRange.max: Invalid value: "20Gi": min is larger than max: 1Gi',
            f'{POLICY}.validRange.max: Invalid value: "2Gi": default is more than max: 1Gi',
        ],
    ),
    (
        "invalid-range-large-max",
        policy(default="1Gi", bounds={"min": "1Gi", "max": "20Gi"}),
        [
            f'{POLICY}.validRange.max: Invalid value: "20Gi": '
            "max is larger than capacity value: 10Gi"
        ],
    ),
    (
        "invalid-range-multiple-of-step",
        policy(default="2Gi", bounds={"min": "1Gi", "max": "10Gi", "step": "2Gi"}),
        [
            f'{POLICY}.validRange.step: Invalid value: "2Gi": '
            "value is not a multiple of a given step (2Gi) from (1Gi)",
            f'{POLICY}.validRange.step: Invalid value: "10Gi": '
            "value is not a multiple of a given step (2Gi) from (1Gi)",
        ],
    ),
    (
        "invalid-range-large-step",
        policy(default="1Gi", bounds={"min": "1Gi", "step": "10Gi"}),
        [
            f'{POLICY}.validRange.step: Invalid value: "10Gi": '
            "one step 11Gi is larger than capacity value: 10Gi"
        ],
    ),
]


@pytest.mark.parametrize(
    ("request_policy", "expected"),
    [pytest.param(p, e, id=name) for name, p, e in CAPACITY_CASES],
)
def test_validate_device_capacity(request_policy, expected):
    capacity = {"value": "10Gi"}
    if request_policy is not None:
        capacity["requestPolicy"] = request_policy
    manifest = edited(
        resource_slice(),
        lambda s: s["devices"][0].update(allowMultipleAllocations=True, capacity={"cap": capacity}),
    )
    assert errors("ResourceSlice", manifest) == expected


def test_a_refused_claim_lists_every_problem_and_names_the_object():
    manifest = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", **claim()}
    manifest["spec"]["devices"]["requests"][0]["exactly"]["count"] = -1
    manifest["spec"]["devices"]["requests"].append({"name": BAD_NAME})
    with pytest.raises(InvalidObjectError) as refused:
        parse_new_object(manifest)
    assert str(refused.value) == (
        'ResourceClaim "ns/foo" is invalid: ['
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero, "
        f'spec.devices.requests[1].name: Invalid value: "{BAD_NAME}": {LABEL}, '
        "spec.devices.requests[1]: Required value: exactly one of `exactly` or "
        "`firstAvailable` is required]"
    )
