"""Service, RuntimeClass and Namespace validation as kube-apiserver's
``ValidateServiceCreate`` / ``ValidateRuntimeClass`` / ``ValidateNamespace``: cases from
upstream's TestValidateServiceCreate, TestValidateRuntimeClass and TestValidateNamespace
tables (named as there), with upstream's paths and messages, on manifests as kubectl sends
them (defaults apply first: a missing protocol is TCP, a missing type ClusterIP)."""

from __future__ import annotations

import copy

import pytest

from framework.api.validation.objects import validate_manifest

SERVICE = {
    "kind": "Service",
    "metadata": {"name": "valid", "namespace": "valid"},
    "spec": {
        "selector": {"key": "val"},
        "sessionAffinity": "None",
        "type": "ClusterIP",
        "ports": [{"name": "p", "protocol": "TCP", "port": 8675, "targetPort": 8675}],
    },
}
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
NOT_AN_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
ONLY_LB = "may only be used when `type` is 'LoadBalancer'"


def errors(manifest: dict) -> list[str]:
    return [str(e) for e in validate_manifest(manifest["kind"], True, manifest)]


def svc(**spec):
    def edit(manifest):
        manifest["spec"].update(spec)

    return edit


def port(**fields):
    return {"name": "q", "protocol": "TCP", "port": 12345, **fields}


def annotate(**annotations):
    return lambda m: m["metadata"].update(annotations=annotations)


SERVICE_CASES = [
    ("default", lambda m: None, []),
    (
        "invalid name",
        lambda m: m["metadata"].update(name="-123"),
        [f'metadata.name: Invalid value: "-123": {DNS_LABEL}'],
    ),
    (
        "valid: service name begins with a digit feature gate enabled",
        lambda m: m["metadata"].update(name="1-service"),
        [],
    ),
    ("nil selector", svc(selector=None), []),
    (
        "invalid selector",
        svc(selector={"key": "val", "NoSpecialCharsLike=Equals": "bar"}),
        [
            'spec.selector: Invalid value: "NoSpecialCharsLike=Equals": name part must consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ],
    ),
    ("missing session affinity is defaulted", svc(sessionAffinity=""), []),
    ("missing type is defaulted", svc(type=""), []),
    ("missing ports", svc(ports=[]), ["spec.ports: Required value"]),
    ("missing ports but headless", svc(ports=[], clusterIP="None"), []),
    ("empty port[0] name", svc(ports=[{"protocol": "TCP", "port": 8675}]), []),
    (
        "empty port[1] name",
        svc(ports=[SERVICE["spec"]["ports"][0], port(name="")]),
        ["spec.ports[1].name: Required value"],
    ),
    (
        "invalid port name",
        svc(ports=[port(name="INVALID")]),
        [f'spec.ports[0].name: Invalid value: "INVALID": {DNS_LABEL}'],
    ),
    ("missing protocol is defaulted", svc(ports=[port(protocol="")]), []),
    (
        "invalid protocol",
        svc(ports=[port(protocol="INVALID")]),
        [
            'spec.ports[0].protocol: Unsupported value: "INVALID": supported values: "SCTP", '
            '"TCP", "UDP"'
        ],
    ),
    (
        "invalid cluster ip",
        svc(clusterIP="invalid"),
        [f'spec.clusterIPs[0]: Invalid value: "invalid": {NOT_AN_IP}'],
    ),
    (
        "invalid legacy cluster ip with strict validation",
        svc(clusterIP="001.002.003.004"),
        ['spec.clusterIPs[0]: Invalid value: "001.002.003.004": must not have leading 0s'],
    ),
    (
        "missing port",
        svc(ports=[port(port=0, targetPort=80)]),
        ["spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"],
    ),
    (
        "invalid port",
        svc(ports=[port(port=65536)]),
        [
            "spec.ports[0].port: Invalid value: 65536: must be between 1 and 65535, inclusive",
            "spec.ports[0].targetPort: Invalid value: 65536: must be between 1 and 65535, "
            "inclusive",
        ],
    ),
    (
        "invalid TargetPort int",
        svc(ports=[port(targetPort=65536)]),
        ["spec.ports[0].targetPort: Invalid value: 65536: must be between 1 and 65535, inclusive"],
    ),
    (
        "invalid port headless 2",
        svc(clusterIP="None", ports=[port(port=11722, targetPort="target")]),
        [],
    ),
    (
        "invalid externalIPs localhost",
        svc(externalIPs=["127.0.0.1"]),
        [
            'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range '
            "(127.0.0.0/8, ::1/128)"
        ],
    ),
    (
        "invalid externalIPs unspecified",
        svc(externalIPs=["0.0.0.0"]),
        ['spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)'],
    ),
    (
        "invalid externalIPs host",
        svc(externalIPs=["myhost.mydomain"]),
        [f'spec.externalIPs[0]: Invalid value: "myhost.mydomain": {NOT_AN_IP}'],
    ),
    ("valid externalIPs", svc(externalIPs=["1.2.3.4"]), []),
    (
        "dup port name",
        svc(ports=[port(name="p", port=1), port(name="p", port=2)]),
        ['spec.ports[1].name: Duplicate value: "p"'],
    ),
    (
        "load balancer with mix protocol",
        svc(
            type="LoadBalancer",
            ports=[port(name="a", port=53), port(name="b", port=53, protocol="UDP")],
        ),
        [],
    ),
    ("valid cluster ip - none ", svc(clusterIP="None"), []),
    (
        "duplicate nodeports",
        svc(
            type="NodePort",
            ports=[port(name="a", port=1, nodePort=1), port(name="b", port=2, nodePort=1)],
        ),
        ["spec.ports[1].nodePort: Duplicate value: 1"],
    ),
    (
        "duplicate nodeports (different protocols)",
        svc(
            type="NodePort",
            ports=[
                port(name="a", port=1, nodePort=1),
                port(name="b", port=2, nodePort=1, protocol="UDP"),
            ],
        ),
        [],
    ),
    (
        "invalid duplicate ports (with same protocol)",
        svc(
            ports=[
                port(name="a", port=12345, targetPort=80),
                port(name="b", port=12345, targetPort=8080),
            ]
        ),
        [
            'spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,'
            '"Port":12345,"TargetPort":0,"NodePort":0}'
        ],
    ),
    (
        "invalid cluster service with NodePort",
        svc(ports=[port(nodePort=30000)]),
        ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
    ),
    (
        "invalid LoadBalancer source range annotation (invalid CIDR)",
        lambda m: (
            svc(type="LoadBalancer")(m),
            annotate(**{"service.beta.kubernetes.io/load-balancer-source-ranges": "1.2.3.4/33"})(m),
        ),
        [
            "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: "
            'Invalid value: "1.2.3.4/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or '
            "2001:db8::/64)"
        ],
    ),
    (
        "invalid source range for non LoadBalancer type service",
        svc(loadBalancerSourceRanges=["1.2.3.4/8", "5.6.7.8/16"]),
        [
            f"spec.LoadBalancerSourceRanges: Forbidden: {ONLY_LB}",
            'spec.LoadBalancerSourceRanges[0]: Invalid value: "1.2.3.4/8": must not have bits '
            "set beyond the prefix length",
            'spec.LoadBalancerSourceRanges[1]: Invalid value: "5.6.7.8/16": must not have bits '
            "set beyond the prefix length",
        ],
    ),
    (
        "valid LoadBalancer source range",
        svc(type="LoadBalancer", loadBalancerSourceRanges=["1.2.0.0/16"]),
        [],
    ),
    (
        "invalid legacy LoadBalancer source range with strict validation",
        svc(type="LoadBalancer", loadBalancerSourceRanges=["001.002.0.0/16"]),
        [
            'spec.LoadBalancerSourceRanges[0]: Invalid value: "001.002.0.0/16": must not have '
            "leading 0s in IP or prefix length"
        ],
    ),
    (
        "valid ExternalName",
        svc(type="ExternalName", externalName="foo.bar.example.com", ports=[]),
        [],
    ),
    (
        "valid ExternalName (trailing dot)",
        svc(type="ExternalName", externalName="foo.bar.example.com."),
        [],
    ),
    (
        "invalid ExternalName clusterIP (valid IP)",
        svc(type="ExternalName", externalName="foo.bar.example.com", clusterIP="1.2.3.4"),
        ["spec.clusterIPs: Forbidden: may not be set for ExternalName services"],
    ),
    (
        "invalid ExternalName (not a DNS name)",
        svc(type="ExternalName", externalName="-123"),
        [f'spec.externalName: Invalid value: "-123": {SUBDOMAIN}'],
    ),
    (
        "LoadBalancer type cannot have None ClusterIP",
        svc(type="LoadBalancer", clusterIP="None"),
        [
            "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for "
            "LoadBalancer services"
        ],
    ),
    (
        "invalid externalTraffic field",
        svc(type="LoadBalancer", externalTrafficPolicy="invalid"),
        [
            'spec.externalTrafficPolicy: Unsupported value: "invalid": supported values: '
            '"Cluster", "Local"'
        ],
    ),
    (
        "internalTrafficPolicy field is set when type is ExternalName",
        svc(type="ExternalName", externalName="foo.bar.com", internalTrafficPolicy="Cluster"),
        [],
    ),
    (
        "invalid internalTraffic field",
        svc(internalTrafficPolicy="invalid"),
        [
            'spec.internalTrafficPolicy: Unsupported value: "invalid": supported values: '
            '"Cluster", "Local"'
        ],
    ),
    (
        "negative healthCheckNodePort field",
        svc(type="LoadBalancer", externalTrafficPolicy="Local", healthCheckNodePort=-1),
        ["spec.healthCheckNodePort: Invalid value: -1: must be between 1 and 65535, inclusive"],
    ),
    (
        "invalid timeoutSeconds field",
        svc(sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {"timeoutSeconds": -1}}),
        [
            "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: -1: must be "
            "greater than 0 and less than 86400"
        ],
    ),
    (
        "sessionAffinityConfig can't be set when session affinity is None (defaulting drops it)",
        svc(sessionAffinityConfig={"clientIP": {"timeoutSeconds": 90}}),
        [],
    ),
    (
        "invalid, service with invalid ipFamilies",
        svc(ipFamilies=["not-a-family"]),
        ['spec.ipFamilies[0]: Unsupported value: "not-a-family": supported values: "IPv4", "IPv6"'],
    ),
    (
        "invalid, service with same ip families",
        svc(ipFamilies=["IPv6", "IPv6"]),
        ['spec.ipFamilies[1]: Duplicate value: "IPv6"'],
    ),
    (
        "invalid, NONE + IP",
        svc(clusterIP="None", clusterIPs=["None", "2001::1"]),
        [
            'spec.clusterIPs: Invalid value: ["None","2001::1"]: \'None\' must be the first and '
            "only value"
        ],
    ),
    (
        "invalid, IP + NONE",
        svc(clusterIPs=["2001::1", "None"]),
        [f'spec.clusterIPs[1]: Invalid value: "None": {NOT_AN_IP}'],
    ),
    (
        "invalid, same ip family (v4)",
        svc(clusterIPs=["10.0.0.1", "10.0.0.10"]),
        [
            'spec.clusterIPs: Invalid value: ["10.0.0.1","10.0.0.10"]: may specify no more than '
            "one IP for each IP family"
        ],
    ),
    (
        "invalid, more than two ips",
        svc(clusterIPs=["10.0.0.1", "2001::1", "10.0.0.10"]),
        [
            'spec.clusterIPs: Invalid value: ["10.0.0.1","2001::1","10.0.0.10"]: may only hold '
            "up to 2 values"
        ],
    ),
    (
        "invalid, families don't match (v4=>v6)",
        svc(clusterIP="10.0.0.1", ipFamilies=["IPv6"]),
        [
            'spec.clusterIPs[0]: Invalid value: "10.0.0.1": expected an IPv6 value as indicated '
            "by `ipFamilies[0]`"
        ],
    ),
    ("valid, dual stack", svc(clusterIPs=["10.0.0.1", "2001::1"], ipFamilies=["IPv4", "IPv6"]), []),
    (
        "invalid appProtocol",
        svc(ports=[port(appProtocol="//invalid-protocol")]),
        [
            'spec.ports[0].appProtocol: Invalid value: "//invalid-protocol": a valid label key '
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
            "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional "
            "DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ],
    ),
    (
        "invalid cluster ip != clusterIP in single ip service",
        svc(clusterIP="10.0.0.10", clusterIPs=["10.0.0.1"]),
        ['spec.clusterIPs: Invalid value: ["10.0.0.1"]: first value must match `clusterIP`'],
    ),
    (
        "Use AllocateLoadBalancerNodePorts when type is not LoadBalancer",
        svc(allocateLoadBalancerNodePorts=True),
        [f"spec.allocateLoadBalancerNodePorts: Forbidden: {ONLY_LB}"],
    ),
    (
        "invalid: set LoadBalancerClass when type is not LoadBalancer",
        svc(loadBalancerClass="test.com/test-load-balancer-class"),
        [f"spec.loadBalancerClass: Forbidden: {ONLY_LB}"],
    ),
    (
        "topology annotations are mismatched",
        annotate(
            **{
                "service.kubernetes.io/topology-aware-hints": "original",
                "service.kubernetes.io/topology-mode": "different",
            }
        ),
        [
            "metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "
            '"different": must match annotations[service.kubernetes.io/topology-aware-hints] '
            "when both are specified"
        ],
    ),
    (
        "valid: trafficDistribution field set to PreferSameNode with feature gate",
        svc(trafficDistribution="PreferSameNode"),
        [],
    ),
    (
        "invalid: trafficDistribution field set to Random",
        svc(trafficDistribution="Random"),
        [
            'spec.trafficDistribution: Unsupported value: "Random": supported values: '
            '"PreferClose", "PreferSameZone", "PreferSameNode"'
        ],
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"), [c[1:] for c in SERVICE_CASES], ids=[c[0] for c in SERVICE_CASES]
)
def test_service_validation(edit, expected):
    manifest = copy.deepcopy(SERVICE)
    edit(manifest)
    assert errors(manifest) == expected


# -- RuntimeClass (TestValidateRuntimeClass, TestValidateOverhead, TestValidateScheduling) -------

RUNTIME_CLASS_CASES = [
    ("valid Handler", {"handler": "bar-baz"}, []),
    (
        "invalid Handler name",
        {"handler": "&@#$"},
        [f'handler: Invalid value: "&@#$": {DNS_LABEL}'],
    ),
    ("invalid empty RuntimeClass", {}, ["handler: Required value"]),
    (
        "Overhead with valid cpu and memory resources",
        {"handler": "bar", "overhead": {"podFixed": {"cpu": "10", "memory": "10G"}}},
        [],
    ),
    (
        "Invalid Resources",
        {"handler": "bar", "overhead": {"podFixed": {"my.org": "10m"}}},
        [
            'overhead.limits[my.org]: Invalid value: "my.org": must be a standard resource type '
            "or fully qualified",
            'overhead.limits[my.org]: Invalid value: "my.org": must be a standard resource for '
            "containers",
        ],
    ),
    (
        "invalid overhead",
        {"handler": "bar", "overhead": {"podFixed": {"cpu": "-1"}}},
        ['overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
    ),
    (
        "invalid node selector",
        {"handler": "bar", "scheduling": {"nodeSelector": {"not a valid key!!!": "nope"}}},
        [
            'scheduling.nodeSelector: Invalid value: "not a valid key!!!": name part must '
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ],
    ),
    (
        "duplicate tolerations",
        {
            "handler": "bar",
            "scheduling": {
                "tolerations": [
                    {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
                    {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
                ]
            },
        },
        [
            'scheduling.tolerations[1]: Duplicate value: {"Key":"foo","Operator":"Equal",'
            '"Value":"bar","Effect":"NoSchedule","TolerationSeconds":null}'
        ],
    ),
]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [c[1:] for c in RUNTIME_CLASS_CASES],
    ids=[c[0] for c in RUNTIME_CLASS_CASES],
)
def test_runtime_class_validation(fields, expected):
    manifest = {"kind": "RuntimeClass", "metadata": {"name": "foo"}, **fields}
    assert errors(manifest) == expected


# -- Namespace (TestValidateNamespace, TestValidateNamespaceFinalizeUpdate) ----------------------


@pytest.mark.parametrize(
    ("metadata", "spec", "expected"),
    [
        ({"name": "abc-123"}, {}, []),
        (
            {"name": "abc.123"},
            {},
            ['metadata.name: Invalid value: "abc.123": must not contain dots'],
        ),
        ({"name": "abc"}, {"finalizers": ["kubernetes", "example.com/foo"]}, []),
        (
            {"name": "abc"},
            {"finalizers": ["foo"]},
            [
                'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name '
                "nor is it fully qualified"
            ],
        ),
    ],
    ids=[
        "valid",
        "name-with-dots",
        "finalizers",
        "a finalizer that is neither standard nor qualified",
    ],
)
def test_namespace_validation(metadata, spec, expected):
    manifest = {"kind": "Namespace", "metadata": metadata, "spec": spec}
    assert errors(manifest) == expected
