"""ReplicaSet, StatefulSet and ReplicationController validation as kube-apiserver's
``ValidateReplicaSet`` / ``ValidateStatefulSet`` / ``ValidateReplicationController``: cases
from upstream's TestValidateReplicaSet, TestValidateStatefulSet and
TestValidateReplicationController tables (named as there), with upstream's paths and
messages, on manifests as kubectl sends them (so defaults apply first)."""

from __future__ import annotations

import copy

import pytest

from framework.api.errors import InvalidObjectError
from framework.api.loader import parse_new_object
from framework.api.validation.objects import validate_manifest

LABELS = {"a": "b"}
BAD_KEY = "NoUppercaseOrSpecialCharsLike=Equals"
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
MISMATCH = (
    "spec.template.metadata.labels: Invalid value: {0}: `selector` does not match template `labels`"
)


def workload(kind: str, **spec) -> dict:
    selector: object = {"matchLabels": LABELS}
    if kind == "ReplicationController":
        selector = dict(LABELS)
    return {
        "kind": kind,
        "metadata": {"name": "abc", "namespace": "default"},
        "spec": {
            "selector": selector,
            "template": {
                "metadata": {"labels": dict(LABELS)},
                "spec": {"containers": [{"name": "abc", "image": "image"}]},
            },
            **spec,
        },
    }


def errors(manifest: dict) -> list[str]:
    return [str(e) for e in validate_manifest(manifest["kind"], True, manifest)]


def edited(manifest: dict, edit) -> dict:
    manifest = copy.deepcopy(manifest)
    edit(manifest)
    return manifest


def template_spec(**fields):
    return lambda m: m["spec"]["template"]["spec"].update(fields)


def set_spec(**fields):
    return lambda m: m["spec"].update(fields)


def drop_spec(key):
    return lambda m: m["spec"].pop(key)


def both(*edits):
    def apply(manifest):
        for edit in edits:
            edit(manifest)

    return apply


# -- ReplicaSet (TestValidateReplicaSet) ---------------------------------------------------------

RS = workload("ReplicaSet")
REPLICA_SET_CASES = [
    ("abc", lambda m: None, []),
    ("abc-123", lambda m: m["metadata"].update(name="abc-123"), []),
    (
        "hostnet",
        template_spec(
            hostNetwork=True,
            containers=[{"name": "abc", "image": "i", "ports": [{"containerPort": 12345}]}],
        ),
        [],
    ),
    (
        "zero-length ID",
        lambda m: m["metadata"].update(name=""),
        ["metadata.name: Required value: name or generateName is required"],
    ),
    (
        "empty selector",
        drop_spec("selector"),
        ["spec.selector: Required value", MISMATCH.format('{"a":"b"}')],
    ),
    (
        "selector_doesnt_match",
        set_spec(selector={"matchLabels": {"foo": "bar"}}),
        [MISMATCH.format('{"a":"b"}')],
    ),
    (
        "invalid manifest",
        drop_spec("template"),
        [MISMATCH.format("null"), "spec.template.spec.containers: Required value"],
    ),
    (
        "negative_replicas",
        set_spec(replicas=-1),
        ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "invalid_label",
        lambda m: m["metadata"].update(labels={BAD_KEY: "bar"}),
        [f'metadata.labels: Invalid value: "{BAD_KEY}": {NAME_PART}'],
    ),
    (
        "invalid_annotation",
        lambda m: m["metadata"].update(annotations={BAD_KEY: "bar"}),
        [f'metadata.annotations: Invalid value: "{BAD_KEY}": {NAME_PART}'],
    ),
    (
        "invalid restart policy 1",
        template_spec(restartPolicy="OnFailure"),
        [
            'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: '
            '"Always"'
        ],
    ),
    (
        "invalid restart policy 2",
        template_spec(restartPolicy="Never"),
        [
            'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: '
            '"Always"'
        ],
    ),
    (
        "an empty selector is invalid for a ReplicaSet",
        set_spec(selector={}),
        ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
    ),
    (
        "a selector that does not parse",
        set_spec(selector={"matchExpressions": [{"key": "a", "operator": "Is", "values": ["b"]}]}),
        [
            'spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid '
            "selector operator",
            'spec.selector: Invalid value: {"matchExpressions":[{"key":"a","operator":"Is",'
            '"values":["b"]}]}: invalid label selector',
        ],
    ),
    (
        "a template with invalid labels is reported at spec.template.labels",
        lambda m: m["spec"]["template"]["metadata"]["labels"].update({BAD_KEY: "b"}),
        [f'spec.template.labels: Invalid value: "{BAD_KEY}": {NAME_PART}'],
    ),
    (
        "the template's containers are validated at their path",
        template_spec(
            containers=[{"name": "abc", "image": "i", "resources": {"requests": {"cpu": "-1"}}}]
        ),
        [
            'spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must '
            "be greater than or equal to 0"
        ],
    ),
    (
        "set active deadline seconds",
        template_spec(activeDeadlineSeconds=30),
        [
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
            "ReplicaSet is not Supported"
        ],
    ),
    (
        "a template's pod annotations are checked at its path",
        lambda m: m["spec"]["template"]["metadata"].update(
            annotations={"controller.kubernetes.io/pod-deletion-cost": "x"}
        ),
        [
            "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid "
            'value: "x": must be a 32bit integer'
        ],
    ),
    (
        "a template's AppArmor annotation must agree with the pod's profile",
        both(
            lambda m: m["spec"]["template"]["metadata"].update(
                annotations={"container.apparmor.security.beta.kubernetes.io/abc": "unconfined"}
            ),
            template_spec(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}}),
        ),
        [
            "spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: "
            "apparmor type in annotation and field must match"
        ],
    ),
    (
        "ephemeral containers are not allowed in a template",
        template_spec(ephemeralContainers=[{"name": "debug", "image": "busybox"}]),
        [
            "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed "
            "in pod template"
        ],
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [c[1:] for c in REPLICA_SET_CASES],
    ids=[c[0] for c in REPLICA_SET_CASES],
)
def test_replica_set_validation(edit, expected):
    assert errors(edited(RS, edit)) == expected


def test_a_template_does_not_merge_match_label_keys_as_a_pod_does():
    """The pod strategy merges matchLabelKeys into a pod's selectors, where a key also in the
    selector then conflicts; a template's selectors stay as written."""
    constraint = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
        "matchLabelKeys": ["a"],
    }
    manifest = edited(RS, template_spec(topologySpreadConstraints=[constraint]))
    assert errors(manifest) == []
    pod = {"kind": "Pod", **manifest["spec"]["template"]}
    pod["metadata"] = {**pod["metadata"], "name": "web"}
    assert errors(pod) == [
        'spec.topologySpreadConstraints[0][0]: Invalid value: "a": exists in both '
        "matchLabelKeys and labelSelector"
    ]


# -- StatefulSet (TestValidateStatefulSet) -------------------------------------------------------

SS = workload("StatefulSet")
PVC = {
    "metadata": {"name": "test"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}
MOUNT_TEST = template_spec(
    containers=[
        {"name": "abc", "image": "i", "volumeMounts": [{"name": "test", "mountPath": "/data"}]}
    ]
)


STATEFUL_SET_CASES = [
    ("alpha name", lambda m: None, []),
    ("parallel pod management", set_spec(podManagementPolicy="Parallel"), []),
    (
        "update strategy",
        set_spec(
            replicas=3, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}
        ),
        [],
    ),
    (
        "PVC policy",
        set_spec(
            persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"}
        ),
        [],
    ),
    ("ordinals.start positive value", set_spec(replicas=3, ordinals={"start": 2}), []),
    ("invalid subdomain", template_spec(subdomain=BAD_KEY), []),
    ("both invalid subdomain and hostname", template_spec(subdomain=BAD_KEY, hostname=BAD_KEY), []),
    (
        "volume template in pod volumeMounts",
        both(MOUNT_TEST, set_spec(volumeClaimTemplates=[PVC])),
        [],
    ),
    (
        "name-with-dots",
        lambda m: m["metadata"].update(name="abc.123"),
        ['metadata.name: Invalid value: "abc.123": must not contain dots'],
    ),
    (
        "long name",
        lambda m: m["metadata"].update(name="a" * 64),
        [f'metadata.name: Invalid value: "{"a" * 64}": must be no more than 63 characters'],
    ),
    (
        "empty selector",
        drop_spec("selector"),
        ["spec.selector: Required value", MISMATCH.format('{"a":"b"}')],
    ),
    (
        "negative_replicas",
        set_spec(replicas=-1),
        ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "invalid_label 2",
        both(
            lambda m: m["spec"]["template"]["metadata"].update(labels={BAD_KEY: "b"}),
            set_spec(selector={"matchLabels": {BAD_KEY: "b"}}),
        ),
        [
            f'spec.selector.matchLabels: Invalid value: "{BAD_KEY}": {NAME_PART}',
            f'spec.selector: Invalid value: {{"matchLabels":{{"{BAD_KEY}":"b"}}}}',
        ],
    ),
    (
        "invalid restart policy 1",
        template_spec(restartPolicy="OnFailure"),
        [
            'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: '
            '"Always"'
        ],
    ),
    (
        "invalid update strategy",
        set_spec(replicas=3, updateStrategy={"type": "foo"}),
        [
            'spec.updateStrategy: Invalid value: {"Type":"foo","RollingUpdate":null}: must be '
            "'RollingUpdate' or 'OnDelete'"
        ],
    ),
    (
        "invalid rolling update",
        set_spec(updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 1}}),
        [
            'spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":'
            "null}: only allowed for updateStrategy 'RollingUpdate'"
        ],
    ),
    (
        "negative parition",
        set_spec(updateStrategy={"rollingUpdate": {"partition": -1}}),
        [
            "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than "
            "or equal to 0"
        ],
    ),
    (
        "invalid pod management policy",
        set_spec(podManagementPolicy="foo"),
        ["spec.podManagementPolicy: Invalid value: \"foo\": must be 'OrderedReady' or 'Parallel'"],
    ),
    (
        "set active deadline seconds",
        template_spec(activeDeadlineSeconds=1, containers=[]),
        [
            "spec.template.spec.containers: Required value",
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
            "StatefulSet is not Supported",
        ],
    ),
    (
        "invalid PersistentVolumeClaimRetentionPolicy",
        set_spec(persistentVolumeClaimRetentionPolicy={"whenDeleted": "x", "whenScaled": "y"}),
        [
            'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "x": '
            'supported values: "Retain", "Delete"',
            'spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "y": '
            'supported values: "Retain", "Delete"',
        ],
    ),
    (
        "invalid ordinals.start",
        set_spec(replicas=3, ordinals={"start": -2}),
        ["spec.ordinals.start: Invalid value: -2: must be greater than or equal to 0"],
    ),
    (
        "invalid service name",
        set_spec(serviceName="Invalid.Name"),
        [f'spec.serviceName: Invalid value: "Invalid.Name": {DNS_LABEL}'],
    ),
    (
        "missing volume in pod volumeMounts",
        MOUNT_TEST,
        ['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "test"'],
    ),
    (
        "want test volumeMount but have test1 volumeTemplate",
        both(MOUNT_TEST, set_spec(volumeClaimTemplates=[{**PVC, "metadata": {"name": "test1"}}])),
        ['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "test"'],
    ),
    (
        "duplicate volumes",
        template_spec(
            volumes=[{"name": "test1", "emptyDir": {}}, {"name": "test1", "emptyDir": {}}]
        ),
        ['spec.template.spec.volumes[1].name: Duplicate value: "test1"'],
    ),
    (
        "invalid volumeClaimTemplates with no accessModes",
        set_spec(volumeClaimTemplates=[{**PVC, "spec": {"resources": PVC["spec"]["resources"]}}]),
        [
            "spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode "
            "is required"
        ],
    ),
    (
        "template labels are checked twice, reported once",
        lambda m: m["spec"]["template"]["metadata"]["labels"].update({BAD_KEY: "b"}),
        [f'spec.template.labels: Invalid value: "{BAD_KEY}": {NAME_PART}'] * 2,
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [c[1:] for c in STATEFUL_SET_CASES],
    ids=[c[0] for c in STATEFUL_SET_CASES],
)
def test_stateful_set_validation(edit, expected):
    assert errors(edited(SS, edit)) == expected


# -- ReplicationController (TestValidateReplicationController) -----------------------------------

RC = workload("ReplicationController", replicas=1)
RC_CASES = [
    ("valid", lambda m: None, []),
    ("the selector defaults to the template's labels", drop_spec("selector"), []),
    (
        "zero-length ID",
        lambda m: m["metadata"].update(name=""),
        ["metadata.name: Required value: name or generateName is required"],
    ),
    (
        "empty selector",
        both(drop_spec("selector"), lambda m: m["spec"]["template"]["metadata"].pop("labels")),
        ["spec.selector: Required value"],
    ),
    (
        "selector_doesnt_match",
        set_spec(selector={"foo": "bar"}),
        [MISMATCH.format('{"a":"b"}')],
    ),
    ("invalid manifest", drop_spec("template"), ["spec.template: Required value"]),
    (
        "negative_replicas",
        set_spec(replicas=-1),
        ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "invalid restart policy 1",
        template_spec(restartPolicy="OnFailure"),
        [
            'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: '
            '"Always"'
        ],
    ),
    (
        "activeDeadlineSeconds",
        template_spec(activeDeadlineSeconds=30),
        [
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
            "ReplicationController is not Supported"
        ],
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"), [c[1:] for c in RC_CASES], ids=[c[0] for c in RC_CASES]
)
def test_replication_controller_validation(edit, expected):
    assert errors(edited(RC, edit)) == expected


def test_the_loader_refuses_an_invalid_workload_with_every_problem():
    manifest = edited(RS, both(set_spec(replicas=-1), template_spec(restartPolicy="Never")))
    manifest["apiVersion"] = "apps/v1"
    with pytest.raises(InvalidObjectError) as refused:
        parse_new_object(manifest)
    assert str(refused.value) == (
        'ReplicaSet "default/abc" is invalid: [spec.replicas: Invalid value: -1: must be greater '
        'than or equal to 0, spec.template.spec.restartPolicy: Unsupported value: "Never": '
        'supported values: "Always"]'
    )
