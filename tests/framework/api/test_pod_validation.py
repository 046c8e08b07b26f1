"""Pod validation as kube-apiserver's ``ValidatePodCreate``: cases from upstream's
validation_test.go tables (TestValidateTopologySpreadConstraints, TestValidateTolerations,
TestValidateResourceRequirements, TestValidateAffinity, ...), with upstream's paths and
messages."""

from __future__ import annotations

import copy

import pytest

from framework.api.errors import InvalidObjectError
from framework.api.loader import parse_new_object
from framework.api.validation.pod import validate_pod

BASE = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


def errors_of(edit) -> list[str]:
    manifest = copy.deepcopy(BASE)
    edit(manifest)
    return [str(e) for e in validate_pod(manifest)]


def spec(**fields):
    return lambda m: m["spec"].update(fields)


def container(**fields):
    return lambda m: m["spec"]["containers"][0].update(fields)


def resources(requests=None, limits=None):
    value = {}
    if requests is not None:
        value["requests"] = requests
    if limits is not None:
        value["limits"] = limits
    return container(resources=value)


def tsc(**fields):
    constraint = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    return spec(topologySpreadConstraints=[{**constraint, **fields}])


def toleration(**fields):
    return spec(tolerations=[fields])


def required_node_terms(*terms):
    return spec(
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
            }
        }
    )


def pod_affinity_term(**fields):
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "db"}}, **fields}
    return spec(
        affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    )


SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
AFFINITY_TERM = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
NODE_TERM = (
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
)
RES = "spec.containers[0].resources"
TSC = "spec.topologySpreadConstraints[0]"

CASES = [
    ("a valid pod", lambda m: None, []),
    # containers
    ("a pod without containers", spec(containers=[]), ["spec.containers: Required value"]),
    (
        "a container without name and image",
        lambda m: m["spec"].update(containers=[{}]),
        ["spec.containers[0].name: Required value", "spec.containers[0].image: Required value"],
    ),
    (
        "duplicate container names",
        lambda m: m["spec"]["containers"].append({"name": "c", "image": "x"}),
        ['spec.containers[1].name: Duplicate value: "c"'],
    ),
    (
        "an image with blanks around it",
        container(image=" nginx"),
        [
            'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing '
            "whitespace"
        ],
    ),
    # resources (TestValidateResourceRequirements)
    (
        "a negative request",
        resources(requests={"cpu": "-1"}),
        [f'{RES}.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
    ),
    (
        "requests above limits",
        resources(requests={"cpu": "2", "memory": "2Gi"}, limits={"cpu": "1", "memory": "2Gi"}),
        [f'{RES}.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    ),
    (
        "an extended resource request without its limit",
        resources(requests={"example.com/gpu": "1"}),
        [f"{RES}.limits: Required value: Limit must be set for non overcommitable resources"],
    ),
    (
        "an extended resource request unequal to its limit",
        resources(requests={"example.com/gpu": "1"}, limits={"example.com/gpu": "2"}),
        [f'{RES}.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
    ),
    (
        "a fractional extended resource",
        resources(requests={"example.com/gpu": "500m"}, limits={"example.com/gpu": "500m"}),
        [
            f'{RES}.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
            f'{RES}.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
        ],
    ),
    (
        "a resource that is not a container resource",
        resources(requests={"pods": "1"}),
        [
            f'{RES}.requests[pods]: Invalid value: "pods": must be a standard resource for '
            "containers"
        ],
    ),
    (
        "hugepages without cpu or memory",
        resources(requests={"hugepages-2Mi": "2Mi"}, limits={"hugepages-2Mi": "2Mi"}),
        [f"{RES}: Forbidden: HugePages require cpu or memory"],
    ),
    (
        # The apiserver keeps decimal exponents uncapped: 1e309 is a valid, huge quantity.
        "a huge decimal exponent",
        resources(requests={"cpu": "1e309"}),
        [],
    ),
    (
        "pod-level resources above their limit",
        spec(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        [
            'spec.resources.requests: Invalid value: "2": must be less than or equal to cpu '
            "limit of 1"
        ],
    ),
    (
        "a pod-level resource not supported",
        spec(resources={"requests": {"ephemeral-storage": "1Gi"}}),
        [
            'spec.resources.requests[ephemeral-storage]: Unsupported value: "ephemeral-storage": '
            'supported values: "cpu", "memory"'
        ],
    ),
    # ports
    (
        "a host port out of range and conflicting host ports",
        container(
            ports=[
                {"containerPort": 80, "hostPort": 70000},
                {"containerPort": 81, "hostPort": 8080},
                {"containerPort": 82, "hostPort": 8080},
            ]
        ),
        [
            "spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and "
            "65535, inclusive",
            'spec.containers[0].ports[2].hostPort: Duplicate value: "TCP//8080"',
        ],
    ),
    # TestValidatePodSpec: host network (its hostPort is defaulted first, as on create)
    (
        "with hostNetwork hostPort not equal to containerPort",
        lambda m: m["spec"].update(
            hostNetwork=True,
            containers=[
                {"name": "ctr", "image": "x", "ports": [{"containerPort": 2600, "hostPort": 8080}]}
            ],
        ),
        [
            "spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match "
            "`containerPort` when `hostNetwork` is true"
        ],
    ),
    (
        "with hostNetwork hostPort unspecified, defaulted to containerPort",
        lambda m: m["spec"].update(
            hostNetwork=True,
            containers=[
                {"name": "a", "image": "x", "ports": [{"containerPort": 2600}]},
                {"name": "b", "image": "x", "ports": [{"containerPort": 2600}]},
            ],
        ),
        ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//2600"'],
    ),
    # containers' restart policies (ContainerRestartRules is on in v1.36)
    (
        "an unknown container restart policy",
        container(restartPolicy="Sometimes"),
        [
            'spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported '
            'values: "Always", "Never", "OnFailure"'
        ],
    ),
    (
        "a sidecar with restart rules",
        spec(
            initContainers=[
                {
                    "name": "proxy",
                    "image": "envoy",
                    "restartPolicy": "Always",
                    "restartPolicyRules": [{"action": "Restart"}],
                }
            ]
        ),
        [
            "spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are not "
            "allowed for init containers with restart policy Always"
        ],
    ),
    (
        "probes on an init container that is not a sidecar",
        spec(
            initContainers=[
                {
                    "name": "setup",
                    "image": "busybox",
                    "readinessProbe": {"exec": {"command": ["a"]}},
                }
            ]
        ),
        [
            "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init "
            "containers without restartPolicy=Always"
        ],
    ),
    (
        "an init container named like an app container",
        spec(initContainers=[{"name": "c", "image": "busybox"}]),
        ['spec.initContainers[0].name: Duplicate value: "c"'],
    ),
    (
        "bad OS for PodLevelResources hides bad cpu limit",
        spec(os={"name": "windows"}, resources={"limits": {"cpu": "100m"}}),
        ["spec.resources: Forbidden: may not be set for a windows pod"],
    ),
    (
        "an unknown OS",
        spec(os={"name": "plan9"}),
        ['spec.os: Unsupported value: "plan9": supported values: "linux", "windows"'],
    ),
    (
        "bad nodeName",
        spec(nodeName="node name"),
        [f'spec.nodeName: Invalid value: "node name": {SUBDOMAIN_MSG}'],
    ),
    (
        "bad RuntimeClassName",
        spec(runtimeClassName="invalid/sandbox"),
        [f'spec.runtimeClassName: Invalid value: "invalid/sandbox": {SUBDOMAIN_MSG}'],
    ),
    # ephemeral volumes (TestEphemeralVolumes* cases)
    (
        "an ephemeral volume without its claim template",
        spec(volumes=[{"name": "scratch", "ephemeral": {}}]),
        ["spec.volumes[0].ephemeral.volumeClaimTemplate: Required value"],
    ),
    (
        "an ephemeral claim template without storage and access modes",
        spec(volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]),
        [
            "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at "
            "least 1 access mode is required",
            "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value",
        ],
    ),
    (
        "a claim that an ephemeral volume creates",
        spec(
            volumes=[
                {
                    "name": "scratch",
                    "ephemeral": {
                        "volumeClaimTemplate": {
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "resources": {"requests": {"storage": "1Gi"}},
                            }
                        }
                    },
                },
                {"name": "data", "persistentVolumeClaim": {"claimName": "web-scratch"}},
            ]
        ),
        [
            'spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "web-scratch": must '
            "not reference a PVC that gets created for an ephemeral volume"
        ],
    ),
    # metadata
    (
        "an invalid label key and value",
        lambda m: m["metadata"].update(labels={"-a": "b c"}),
        [
            'metadata.labels: Invalid value: "-a": name part must consist of alphanumeric '
            "characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            'metadata.labels: Invalid value: "b c": a valid label must be an empty string or '
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
            "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ],
    ),
    (
        "an invalid namespace",
        lambda m: m["metadata"].update(namespace="Team"),
        [
            'metadata.namespace: Invalid value: "Team": a lowercase RFC 1123 label must consist '
            "of lower case alphanumeric characters or '-', and must start and end with an "
            "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        ],
    ),
    # tolerations (TestValidateTolerations)
    (
        "an empty key with operator Equal",
        toleration(operator="Equal", value="bar", effect="NoSchedule"),
        [
            'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when '
            '`key` is empty, which means "match all values and all keys"'
        ],
    ),
    (
        "tolerationSeconds without NoExecute",
        toleration(key="foo", operator="Exists", effect="NoSchedule", tolerationSeconds=20),
        [
            'spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be '
            "'NoExecute' when `tolerationSeconds` is set"
        ],
    ),
    (
        "a value with operator Exists",
        toleration(key="foo", operator="Exists", value="bar"),
        [
            'spec.tolerations[0].operator: Invalid value: "bar": value must be empty when '
            "`operator` is 'Exists'"
        ],
    ),
    (
        "an unknown operator and effect",
        toleration(key="foo", operator="In", effect="Sometimes"),
        [
            'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", '
            '"Exists"',
            'spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: '
            '"NoSchedule", "PreferNoSchedule", "NoExecute"',
        ],
    ),
    (
        "the alpha comparison operators are off",
        toleration(key="foo", operator="Gt", value="5"),
        [
            'spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", '
            '"Exists", "Lt", "Gt"'
        ],
    ),
    # node affinity (TestValidateAffinity)
    (
        "required node affinity without terms",
        required_node_terms(),
        [f"{NODE_TERM}: Required value: must have at least one node selector term"],
    ),
    (
        "node selector operators and their values",
        required_node_terms(
            {
                "matchExpressions": [
                    {"key": "zone", "operator": "In"},
                    {"key": "zone", "operator": "Exists", "values": ["a"]},
                    {"key": "zone", "operator": "Gt", "values": ["1", "2"]},
                    {"key": "zone", "operator": "Near", "values": ["a"]},
                ]
            }
        ),
        [
            f"{NODE_TERM}[0].matchExpressions[0].values: Required value: must be specified when "
            "`operator` is 'In' or 'NotIn'",
            f"{NODE_TERM}[0].matchExpressions[1].values: Forbidden: may not be specified when "
            "`operator` is 'Exists' or 'DoesNotExist'",
            f"{NODE_TERM}[0].matchExpressions[2].values: Required value: must be specified single "
            "value when `operator` is 'Lt' or 'Gt'",
            f'{NODE_TERM}[0].matchExpressions[3].operator: Invalid value: "Near": not a valid '
            "selector operator",
        ],
    ),
    (
        "a match field other than metadata.name",
        required_node_terms(
            {"matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["a"]}]}
        ),
        [
            f'{NODE_TERM}[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid '
            "field selector key"
        ],
    ),
    (
        "a preferred weight out of range",
        spec(
            affinity={
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 101, "preference": {"matchExpressions": []}}
                    ]
                }
            }
        ),
        [
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
            "weight: Invalid value: 101: must be in the range 1-100"
        ],
    ),
    # pod affinity
    (
        "a pod affinity term without topology key",
        pod_affinity_term(topologyKey=""),
        [
            f"{AFFINITY_TERM}.topologyKey: Required value: can not be empty",
            f'{AFFINITY_TERM}.topologyKey: Invalid value: "": name part must be non-empty',
            f'{AFFINITY_TERM}.topologyKey: Invalid value: "": name part must consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
    ),
    (
        "a key in both matchLabelKeys and the selector",
        pod_affinity_term(labelSelector={"matchLabels": {"app": "web"}}, matchLabelKeys=["app"]),
        [
            f'{AFFINITY_TERM}[0]: Invalid value: "app": exists in both matchLabelKeys and '
            "labelSelector"
        ],
    ),
    (
        "a key in both matchLabelKeys and mismatchLabelKeys",
        pod_affinity_term(matchLabelKeys=["tier"], mismatchLabelKeys=["tier"]),
        [
            f'{AFFINITY_TERM}.matchLabelKeys[0]: Invalid value: "tier": exists in both '
            "matchLabelKeys and mismatchLabelKeys"
        ],
    ),
    (
        "matchLabelKeys without a selector",
        pod_affinity_term(labelSelector=None, matchLabelKeys=["app"]),
        [
            f"{AFFINITY_TERM}.matchLabelKeys: Forbidden: must not be specified when labelSelector "
            "is not set"
        ],
    ),
    # topology spread (TestValidateTopologySpreadConstraints)
    ("all required fields ok", tsc(), []),
    (
        "missing MaxSkew",
        tsc(maxSkew=0),
        [f"{TSC}.maxSkew: Invalid value: 0: must be greater than zero"],
    ),
    (
        "negative minDomains is invalid",
        tsc(minDomains=-1),
        [f"{TSC}.minDomains: Invalid value: -1: must be greater than zero"],
    ),
    (
        "cannot use non-nil MinDomains with ScheduleAnyway",
        tsc(minDomains=10, whenUnsatisfiable="ScheduleAnyway"),
        [
            f"{TSC}.minDomains: Invalid value: 10: can only use minDomains if "
            "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"
        ],
    ),
    (
        "missing TopologyKey",
        tsc(topologyKey=""),
        [f"{TSC}.topologyKey: Required value: can not be empty"],
    ),
    (
        "unsupported WhenUnsatisfiable",
        tsc(whenUnsatisfiable="N/A"),
        [
            f'{TSC}.whenUnsatisfiable: Unsupported value: "N/A": supported values: '
            '"DoNotSchedule", "ScheduleAnyway"'
        ],
    ),
    (
        "duplicate constraints",
        spec(
            topologySpreadConstraints=[
                {"maxSkew": 1, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": "k8s.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
            ]
        ),
        [
            "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
            '"{k8s.io/zone, DoNotSchedule}"'
        ],
    ),
    (
        "unsupported node inclusion policies",
        tsc(nodeAffinityPolicy="N/A", nodeTaintsPolicy="N/A"),
        [
            f'{TSC}.nodeAffinityPolicy: Unsupported value: "N/A": supported values: "Honor", '
            '"Ignore"',
            f'{TSC}.nodeTaintsPolicy: Unsupported value: "N/A": supported values: "Honor", '
            '"Ignore"',
        ],
    ),
    (
        "key exists in both matchLabelKeys and labelSelector",
        tsc(labelSelector={"matchLabels": {"app": "web"}}, matchLabelKeys=["app"]),
        [f'{TSC}[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector'],
    ),
    # scheduling gates, priority, volumes, names
    (
        "duplicate and invalid scheduling gates",
        spec(schedulingGates=[{"name": "example.com/gate"}, {"name": "example.com/gate"}]),
        ['spec.schedulingGates[1]: Duplicate value: "example.com/gate"'],
    ),
    (
        "an invalid priority class name and preemption policy",
        spec(priorityClassName="High", preemptionPolicy="Sometimes"),
        [
            'spec.priorityClassName: Invalid value: "High": a lowercase RFC 1123 subdomain must '
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            'spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: '
            '"PreemptLowerPriority", "Never"',
        ],
    ),
    (
        "a claim volume without claim name and a duplicate volume",
        spec(
            volumes=[
                {"name": "data", "persistentVolumeClaim": {}},
                {"name": "cache", "emptyDir": {}},
                {"name": "cache", "emptyDir": {}},
            ]
        ),
        [
            "spec.volumes[0].persistentVolumeClaim.claimName: Required value",
            'spec.volumes[2].name: Duplicate value: "cache"',
        ],
    ),
]


@pytest.mark.parametrize(("edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pod_validation(edit, expected):
    assert errors_of(edit) == expected


def test_every_problem_is_listed_at_once_and_nothing_is_returned():
    manifest = copy.deepcopy(BASE)
    manifest["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "-1"}}
    manifest["spec"]["priority"] = 0
    manifest["spec"]["tolerations"] = [{"operator": "Equal", "value": "x"}]
    with pytest.raises(InvalidObjectError) as excinfo:
        parse_new_object(manifest)
    assert str(excinfo.value) == (
        'Pod "default/web" is invalid: ['
        'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than '
        "or equal to 0, "
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when '
        '`key` is empty, which means "match all values and all keys"]'
    )
    assert len(excinfo.value.errors) == 2


def consistency(pod_resources, *containers):
    """A pod with pod-level resources and containers with these resources (upstream's
    TestValidatePodResourceConsistency builds the same)."""

    def edit(manifest):
        manifest["spec"]["resources"] = pod_resources
        manifest["spec"]["containers"] = [
            {"name": f"c{i}", "image": "x", "resources": resources}
            for i, resources in enumerate(containers)
        ]

    return edit


AGGREGATE_REQUESTS = "must be greater than or equal to aggregate container requests of"
ABOVE_LIMIT = "must be less than or equal to"
# Upstream's table tests validatePodResourceConsistency alone; here each pod goes through the
# whole create validation after the API server's defaults, so a pod-level request defaulted
# from the containers (defaultPodRequests) above its limit is refused too, as a real
# kube-apiserver refuses it.
CONSISTENCY_CASES = [
    (
        "aggregate container requests less than pod requests",
        consistency(
            {"requests": {"cpu": "10", "memory": "10Mi"}},
            {"requests": {"cpu": "5", "memory": "5Mi"}},
            {"requests": {"cpu": "4", "memory": "3Mi"}},
        ),
        [],
    ),
    (
        "aggregate container requests equal to pod requests",
        consistency(
            {"requests": {"cpu": "10", "memory": "10Mi"}},
            {"requests": {"cpu": "5", "memory": "5Mi"}},
            {"requests": {"cpu": "5", "memory": "5Mi"}},
        ),
        [],
    ),
    (
        "aggregate container requests greater than pod requests",
        consistency(
            {"requests": {"cpu": "10", "memory": "10Mi"}},
            {"requests": {"cpu": "6", "memory": "5Mi"}},
            {"requests": {"cpu": "8", "memory": "7Mi"}},
        ),
        [
            f'spec.resources.requests[cpu]: Invalid value: "10": {AGGREGATE_REQUESTS} 14',
            f'spec.resources.requests[memory]: Invalid value: "10Mi": {AGGREGATE_REQUESTS} 12Mi',
        ],
    ),
    (
        "aggregate container limits less than pod limits",
        consistency(
            {"limits": {"cpu": "10", "memory": "10Mi", "hugepages-2Mi": "10Mi"}},
            {"limits": {"cpu": "5", "memory": "5Mi", "hugepages-2Mi": "4Mi"}},
            {"limits": {"cpu": "4", "memory": "3Mi", "hugepages-2Mi": "4Mi"}},
        ),
        [],
    ),
    (
        "aggregate container limits greater than pod limits",
        consistency(
            {"limits": {"cpu": "10", "memory": "10Mi"}},
            {"limits": {"cpu": "5", "memory": "5Mi"}},
            {"limits": {"cpu": "6", "memory": "9Mi"}},
        ),
        [
            f'spec.resources.requests: Invalid value: "11": {ABOVE_LIMIT} cpu limit of 10',
            f'spec.resources.requests: Invalid value: "14Mi": {ABOVE_LIMIT} memory limit of 10Mi',
        ],
    ),
    (
        "hugepage aggregate container limits greater than pod limits",
        consistency(
            {"limits": {"cpu": "10", "hugepages-2Mi": "4Mi"}},
            {"limits": {"cpu": "6", "hugepages-2Mi": "4Mi"}},
            {"limits": {"cpu": "6", "hugepages-2Mi": "4Mi"}},
        ),
        [
            f'spec.resources.requests: Invalid value: "12": {ABOVE_LIMIT} cpu limit of 10',
            'spec.resources.requests[hugepages-2Mi]: Invalid value: "4Mi": '
            f"{AGGREGATE_REQUESTS} 8Mi",
            'spec.resources.limits[hugepages-2Mi]: Invalid value: "4Mi": must be greater than '
            "or equal to aggregate container limits of 8Mi",
        ],
    ),
    (
        "individual container limits greater than pod limits",
        consistency(
            {"limits": {"cpu": "10", "memory": "10Mi", "hugepages-2Mi": "2Mi"}},
            {"limits": {"cpu": "11", "memory": "12Mi", "hugepages-2Mi": "4Mi"}},
        ),
        [
            f'spec.resources.requests: Invalid value: "11": {ABOVE_LIMIT} cpu limit of 10',
            f'spec.resources.requests: Invalid value: "12Mi": {ABOVE_LIMIT} memory limit of 10Mi',
            'spec.resources.requests[hugepages-2Mi]: Invalid value: "2Mi": '
            f"{AGGREGATE_REQUESTS} 4Mi",
            'spec.resources.limits[hugepages-2Mi]: Invalid value: "2Mi": must be greater than '
            "or equal to aggregate container limits of 4Mi",
            'spec.resources.containers[0][cpu].limits: Invalid value: "11": must be less than '
            "or equal to pod limits of 10",
            'spec.resources.containers[0][hugepages-2Mi].limits: Invalid value: "4Mi": must be '
            "less than or equal to pod limits of 2Mi",
            'spec.resources.containers[0][memory].limits: Invalid value: "12Mi": must be less '
            "than or equal to pod limits of 10Mi",
        ],
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [c[1:] for c in CONSISTENCY_CASES],
    ids=[c[0] for c in CONSISTENCY_CASES],
)
def test_pod_level_resources_hold_the_containers(edit, expected):
    assert errors_of(edit) == expected


PORT_CASES = [
    (
        "name > 15 characters",
        [{"name": "a" * 16, "containerPort": 80}],
        [f'ports[0].name: Invalid value: "{"a" * 16}": must be no more than 15 characters'],
    ),
    (
        "name contains invalid characters",
        [{"name": "a.b.c", "containerPort": 80}],
        [
            'ports[0].name: Invalid value: "a.b.c": must contain only alpha-numeric characters '
            "(a-z, 0-9), and hyphens (-)"
        ],
    ),
    (
        "name is a number",
        [{"name": "80", "containerPort": 80}],
        ['ports[0].name: Invalid value: "80": must contain at least one letter (a-z)'],
    ),
    (
        "name not unique",
        [{"name": "abc", "containerPort": 80}, {"name": "abc", "containerPort": 81}],
        ['ports[1].name: Duplicate value: "abc"'],
    ),
    ("zero container port", [{"containerPort": 0}], ["ports[0].containerPort: Required value"]),
    (
        "invalid container port",
        [{"containerPort": 65536}],
        ["ports[0].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive"],
    ),
    (
        "invalid host port",
        [{"containerPort": 80, "hostPort": 65536}],
        ["ports[0].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive"],
    ),
    (
        "invalid protocol case",
        [{"containerPort": 80, "protocol": "tcp"}],
        ['ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"'],
    ),
    (
        "invalid protocol",
        [{"containerPort": 80, "protocol": "ICMP"}],
        ['ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'],
    ),
    # Upstream's "protocol required" cannot happen on create: an empty protocol defaults to TCP.
    (
        "valid ports",
        [
            {"name": "abc", "containerPort": 80, "hostPort": 80, "protocol": "TCP"},
            {"name": "easy", "containerPort": 82, "protocol": "TCP"},
            {"name": "as", "containerPort": 83, "protocol": "UDP"},
            {"name": "do-re-me", "containerPort": 84, "protocol": "SCTP"},
            {"containerPort": 85},
        ],
        [],
    ),
]


@pytest.mark.parametrize(
    ("ports", "expected"), [c[1:] for c in PORT_CASES], ids=[c[0] for c in PORT_CASES]
)
def test_container_ports(ports, expected):
    """TestValidatePorts."""
    prefix = "spec.containers[0]."
    assert errors_of(container(ports=ports)) == [prefix + e for e in expected]


NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
NATIVE = "kubernetes.io/" + "a" * 63
REQUIREMENT_CASES = [
    # TestValidateResourceRequirements, success cases
    (
        "limits and requests of hugepage resource are equal",
        resources(
            limits={"cpu": "10", "hugepages-2Mi": "2Mi"},
            requests={"cpu": "10", "hugepages-2Mi": "2Mi"},
        ),
        [],
    ),
    (
        "container resource hugepage with cpu or memory",
        resources(limits={"hugepages-2Mi": "2Mi", "cpu": "10"}, requests={"hugepages-2Mi": "2Mi"}),
        [],
    ),
    (
        "container resource hugepage limit without request",
        resources(limits={"memory": "2Mi", "hugepages-2Mi": "2Mi"}),
        [],
    ),
    (
        "pod resource hugepages with cpu or memory",
        spec(
            resources={
                "limits": {"hugepages-2Mi": "2Mi"},
                "requests": {"memory": "2Mi", "hugepages-2Mi": "2Mi"},
            }
        ),
        [],
    ),
    # TestValidateResourceRequirements, error cases
    (
        "container resource hugepage without cpu or memory",
        resources(limits={"hugepages-2Mi": "2Mi"}, requests={"hugepages-2Mi": "2Mi"}),
        [f"{RES}: Forbidden: HugePages require cpu or memory"],
    ),
    (
        "container resource hugepage without limit",
        resources(requests={"memory": "2Mi", "hugepages-2Mi": "2Mi"}),
        [f"{RES}.limits: Required value: Limit must be set for non overcommitable resources"],
    ),
    (
        "pod resource hugepages without cpu or memory",
        spec(resources={"limits": {"hugepages-2Mi": "2Mi"}, "requests": {"hugepages-2Mi": "2Mi"}}),
        ["spec.resources: Forbidden: HugePages require cpu or memory"],
    ),
    (
        "pod resource hugepages request without limit",
        spec(resources={"requests": {"memory": "2Mi", "hugepages-2Mi": "2Mi"}}),
        [
            "spec.resources.limits: Required value: Limit must be set for non overcommitable "
            "resources"
        ],
    ),
    (
        "pod resource with ephemeral-storage",
        spec(
            resources={
                "limits": {"ephemeral-storage": "2Mi"},
                "requests": {"ephemeral-storage2Mi": "2Mi"},
            }
        ),
        [
            'spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": '
            'supported values: "cpu", "memory"',
            'spec.resources.requests[ephemeral-storage2Mi]: Invalid value: "ephemeral-storage2Mi":'
            " must be a standard resource type or fully qualified",
        ],
    ),
    (
        "pod resource with unsupported prefixed resources",
        spec(
            resources={
                "limits": {"kubernetesio/cpu": "2"},
                "requests": {"kubernetesio/memory": "2"},
            }
        ),
        [
            'spec.resources.limits[kubernetesio/cpu]: Unsupported value: "kubernetesio/cpu": '
            'supported values: "cpu", "memory"',
            "spec.resources.requests[kubernetesio/memory]: Unsupported value: "
            '"kubernetesio/memory": supported values: "cpu", "memory"',
            "spec.resources.limits: Required value: Limit must be set for non overcommitable "
            "resources",
        ],
    ),
    (
        "pod resource with unsupported native resources",
        spec(resources={"limits": {NATIVE: "2"}, "requests": {NATIVE: "2"}}),
        [
            f'spec.resources.limits[{NATIVE}]: Unsupported value: "{NATIVE}": supported '
            'values: "cpu", "memory"',
            f'spec.resources.requests[{NATIVE}]: Unsupported value: "{NATIVE}": supported '
            'values: "cpu", "memory"',
        ],
    ),
    (
        "pod resource with unsupported empty native resource name",
        spec(resources={"limits": {"kubernetes.io/": "2"}, "requests": {"kubernetes.io": "2"}}),
        [
            'spec.resources.limits[kubernetes.io/]: Invalid value: "kubernetes.io/": name part '
            "must be non-empty",
            f'spec.resources.limits[kubernetes.io/]: Invalid value: "kubernetes.io/": {NAME_PART}',
            'spec.resources.requests[kubernetes.io]: Invalid value: "kubernetes.io": must be a '
            "standard resource type or fully qualified",
        ],
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [c[1:] for c in REQUIREMENT_CASES],
    ids=[c[0] for c in REQUIREMENT_CASES],
)
def test_resource_requirements(edit, expected):
    assert errors_of(edit) == expected


def pod_with(name="123", labels=None, **spec_fields):
    """Upstream's ``podtest.MakePod(name, ...)``: one valid container unless given."""
    spec_fields.setdefault("containers", [{"name": "ctr", "image": "image"}])
    metadata = {"name": name, "namespace": "ns", "labels": labels or {}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec_fields}


def required_node_affinity(**requirement_lists):
    term = {key: list(value) for key, value in requirement_lists.items()}
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }


def affinity_term(**fields):
    term = {
        "labelSelector": {
            "matchExpressions": [
                {"key": "key", "operator": "NotIn", "values": ["value1", "value2"]}
            ]
        },
        "topologyKey": "k8s.io/zone",
    }
    return {**term, **fields}


def pod_affinity(kind, hard, term):
    terms = [term] if hard else [{"weight": 10, "podAffinityTerm": term}]
    field_name = "required" if hard else "preferred"
    return {kind: {f"{field_name}DuringSchedulingIgnoredDuringExecution": terms}}


TWICE = {
    "matchExpressions": [
        {"key": "key", "operator": "In", "values": ["value1"]},
        {"key": "key", "operator": "NotIn", "values": ["value2"]},
    ]
}
CLAIM_TEMPLATE = {
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10G"}}}
}
LONG_POD, LONG_VOLUME = "a" * 126, "b" * 127
NODE_TERM_0 = (
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
)
# TestValidatePod's error cases that concern what scheduling reads: (name, pod, a part of
# the error aggregate), checked as upstream checks them.
VALIDATE_POD_ERROR_CASES = [
    (
        "image whitespace",
        pod_with(containers=[{"name": "ctr", "image": " "}]),
        "spec.containers[0].image",
    ),
    (
        "image leading and trailing whitespace",
        pod_with(containers=[{"name": "ctr", "image": " something "}]),
        "spec.containers[0].image",
    ),
    ("bad spec", pod_with(containers=[{}]), "spec.containers[0].name"),
    (
        "bad label",
        pod_with(labels={"NoUppercaseOrSpecialCharsLike=Equals": "bar"}),
        "NoUppercaseOrSpecialCharsLike=Equals",
    ),
    (
        "invalid node selector requirement in node affinity, operator can't be null",
        pod_with(affinity=required_node_affinity(matchExpressions=[{"key": "key1"}])),
        f"{NODE_TERM_0}.matchExpressions[0].operator",
    ),
    (
        "invalid node selector requirement in node affinity, key is invalid",
        pod_with(
            affinity=required_node_affinity(
                matchExpressions=[{"key": "invalid key ___@#", "operator": "Exists"}]
            )
        ),
        f"{NODE_TERM_0}.matchExpressions[0].key",
    ),
    (
        "invalid node field selector requirement in node affinity, more values for field selector",
        pod_with(
            affinity=required_node_affinity(
                matchFields=[{"key": "metadata.name", "operator": "In", "values": ["h1", "h2"]}]
            )
        ),
        f"{NODE_TERM_0}.matchFields[0].values",
    ),
    (
        "invalid node field selector requirement in node affinity, invalid operator",
        pod_with(
            affinity=required_node_affinity(
                matchFields=[{"key": "metadata.name", "operator": "Exists"}]
            )
        ),
        f"{NODE_TERM_0}.matchFields[0].operator",
    ),
    (
        "invalid node field selector requirement in node affinity, invalid key",
        pod_with(
            affinity=required_node_affinity(
                matchFields=[{"key": "metadata.namespace", "operator": "In", "values": ["ns1"]}]
            )
        ),
        f"{NODE_TERM_0}.matchFields[0].key",
    ),
    (
        "invalid preferredSchedulingTerm in node affinity, weight should be in range 1-100",
        pod_with(
            affinity={
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 199,
                            "preference": {
                                "matchExpressions": [
                                    {"key": "foo", "operator": "In", "values": ["bar"]}
                                ]
                            },
                        }
                    ]
                }
            }
        ),
        "must be in the range 1-100",
    ),
    (
        "invalid requiredDuringSchedulingIgnoredDuringExecution node selector, nodeSelectorTerms "
        "must have at least one term",
        pod_with(
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}
                }
            }
        ),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms",
    ),
    (
        "invalid weight in preferredDuringSchedulingIgnoredDuringExecution in pod affinity "
        "annotations, weight should be in range 1-100",
        pod_with(
            affinity={
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 109, "podAffinityTerm": affinity_term(namespaces=["ns"])}
                    ]
                }
            }
        ),
        "must be in the range 1-100",
    ),
    (
        "invalid labelSelector in preferredDuringSchedulingIgnoredDuringExecution in "
        "podaffinity annotations, values should be empty if the operator is Exists",
        pod_with(
            affinity=pod_affinity(
                "podAntiAffinity",
                False,
                affinity_term(
                    labelSelector={
                        "matchExpressions": [
                            {"key": "key2", "operator": "Exists", "values": ["value1", "value2"]}
                        ]
                    }
                ),
            )
        ),
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm.labelSelector.matchExpressions[0].values",
    ),
    (
        "invalid namespaceSelector in preferredDuringSchedulingIgnoredDuringExecution in "
        "podaffinity, In operator must include Values",
        pod_with(
            affinity=pod_affinity(
                "podAntiAffinity",
                False,
                affinity_term(
                    labelSelector=None,
                    namespaceSelector={"matchExpressions": [{"key": "key2", "operator": "In"}]},
                ),
            )
        ),
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm.namespaceSelector.matchExpressions[0].values",
    ),
    (
        "invalid name space in preferredDuringSchedulingIgnoredDuringExecution in podaffinity "
        "annotations, namespace should be valid",
        pod_with(
            affinity=pod_affinity(
                "podAffinity", False, affinity_term(namespaces=["INVALID_NAMESPACE"])
            )
        ),
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm.namespace",
    ),
    *[
        (
            f"invalid {'hard' if hard else 'soft'} pod {kind_name}, empty topologyKey is not "
            f"allowed for {'hard' if hard else 'soft'} pod {kind_name}",
            pod_with(affinity=pod_affinity(kind, hard, affinity_term(topologyKey=""))),
            "can not be empty",
        )
        for kind, kind_name in (("podAffinity", "affinity"), ("podAntiAffinity", "anti-affinity"))
        for hard in (True, False)
    ],
    *[
        (
            f"invalid {'hard' if hard else 'soft'} pod {kind_name}, key in {field_name} isn't "
            "correctly defined",
            pod_with(affinity=pod_affinity(kind, hard, affinity_term(**{key: ["/simple"]}))),
            "prefix part must be non-empty",
        )
        for kind, kind_name in (("podAffinity", "affinity"), ("podAntiAffinity", "anti-affinity"))
        for hard in (True, False)
        for key, field_name in (
            ("matchLabelKeys", "MatchLabelKeys"),
            ("mismatchLabelKeys", "MismatchLabelKeys"),
        )
    ],
    *[
        (
            f"invalid {'hard' if hard else 'soft'} pod {kind_name}, key exists in both "
            "matchLabelKeys and labelSelector",
            pod_with(
                labels={"key": "value1"},
                affinity=pod_affinity(
                    kind, hard, affinity_term(labelSelector=TWICE, matchLabelKeys=["key"])
                ),
            ),
            "exists in both matchLabelKeys and labelSelector",
        )
        for kind, kind_name in (("podAffinity", "affinity"), ("podAntiAffinity", "anti-affinity"))
        for hard in (True, False)
    ],
    *[
        (
            f"invalid {'hard' if hard else 'soft'} pod {kind_name}, key exists in both "
            "MatchLabelKeys and MismatchLabelKeys",
            pod_with(
                labels={"key": "value1"},
                affinity=pod_affinity(
                    kind,
                    hard,
                    affinity_term(matchLabelKeys=["samekey"], mismatchLabelKeys=["samekey"]),
                ),
            ),
            "exists in both matchLabelKeys and mismatchLabelKeys",
        )
        for kind, kind_name in (("podAffinity", "affinity"), ("podAntiAffinity", "anti-affinity"))
        for hard in (True, False)
    ],
    (
        "invalid toleration key",
        pod_with(
            tolerations=[
                {
                    "key": "nospecialchars^=@",
                    "operator": "Equal",
                    "value": "bar",
                    "effect": "NoSchedule",
                }
            ]
        ),
        "spec.tolerations[0].key",
    ),
    (
        "invalid toleration operator",
        pod_with(
            tolerations=[{"key": "foo", "operator": "In", "value": "bar", "effect": "NoSchedule"}]
        ),
        "spec.tolerations[0].operator",
    ),
    (
        "value must be empty when `operator` is 'Exists'",
        pod_with(
            tolerations=[
                {"key": "foo", "operator": "Exists", "value": "bar", "effect": "NoSchedule"}
            ]
        ),
        "spec.tolerations[0].operator",
    ),
    (
        "operator must be 'Exists' when `key` is empty",
        pod_with(tolerations=[{"operator": "Equal", "value": "bar", "effect": "NoSchedule"}]),
        "spec.tolerations[0].operator",
    ),
    (
        "effect must be 'NoExecute' when `TolerationSeconds` is set",
        pod_with(
            tolerations=[
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoSchedule",
                    "tolerationSeconds": 20,
                }
            ]
        ),
        "spec.tolerations[0].effect",
    ),
    *[
        (
            f"numeric operator {operator} requires feature gate (gate disabled)",
            pod_with(
                tolerations=[
                    {
                        "key": "node.kubernetes.io/sla",
                        "operator": operator,
                        "value": "950",
                        "effect": "NoSchedule",
                    }
                ]
            ),
            f'Unsupported value: "{operator}"',
        )
        for operator in ("Lt", "Gt")
    ],
    (
        "invalid extended resource name in container request",
        pod_with(
            containers=[
                {
                    "name": "invalid",
                    "image": "image",
                    "resources": {
                        "requests": {"invalid-name": "2"},
                        "limits": {"invalid-name": "2"},
                    },
                }
            ]
        ),
        "must be a standard resource for containers",
    ),
    (
        "invalid extended resource requirement: request must be == limit",
        pod_with(
            containers=[
                {
                    "name": "invalid",
                    "image": "image",
                    "resources": {
                        "requests": {"example.com/a": "2"},
                        "limits": {"example.com/a": "1"},
                    },
                }
            ]
        ),
        "must be equal to example.com/a",
    ),
    (
        "invalid extended resource requirement without limit",
        pod_with(
            containers=[
                {
                    "name": "invalid",
                    "image": "image",
                    "resources": {"requests": {"example.com/a": "2"}},
                }
            ]
        ),
        "Limit must be set",
    ),
    *[
        (
            f"invalid fractional extended resource in {where} {which}",
            pod_with(
                **{
                    key: [
                        {
                            "name": "invalid",
                            "image": "image",
                            "resources": {
                                which + "s": {"example.com/a": "500m"},
                                **(
                                    {"limits": {"example.com/a": "5"}} if which == "request" else {}
                                ),
                            },
                        }
                    ]
                },
                **(
                    {"containers": [{"name": "ctr", "image": "image"}]}
                    if key != "containers"
                    else {}
                ),
            ),
            "must be an integer",
        )
        for key, where in (("containers", "container"), ("initContainers", "init container"))
        for which in ("request", "limit")
    ],
    (
        "final PVC name for ephemeral volume must be valid",
        pod_with(
            LONG_POD,
            volumes=[
                {"name": "pvc", "persistentVolumeClaim": {"claimName": "my-pvc"}},
                {"name": LONG_VOLUME, "ephemeral": {"volumeClaimTemplate": CLAIM_TEMPLATE}},
            ],
        ),
        f'spec.volumes[1].name: Invalid value: "{LONG_VOLUME}": PVC name '
        f'"{LONG_POD}-{LONG_VOLUME}": must be no more than 253 characters',
    ),
    (
        "PersistentVolumeClaimVolumeSource must not reference a generated PVC",
        pod_with(
            volumes=[
                {
                    "name": "pvc-volume",
                    "persistentVolumeClaim": {"claimName": "123-ephemeral-volume"},
                },
                {"name": "ephemeral-volume", "ephemeral": {"volumeClaimTemplate": CLAIM_TEMPLATE}},
            ]
        ),
        'spec.volumes[0].persistentVolumeClaim.claimName: Invalid value: "123-ephemeral-volume": '
        "must not reference a PVC that gets created for an ephemeral volume",
    ),
    (
        "invalid required node affinity, value of NodeSelectorRequirement should be a valid label "
        "value",
        pod_with(
            affinity=required_node_affinity(
                matchExpressions=[{"key": "foo", "operator": "In", "values": ["-1"]}]
            )
        ),
        f'{NODE_TERM_0}.matchExpressions[0].values[0]: Invalid value: "-1": a valid label must '
        "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
        "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ),
]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [c[1:] for c in VALIDATE_POD_ERROR_CASES],
    ids=[c[0] for c in VALIDATE_POD_ERROR_CASES],
)
def test_validate_pod_error_cases(manifest, expected):
    with pytest.raises(InvalidObjectError) as raised:
        parse_new_object(manifest)
    assert expected in str(raised.value)
