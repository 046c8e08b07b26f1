"""A pod's container fields, security contexts and DNS settings validated as kube-apiserver's
``ValidatePodSpec`` validates them: cases from upstream's TestValidateEnv,
TestValidateEnvFrom, TestValidateVolumeMounts, TestValidateProbe, TestValidateHandler,
TestValidatePullPolicy, TestValidateSecurityContext, TestValidatePodDNSConfig and
TestValidatePodSpec (named as there), with upstream's paths and messages, on manifests as
kubectl sends them (so defaults apply first: a probe's zero period is 10, an HTTP probe's
empty path is ``/``)."""

from __future__ import annotations

import copy

import pytest

from framework.api.validation.pod import validate_pod

BASE = {
    "metadata": {"name": "web"},
    "spec": {
        "volumes": [{"name": "abc", "persistentVolumeClaim": {"claimName": "c"}}, {"name": "123"}],
        "containers": [{"name": "c", "image": "nginx"}],
    },
}
C = "spec.containers[0]"
NOT_PRINTABLE = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)
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
ENV_FIELD_PATHS = (
    '"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", '
    '"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", '
    '"status.podIPs"'
)


def errors_of(edit) -> list[str]:
    manifest = copy.deepcopy(BASE)
    edit(manifest)
    return [str(e) for e in validate_pod(manifest)]


def container(**fields):
    return lambda m: m["spec"]["containers"][0].update(fields)


def spec(**fields):
    return lambda m: m["spec"].update(fields)


def env(*variables):
    return container(env=list(variables))


def annotate(**annotations):
    return lambda m: m["metadata"].update(annotations=annotations)


def downward_file(**fields):
    item = {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}, **fields}
    item = {key: value for key, value in item.items() if value is not None}
    return lambda m: m["spec"]["volumes"].append({"name": "info", "downwardAPI": {"items": [item]}})


def projected(*sources):
    volume = {"name": "sa", "projected": {"sources": list(sources)}}
    return lambda m: m["spec"]["volumes"].append(volume)


TOKEN = {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}
CA = {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}
NAMESPACE = {
    "downwardAPI": {
        "items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]
    }
}


def field_ref(path, name="abc"):
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def mounts(*items, **fields):
    return container(volumeMounts=list(items), **fields)


def probe(kind="livenessProbe", **fields):
    return container(**{kind: {"exec": {"command": ["echo"]}, **fields}})


def handler(**fields):
    return container(readinessProbe=fields)


CASES = [
    # TestValidateEnv
    ("valid environment", env({"name": "abc", "value": "v"}, {"name": "a.b.c"}), []),
    (
        "relaxed names: any printable ASCII but '='",
        env({"name": "!\"#$%&'()"}, {"name": "* +,-./0123456789"}, {"name": "[\\]^_`{}|~"}),
        [],
    ),
    ("annotation and label field refs", env(field_ref("metadata.annotations['key']")), []),
    ("zero-length name", env({"name": ""}), [f"{C}.env[0].name: Required value"]),
    (
        "invalid name d",
        env({"name": "a=b"}),
        [f'{C}.env[0].name: Invalid value: "a=b": {NOT_PRINTABLE}'],
    ),
    (
        "value and valueFrom specified",
        env({**field_ref("metadata.name"), "value": "foo"}),
        [
            f'{C}.env[0].valueFrom: Invalid value: "": may not be specified when `value` is not '
            "empty"
        ],
    ),
    (
        "valueFrom without a source",
        env({"name": "abc", "valueFrom": {}}),
        [
            f'{C}.env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, '
            "`resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"
        ],
    ),
    (
        "valueFrom.fieldRef and valueFrom.secretKeyRef specified",
        env(
            {
                "name": "abc",
                "valueFrom": {
                    "fieldRef": {"fieldPath": "metadata.name"},
                    "secretKeyRef": {"name": "a-secret", "key": "a-key"},
                },
            }
        ),
        [
            f'{C}.env[0].valueFrom: Invalid value: "": may not have more than one field '
            "specified at a time"
        ],
    ),
    (
        "valueFrom.secretKeyRef.name invalid",
        env({"name": "abc", "valueFrom": {"secretKeyRef": {"name": "$%^&*#", "key": "a-key"}}}),
        [f'{C}.env[0].valueFrom.secretKeyRef.name: Invalid value: "$%^&*#": {SUBDOMAIN}'],
    ),
    (
        "missing FieldPath on ObjectFieldSelector",
        env({"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1"}}}),
        [f"{C}.env[0].valueFrom.fieldRef.fieldPath: Required value"],
    ),
    (
        "invalid fieldPath",
        env(field_ref("metadata.whoops")),
        [
            f'{C}.env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.whoops": error '
            "converting fieldPath: field label not supported: metadata.whoops"
        ],
    ),
    (
        "metadata.name with subscript",
        env(field_ref("metadata.name['key']")),
        [
            f"{C}.env[0].valueFrom.fieldRef.fieldPath: Invalid value: \"metadata.name['key']\": "
            "error converting fieldPath: field label does not support subscript: "
            "metadata.name['key']"
        ],
    ),
    (
        "metadata.labels without subscript",
        env(field_ref("metadata.labels")),
        [
            f'{C}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": '
            f"supported values: {ENV_FIELD_PATHS}"
        ],
    ),
    (
        "metadata.labels with invalid key",
        env(field_ref("metadata.labels['Www.k8s.io/test']")),
        [
            f'{C}.env[0].valueFrom.fieldRef: Invalid value: "Www.k8s.io/test": prefix part '
            f"{SUBDOMAIN}"
        ],
    ),
    (
        "unsupported fieldPath",
        env(field_ref("status.phase")),
        [
            f'{C}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": '
            f"supported values: {ENV_FIELD_PATHS}"
        ],
    ),
    (
        "an unsupported resource field",
        env({"name": "abc", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}}),
        [
            f'{C}.env[0].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": '
            'supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", '
            '"requests.cpu", "requests.ephemeral-storage", "requests.memory"'
        ],
    ),
    (
        "a cpu divisor of 2",
        env(
            {
                "name": "abc",
                "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "2"}},
            }
        ),
        [
            f'{C}.env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only '
            "divisor's values 1m and 1 are supported with the cpu resource"
        ],
    ),
    # TestValidateEnvFrom
    ("valid envFrom", container(envFrom=[{"prefix": "pre_", "configMapRef": {"name": "abc"}}]), []),
    (
        "zero-length name",
        container(envFrom=[{"configMapRef": {"name": ""}}]),
        [f"{C}.envFrom[0].configMapRef.name: Required value"],
    ),
    (
        "no refs",
        container(envFrom=[{"prefix": "a"}]),
        [f'{C}.envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`'],
    ),
    (
        "multiple refs",
        container(envFrom=[{"configMapRef": {"name": "a"}, "secretRef": {"name": "b"}}]),
        [f'{C}.envFrom: Invalid value: "": may not have more than one field specified at a time'],
    ),
    # TestValidateVolumeMounts
    (
        "valid mounts",
        mounts(
            {"name": "abc", "mountPath": "/foo"},
            {"name": "123", "mountPath": "/bar", "subPath": "..baz"},
            {"name": "123", "mountPath": "/rro", "readOnly": True, "recursiveReadOnly": "Enabled"},
        ),
        [],
    ),
    (
        "empty name",
        mounts({"name": "", "mountPath": "/foo"}),
        [f"{C}.volumeMounts[0].name: Required value", f'{C}.volumeMounts[0].name: Not found: ""'],
    ),
    (
        "empty mountpath",
        mounts({"name": "abc"}),
        [f"{C}.volumeMounts[0].mountPath: Required value"],
    ),
    (
        "mountpath collision",
        mounts({"name": "abc", "mountPath": "/path/a"}, {"name": "123", "mountPath": "/path/a"}),
        [f'{C}.volumeMounts[1].mountPath: Invalid value: "/path/a": must be unique'],
    ),
    (
        "absolute subpath",
        mounts({"name": "abc", "mountPath": "/bar", "subPath": "/baz"}),
        [f'{C}.volumeMounts.subPath: Invalid value: "/baz": must be a relative path'],
    ),
    (
        "subpath contains ..",
        mounts({"name": "abc", "mountPath": "/bar", "subPath": "baz/../bat"}),
        [f"{C}.volumeMounts.subPath: Invalid value: \"baz/../bat\": must not contain '..'"],
    ),
    (
        "disabled MountPropagation feature gate",
        mounts({"name": "abc", "mountPath": "/bar", "mountPropagation": "Bidirectional"}),
        [
            f"{C}.volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is "
            "available only to privileged containers"
        ],
    ),
    (
        "name exists in volumeDevice",
        mounts(
            {"name": "abc", "mountPath": "/bar"},
            volumeDevices=[{"name": "abc", "devicePath": "/dev/x"}],
        ),
        [
            f'{C}.volumeMounts[0].name: Invalid value: "abc": must not already exist in '
            "volumeDevices",
            f'{C}.volumeDevices[0].name: Invalid value: "abc": must not already exist in '
            "volumeMounts",
        ],
    ),
    # TestValidateVolumeDevices
    (
        "a claim's block device",
        container(volumeDevices=[{"name": "abc", "devicePath": "/dev/xvda"}]),
        [],
    ),
    (
        "a device of a volume that is not a claim",
        container(volumeDevices=[{"name": "123", "devicePath": "/dev/xvda"}]),
        [
            f'{C}.volumeDevices[0].name: Invalid value: "123": can only use volume source type of '
            "PersistentVolumeClaim or Ephemeral for block mode"
        ],
    ),
    (
        "a device path with backsteps",
        container(volumeDevices=[{"name": "abc", "devicePath": "/dev/../xvda"}]),
        [
            f'{C}.volumeDevices[0].devicePath: Invalid value: "/dev/../xvda": can not contain '
            "backsteps ('..')"
        ],
    ),
    (
        "an unknown device volume",
        container(volumeDevices=[{"name": "xyz", "devicePath": "/dev/xvda"}]),
        [f'{C}.volumeDevices[0].name: Not found: "xyz"'],
    ),
    # resize policies (TestValidateResizePolicy)
    (
        "valid resize policies",
        container(
            resizePolicy=[
                {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                {"resourceName": "memory", "restartPolicy": "RestartContainer"},
            ]
        ),
        [],
    ),
    (
        "a repeated and an unknown resize resource",
        container(
            resizePolicy=[
                {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                {"resourceName": "gpu", "restartPolicy": "NotRequired"},
            ]
        ),
        [
            f'{C}.resizePolicy[1]: Duplicate value: "cpu"',
            f'{C}.resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"',
        ],
    ),
    (
        "restarting to resize in a pod that never restarts",
        lambda m: (
            spec(restartPolicy="Never")(m),
            container(resizePolicy=[{"resourceName": "cpu", "restartPolicy": "RestartContainer"}])(
                m
            ),
        ),
        [
            f"{C}.resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when "
            "pod `restartPolicy` is 'Never'"
        ],
    ),
    (
        "rro but not ro",
        mounts({"name": "123", "mountPath": "/rro", "recursiveReadOnly": "Enabled"}),
        [
            f"{C}.volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly "
            "is true"
        ],
    ),
    (
        "a mount of a volume that failed validation is not found",
        lambda m: (
            m["spec"]["volumes"].append({"name": "Bad"}),
            container(volumeMounts=[{"name": "Bad", "mountPath": "/x"}])(m),
        ),
        [
            f'spec.volumes[2].name: Invalid value: "Bad": {DNS_LABEL}',
            f'{C}.volumeMounts[0].name: Not found: "Bad"',
        ],
    ),
    # TestValidateProbe, TestValidateHandler
    ("a probe with defaulted periods", probe(periodSeconds=0, timeoutSeconds=0), []),
    (
        "negative probe fields",
        probe(initialDelaySeconds=-10, periodSeconds=-10, failureThreshold=-10),
        [
            f"{C}.livenessProbe.initialDelaySeconds: Invalid value: -10: must be greater than or "
            "equal to 0",
            f"{C}.livenessProbe.periodSeconds: Invalid value: -10: must be greater than or equal "
            "to 0",
            f"{C}.livenessProbe.failureThreshold: Invalid value: -10: must be greater than or "
            "equal to 0",
        ],
    ),
    (
        "a liveness probe's success threshold must be 1",
        probe(successThreshold=2),
        [f"{C}.livenessProbe.successThreshold: Invalid value: 2: must be 1"],
    ),
    (
        "a readiness probe's success threshold may be more",
        probe("readinessProbe", successThreshold=3),
        [],
    ),
    (
        "a readiness probe has no grace period",
        probe("readinessProbe", terminationGracePeriodSeconds=10),
        [
            f"{C}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 10: must not be "
            "set for readinessProbes"
        ],
    ),
    (
        "empty handler",
        handler(),
        [f"{C}.readinessProbe: Required value: must specify a handler type"],
    ),
    (
        "exec without a command",
        handler(exec={"command": []}),
        [f"{C}.readinessProbe.exec.command: Required value"],
    ),
    ("an HTTP probe with a defaulted path", handler(httpGet={"port": "port"}), []),
    (
        "an HTTP probe on port 65536",
        handler(httpGet={"path": "/foo", "port": 65536}),
        [
            f"{C}.readinessProbe.httpGet.port: Invalid value: 65536: must be between 1 and 65535, "
            "inclusive"
        ],
    ),
    (
        "an invalid header name",
        handler(httpGet={"port": 80, "httpHeaders": [{"name": "X_Forwarded_For", "value": "x"}]}),
        [
            f'{C}.readinessProbe.httpGet.httpHeaders: Invalid value: "X_Forwarded_For": a valid '
            "HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', "
            "regex used for validation is '[-A-Za-z0-9]+')"
        ],
    ),
    (
        "two handlers",
        handler(exec={"command": ["a"]}, tcpSocket={"port": 80}),
        [f"{C}.readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"],
    ),
    (
        "a sleep longer than the grace period",
        container(lifecycle={"preStop": {"sleep": {"seconds": 31}}}),
        [
            f"{C}.lifecycle.preStop.sleep: Invalid value: 31: must be non-negative and less than "
            "terminationGracePeriodSeconds (30)"
        ],
    ),
    ("a zero sleep", container(lifecycle={"preStop": {"sleep": {"seconds": 0}}}), []),
    (
        "a sleep within the pod's own grace period",
        lambda m: (
            spec(terminationGracePeriodSeconds=60)(m),
            container(lifecycle={"preStop": {"sleep": {"seconds": 45}}})(m),
        ),
        [],
    ),
    # A negative grace period only draws a warning upstream.
    ("a negative termination grace period", spec(terminationGracePeriodSeconds=-1), []),
    # TestValidatePullPolicy, termination message policy
    ("Never1", container(imagePullPolicy="Never"), []),
    (
        "an unknown pull policy",
        container(imagePullPolicy="Sometimes"),
        [
            f'{C}.imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
            '"IfNotPresent", "Never"'
        ],
    ),
    (
        "an unknown termination message policy",
        container(terminationMessagePolicy="Log"),
        [
            f'{C}.terminationMessagePolicy: Unsupported value: "Log": supported values: "File", '
            '"FallbackToLogsOnError"'
        ],
    ),
    # TestValidateSecurityContext
    (
        "all settings",
        container(
            securityContext={
                "privileged": False,
                "capabilities": {"add": ["foo"], "drop": ["bar"]},
                "seLinuxOptions": {"user": "user", "role": "role", "type": "type", "level": "l"},
                "runAsUser": 1,
                "procMount": "Default",
            }
        ),
        [],
    ),
    (
        "negative RunAsUser",
        container(securityContext={"runAsUser": -1}),
        [
            f"{C}.securityContext.runAsUser: Invalid value: -1: must be between 0 and "
            "2147483647, inclusive"
        ],
    ),
    (
        "with CAP_SYS_ADMIN and allowPrivilegeEscalation false",
        container(
            securityContext={
                "allowPrivilegeEscalation": False,
                "capabilities": {"add": ["CAP_SYS_ADMIN"]},
            }
        ),
        [
            f'{C}.securityContext: Invalid value: {{"Capabilities":{{"Add":["CAP_SYS_ADMIN"],'
            '"Drop":null},"Privileged":null,"SELinuxOptions":null,"WindowsOptions":null,'
            '"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":'
            'null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,'
            '"AppArmorProfile":null}: cannot set `allowPrivilegeEscalation` to false and '
            "`capabilities.Add` CAP_SYS_ADMIN"
        ],
    ),
    (
        "with privileged and allowPrivilegeEscalation false",
        container(securityContext={"allowPrivilegeEscalation": False, "privileged": True}),
        [
            f'{C}.securityContext: Invalid value: {{"Capabilities":null,"Privileged":true,'
            '"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,'
            '"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,'
            '"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set '
            "`allowPrivilegeEscalation` to false and `privileged` to true"
        ],
    ),
    (
        "proc mount unmasked while sharing the host's users",
        container(securityContext={"procMount": "Unmasked"}),
        [
            f'{C}.securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be '
            "false to use `Unmasked`"
        ],
    ),
    (
        "proc mount unmasked",
        lambda m: (
            spec(hostUsers=False)(m),
            container(securityContext={"procMount": "Unmasked"})(m),
        ),
        [],
    ),
    (
        "a Localhost seccomp profile without its path",
        container(securityContext={"seccompProfile": {"type": "Localhost"}}),
        [
            f"{C}.securityContext.seccompProfile.localhostProfile: Required value: must be set "
            "when seccomp type is Localhost"
        ],
    ),
    (
        "a local seccomp profile with another type",
        container(
            securityContext={"seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "p"}}
        ),
        [
            f"{C}.securityContext.seccompProfile.localhostProfile: Invalid value: "
            '{"Type":"RuntimeDefault","LocalhostProfile":"p"}: can only be set when seccomp type '
            "is Localhost"
        ],
    ),
    (
        "an unknown AppArmor profile type",
        container(securityContext={"appArmorProfile": {"type": "Strict"}}),
        [
            f'{C}.securityContext.appArmorProfile.type: Unsupported value: "Strict": supported '
            'values: "Localhost", "RuntimeDefault", "Unconfined"'
        ],
    ),
    # the pod's security context (TestValidatePodSpec)
    (
        "bad supplementalGroups large",
        spec(securityContext={"supplementalGroups": [2147483648]}),
        [
            "spec.securityContext.supplementalGroups[0]: Invalid value: 2147483648: must be "
            "between 0 and 2147483647, inclusive"
        ],
    ),
    (
        "bad fsGroup negative",
        spec(securityContext={"fsGroup": -1}),
        [
            "spec.securityContext.fsGroup: Invalid value: -1: must be between 0 and 2147483647, "
            "inclusive"
        ],
    ),
    (
        "ShareProcessNamespace and HostPID both set",
        spec(shareProcessNamespace=True, hostPID=True),
        [
            "spec.securityContext.shareProcessNamespace: Invalid value: true: "
            "ShareProcessNamespace "
            "and HostPID cannot both be enabled"
        ],
    ),
    (
        "a network sysctl on the host's network",
        lambda m: spec(
            hostNetwork=True,
            securityContext={"sysctls": [{"name": "net.ipv4.ip_forward", "value": "1"}]},
        )(m),
        [
            'spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_forward": may not '
            "be specified when 'hostNetwork' is true"
        ],
    ),
    (
        "hostUsers false on the host's network, as with UserNamespacesHostNetworkSupport on",
        spec(hostUsers=False, hostNetwork=True),
        [],
    ),
    (
        "hostUsers false with the host's PID namespace",
        spec(hostUsers=False, hostPID=True),
        ["spec.HostPID: Forbidden: when `hostUsers` is false"],
    ),
    # DNS (TestValidateDNSPolicy, TestValidatePodDNSConfig)
    (
        "an unknown DNS policy",
        spec(dnsPolicy="Cluster"),
        [
            'spec.dnsPolicy: Unsupported value: "Cluster": supported values: '
            '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'
        ],
    ),
    (
        "dnsPolicy None without dnsConfig",
        spec(dnsPolicy="None"),
        ["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"],
    ),
    (
        "invalid: DNSNone with 0 nameserver",
        spec(dnsPolicy="None", dnsConfig={"searches": ["custom"]}),
        [
            "spec.dnsConfig.nameservers: Required value: must provide at least one DNS "
            "nameserver when `dnsPolicy` is None"
        ],
    ),
    (
        "valid: 3 nameservers and 6 search paths(relaxed)",
        spec(
            dnsConfig={
                "nameservers": ["127.0.0.1", "10.0.0.10", "8.8.8.8"],
                "searches": ["custom", "_sip._tcp.abc_d.example.com", "."],
                "options": [{"name": "ndots", "value": "2"}],
            }
        ),
        [],
    ),
    (
        "invalid: 4 nameservers",
        spec(dnsConfig={"nameservers": ["127.0.0.1", "10.0.0.10", "8.8.8.8", "1.2.3.4"]}),
        [
            'spec.dnsConfig.nameservers: Invalid value: ["127.0.0.1","10.0.0.10","8.8.8.8",'
            '"1.2.3.4"]: must not have more than 3 nameservers'
        ],
    ),
    (
        "invalid: invalid nameserver",
        spec(dnsConfig={"nameservers": ["invalid"]}),
        [
            'spec.dnsConfig.nameservers[0]: Invalid value: "invalid": must be a valid IP '
            "address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
        ],
    ),
    (
        "invalid: empty option name",
        spec(dnsConfig={"options": [{"value": "2"}]}),
        ["spec.dnsConfig.options[0]: Required value: must not be empty"],
    ),
    # TestValidateVolumes
    (
        "more than one source",
        spec(volumes=[{"name": "dups", "emptyDir": {}, "hostPath": {"path": "/mnt/path"}}]),
        ["spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"],
    ),
    (
        "default HostPath",
        spec(volumes=[{"name": "hostpath", "hostPath": {"path": "/mnt/path"}}]),
        [],
    ),
    (
        "invalid HostPath",
        spec(volumes=[{"name": "hostpath", "hostPath": {"path": "/mnt/path", "type": "invalid"}}]),
        [
            'spec.volumes[0].hostPath.type: Unsupported value: "invalid": supported values: "", '
            '"BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", '
            '"FileOrCreate", "Socket"'
        ],
    ),
    (
        "invalid HostPath backsteps",
        spec(volumes=[{"name": "hostpath", "hostPath": {"path": "/mnt/path/.."}}]),
        ["spec.volumes[0].hostPath.path: Invalid value: \"/mnt/path/..\": must not contain '..'"],
    ),
    (
        "secret with leading ..",
        spec(
            volumes=[
                {
                    "name": "secret",
                    "secret": {"secretName": "s", "items": [{"key": "key", "path": "../foo"}]},
                }
            ]
        ),
        ["spec.volumes[0].secret.items[0].path: Invalid value: \"../foo\": must not contain '..'"],
    ),
    (
        "secret with missing path",
        spec(
            volumes=[{"name": "secret", "secret": {"secretName": "s", "items": [{"key": "key"}]}}]
        ),
        ["spec.volumes[0].secret.items[0].path: Required value"],
    ),
    (
        "configmap with invalid positive defaultMode",
        spec(volumes=[{"name": "cfgmap", "configMap": {"name": "c", "defaultMode": 0o1000}}]),
        [
            "spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between "
            "0 and 0777 (octal), both inclusive"
        ],
    ),
    (
        "a secret volume without its secret's name",
        spec(volumes=[{"name": "secret", "secret": {}}]),
        ["spec.volumes[0].secret.secretName: Required value"],
    ),
    (
        "an NFS volume with a relative path",
        spec(volumes=[{"name": "nfs", "nfs": {"server": "s", "path": "data"}}]),
        ['spec.volumes[0].nfs.path: Invalid value: "data": must be an absolute path'],
    ),
    (
        "a negative emptyDir size limit",
        spec(volumes=[{"name": "scratch", "emptyDir": {"sizeLimit": "-1Gi"}}]),
        [
            "spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid "
            "resource quantity"
        ],
    ),
    (
        "a CSI volume without a driver",
        spec(volumes=[{"name": "inline", "csi": {}}]),
        ["spec.volumes[0].csi.driver: Required value"],
    ),
    # pod-specific annotations (TestValidatePodSpecificAnnotations)
    (
        "a mirror pod without its node",
        annotate(**{"kubernetes.io/config.mirror": "m"}),
        [
            'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "m": must set '
            "spec.nodeName if mirror pod annotation is set"
        ],
    ),
    (
        "a negative deletion cost",
        annotate(**{"controller.kubernetes.io/pod-deletion-cost": "-10"}),
        [],
    ),
    (
        "a deletion cost with a leading zero",
        annotate(**{"controller.kubernetes.io/pod-deletion-cost": "010"}),
        [
            "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "
            '"010": must be a 32bit integer'
        ],
    ),
    (
        "a deletion cost beyond 32 bits",
        annotate(**{"controller.kubernetes.io/pod-deletion-cost": "2147483648"}),
        [
            "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "
            '"2147483648": must be a 32bit integer'
        ],
    ),
    (
        "an unknown seccomp annotation profile",
        annotate(**{"seccomp.security.alpha.kubernetes.io/pod": "foo"}),
        [
            "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "
            '"foo": must be a valid seccomp profile'
        ],
    ),
    (
        "an AppArmor annotation for no container",
        annotate(**{"container.apparmor.security.beta.kubernetes.io/other": "runtime/default"}),
        [
            "metadata.annotations[container.apparmor.security.beta.kubernetes.io/other]: Invalid "
            'value: "other": container not found'
        ],
    ),
    (
        "an AppArmor annotation with an unknown profile",
        annotate(**{"container.apparmor.security.beta.kubernetes.io/c": "docker/default"}),
        [
            "metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Invalid "
            'value: "docker/default": invalid AppArmor profile name: "docker/default"'
        ],
    ),
    # annotations and fields agree (TestValidateSeccompAnnotationsAndFields,
    # TestValidateAppArmorAnnotationsAndFieldsMatchOnCreate)
    (
        "seccomp annotation and field disagree",
        lambda m: (
            annotate(**{"seccomp.security.alpha.kubernetes.io/pod": "unconfined"})(m),
            spec(securityContext={"seccompProfile": {"type": "RuntimeDefault"}})(m),
        ),
        [
            "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and "
            "field must match"
        ],
    ),
    (
        "a container's localhost seccomp profile differs from its annotation",
        lambda m: (
            annotate(**{"container.seccomp.security.alpha.kubernetes.io/c": "localhost/a"})(m),
            container(
                securityContext={"seccompProfile": {"type": "Localhost", "localhostProfile": "b"}}
            )(m),
        ),
        [
            f"{C}.securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in "
            "annotation and field must match"
        ],
    ),
    (
        "a container's AppArmor field disagrees with its annotation",
        lambda m: (
            annotate(**{"container.apparmor.security.beta.kubernetes.io/c": "unconfined"})(m),
            container(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})(m),
        ),
        [
            f"{C}.securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation "
            "and field must match"
        ],
    ),
    (
        "a pod's container takes its AppArmor annotation over the pod's profile",
        lambda m: (
            annotate(**{"container.apparmor.security.beta.kubernetes.io/c": "unconfined"})(m),
            spec(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}})(m),
        ),
        [],
    ),
    # ValidatePodCreate
    (
        "ephemeral containers on create",
        spec(ephemeralContainers=[{"name": "debug", "image": "busybox"}]),
        ["spec.ephemeralContainers: Forbidden: cannot be set on create"],
    ),
    (
        "a node name while scheduling gates remain",
        spec(nodeName="n1", schedulingGates=[{"name": "example.com/gate"}]),
        ["spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"],
    ),
    (
        "downapi empty metatada path",
        downward_file(path=""),
        ["spec.volumes[2].downwardAPI.path: Required value"],
    ),
    (
        "downapi dot dot path",
        downward_file(path="../../passwd"),
        [
            'spec.volumes[2].downwardAPI.path: Invalid value: "../../passwd": must not contain '
            "'..'"
        ],
    ),
    (
        "downapi dot dot first level dirent",
        downward_file(path="..badDirName/goodFileName"),
        [
            'spec.volumes[2].downwardAPI.path: Invalid value: "..badDirName/goodFileName": must '
            "not start with '..'"
        ],
    ),
    (
        "downapi fieldRef and ResourceFieldRef together",
        downward_file(resourceFieldRef={"containerName": "c", "resource": "limits.cpu"}),
        [
            'spec.volumes[2].downwardAPI: Invalid value: "resource": fieldRef and '
            "resourceFieldRef can not be specified simultaneously"
        ],
    ),
    (
        "a downward-API file of a field only environment variables may read",
        downward_file(fieldRef={"fieldPath": "spec.nodeName"}),
        [
            'spec.volumes[2].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": '
            'supported values: "metadata.annotations", "metadata.labels", "metadata.name", '
            '"metadata.namespace", "metadata.uid"'
        ],
    ),
    (
        "a downward-API resource file names its container",
        downward_file(fieldRef=None, resourceFieldRef={"resource": "limits.cpu"}),
        ["spec.volumes[2].downwardAPI.resourceFieldRef.containerName: Required value"],
    ),
    # projected volumes (TestValidateProjectedVolumeSource)
    ("a service account's projected volume", projected(TOKEN, CA, NAMESPACE), []),
    (
        "a token living less than 10 minutes",
        projected({"serviceAccountToken": {"path": "token", "expirationSeconds": 60}}),
        [
            "spec.volumes[2].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid "
            "value: 60: may not specify a duration less than 10 minutes"
        ],
    ),
    (
        "a token without a path",
        projected({"serviceAccountToken": {}}),
        ["spec.volumes[2].projected.path: Required value"],
    ),
    (
        "two projections in one source",
        projected({**TOKEN, **CA}),
        [
            "spec.volumes[2].projected.sources[0]: Forbidden: may not specify more than 1 volume "
            "type per source"
        ],
    ),
    (
        "two files at one path",
        projected(CA, {"secret": {"name": "s", "items": [{"key": "k", "path": "ca.crt"}]}}),
        ['spec.volumes[2].projected: Invalid value: "s": conflicting duplicate paths'],
    ),
    # host aliases (TestValidateHostAliases)
    (
        "host aliases",
        spec(hostAliases=[{"ip": "1.2.3.4", "hostnames": ["host1", "Host_2"]}, {"ip": "x"}]),
        [
            f'spec.hostAliases[0].hostnames[1]: Invalid value: "Host_2": {SUBDOMAIN}',
            'spec.hostAliases[1].ip: Invalid value: "x": must be a valid IP address, (e.g. '
            "10.9.8.7 or 2001:db8::ffff)",
        ],
    ),
    # the rest of the pod spec (TestValidatePodSpec)
    (
        "bad active deadline seconds",
        spec(activeDeadlineSeconds=0),
        [
            "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
            "inclusive"
        ],
    ),
    (
        "bad hostname",
        spec(hostname="host.name", subdomain="sub_domain"),
        [
            'spec.hostname: Invalid value: "host.name": must not contain dots',
            f'spec.subdomain: Invalid value: "sub_domain": {DNS_LABEL}',
        ],
    ),
    (
        "bad service account name",
        spec(serviceAccountName="invalidName"),
        [f'spec.serviceAccountName: Invalid value: "invalidName": {SUBDOMAIN}'],
    ),
    (
        "windows options on a linux pod",
        lambda m: (
            spec(os={"name": "linux"})(m),
            container(securityContext={"windowsOptions": {"runAsUserName": "x"}})(m),
        ),
        [
            f"{C}.securityContext.windowsOptions: Forbidden: windows options cannot be set for a "
            "linux pod"
        ],
    ),
    (
        "linux fields on a windows pod",
        lambda m: (
            spec(os={"name": "windows"}, hostPID=True)(m),
            container(securityContext={"runAsUser": 1})(m),
        ),
        [
            "spec.hostPID: Forbidden: cannot be set for a windows pod",
            f"{C}.securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
        ],
    ),
    (
        "a file key ref to a volume that is not an emptyDir",
        env(
            {
                "name": "a",
                "valueFrom": {"fileKeyRef": {"key": "k", "volumeName": "abc", "path": "f"}},
            }
        ),
        [
            f'{C}.env[0].valueFrom.fileKeyRef.volumeName: Invalid value: "abc": referenced volume '
            "must be of type emptyDir"
        ],
    ),
    (
        "a file key ref to an emptyDir volume",
        env(
            {
                "name": "a",
                "valueFrom": {"fileKeyRef": {"key": "k", "volumeName": "123", "path": "f"}},
            }
        ),
        [],
    ),
    (
        "a readiness gate that is not a qualified name",
        spec(readinessGates=[{"conditionType": "a/b/c"}]),
        [
            'spec.readinessGates[0].conditionType: Invalid value: "a/b/c": a valid label key '
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
            "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional "
            "DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ],
    ),
]


@pytest.mark.parametrize(("edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_container_and_pod_spec_validation(edit, expected):
    assert errors_of(edit) == expected


def test_sidecars_get_probe_checks_and_plain_init_containers_none():
    def edit(manifest):
        bad_probe = {"exec": {"command": ["a"]}, "successThreshold": 2}
        manifest["spec"]["initContainers"] = [
            {"name": "side", "image": "i", "restartPolicy": "Always", "livenessProbe": bad_probe},
            {"name": "init", "image": "i", "livenessProbe": bad_probe},
        ]

    assert errors_of(edit) == [
        "spec.initContainers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
        "spec.initContainers[1].livenessProbe: Forbidden: may not be set for init containers "
        "without restartPolicy=Always",
    ]


def test_a_plain_init_container_is_not_restarted_to_resize():
    def edit(manifest):
        policy = {"resourceName": "cpu", "restartPolicy": "RestartContainer"}
        manifest["spec"]["initContainers"] = [{"name": "i", "image": "i", "resizePolicy": [policy]}]

    assert errors_of(edit) == [
        'spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": '
        "must not be set to 'RestartContainer' for non-sidecar initContainers"
    ]


def test_init_containers_host_ports_conflict_only_within_each():
    """Init containers run one at a time, so two may use the same host port."""
    port = {"containerPort": 80, "hostPort": 8080}

    def edit(manifest):
        manifest["spec"]["initContainers"] = [
            {"name": "a", "image": "i", "ports": [port]},
            {"name": "b", "image": "i", "ports": [port]},
        ]

    assert errors_of(edit) == []
