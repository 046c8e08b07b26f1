"""Upstream's ``ValidateServiceCreate`` (``pkg/apis/core/validation``): type, ports, selector,
session affinity, cluster IPs and the traffic policies, with upstream's paths and messages.

The Service is checked as the API server sees it after defaulting (``type`` ClusterIP,
``sessionAffinity`` None, a port's ``protocol`` TCP and ``targetPort`` its ``port``, the
traffic policies Cluster, ``allocateLoadBalancerNodePorts`` true) and after ``clusterIP``
and ``clusterIPs`` were completed from each other. Addresses and node ports the API server
would allocate are not allocated: an unset ``clusterIP`` stays unset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_port_name,
    is_valid_port_num,
)
from framework.api.validation.ip import (
    is_ipv6,
    parse_ip_sloppy,
    validate_legacy_cidr,
    validate_legacy_ip,
)
from framework.api.validation.meta import validate_labels, validate_object_meta

Manifest = Mapping[str, Any]

SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_SESSION_AFFINITIES = ("ClientIP", "None")
_IP_FAMILIES = ("IPv4", "IPv6")
_IP_FAMILY_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
_TRAFFIC_POLICIES = ("Cluster", "Local")
_TRAFFIC_DISTRIBUTIONS = ("PreferClose", "PreferSameZone", "PreferSameNode")
MAX_CLIENT_IP_AFFINITY_SECONDS = 86400
_TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints"
_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"
_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"
_ONLY_LOAD_BALANCERS = "may only be used when `type` is 'LoadBalancer'"


def validate_service(manifest: Manifest) -> list[FieldError]:
    """Every problem kube-apiserver would report creating this Service, in its order."""
    metadata = manifest.get("metadata") or {}
    spec = defaulted_service_spec(manifest.get("spec") or {})
    annotations = metadata.get("annotations") or {}
    # RelaxedServiceNameValidation (beta, on in v1.36): a DNS label, digits first allowed.
    errors = validate_object_meta(metadata, True, is_dns1123_label)
    errors += _topology_annotations(annotations)
    errors += _type_specific(spec)
    errors += _ports(spec)
    if spec.get("selector") is not None:
        errors += validate_labels(spec["selector"], "spec.selector")
    errors += _session_affinity(spec)
    errors += _cluster_ips(spec)
    for index, address in enumerate(spec.get("externalIPs") or []):
        path = f"spec.externalIPs[{index}]"
        errors += validate_legacy_ip(address, path) or _endpoint_ip(address, path)
    kind = spec["type"]
    if kind not in SERVICE_TYPES:
        errors.append(not_supported("spec.type", kind, SERVICE_TYPES))
    errors += _node_ports(spec)
    errors += _duplicate_ports(spec)
    errors += _source_ranges(spec, annotations)
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        errors.append(forbidden("spec.allocateLoadBalancerNodePorts", _ONLY_LOAD_BALANCERS))
    errors += _load_balancer_class(spec)
    errors += _external_traffic_policy(spec)
    errors += _internal_traffic_policy(spec)
    distribution = spec.get("trafficDistribution")
    if distribution is not None and distribution not in _TRAFFIC_DISTRIBUTIONS:
        path = "spec.trafficDistribution"
        errors.append(not_supported(path, distribution, _TRAFFIC_DISTRIBUTIONS))
    return errors


def defaulted_service_spec(spec: Manifest) -> dict[str, Any]:
    """The spec after ``SetDefaults_Service`` and the cluster IPs' completion."""
    defaulted = dict(spec)
    defaulted["type"] = spec.get("type") or "ClusterIP"
    affinity = spec.get("sessionAffinity") or "None"
    defaulted["sessionAffinity"] = affinity
    if affinity == "None":
        defaulted.pop("sessionAffinityConfig", None)
    elif affinity == "ClientIP":
        config = spec.get("sessionAffinityConfig") or {}
        if (config.get("clientIP") or {}).get("timeoutSeconds") is None:
            defaulted["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    defaulted["ports"] = [_defaulted_port(port) for port in spec.get("ports") or []]
    cluster_ip = spec.get("clusterIP") or ""
    cluster_ips = list(spec.get("clusterIPs") or [])
    if cluster_ip and not cluster_ips:
        cluster_ips = [cluster_ip]
    elif cluster_ips and not cluster_ip:
        cluster_ip = cluster_ips[0]
    defaulted["clusterIP"], defaulted["clusterIPs"] = cluster_ip, cluster_ips
    if _externally_accessible(defaulted) and not spec.get("externalTrafficPolicy"):
        defaulted["externalTrafficPolicy"] = "Cluster"
    kind = defaulted["type"]
    if spec.get("internalTrafficPolicy") is None and kind in (
        "ClusterIP",
        "LoadBalancer",
        "NodePort",
    ):
        defaulted["internalTrafficPolicy"] = "Cluster"
    if kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        defaulted["allocateLoadBalancerNodePorts"] = True
    return defaulted


def _defaulted_port(port: Manifest) -> dict[str, Any]:
    defaulted = dict(port)
    defaulted["protocol"] = port.get("protocol") or "TCP"
    if port.get("targetPort") in (None, 0, ""):
        defaulted["targetPort"] = port.get("port") or 0
    return defaulted


def is_headless(spec: Manifest) -> bool:
    return spec.get("clusterIPs") == ["None"]


def _externally_accessible(spec: Manifest) -> bool:
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (
        kind == "ClusterIP" and bool(spec.get("externalIPs"))
    )


def _topology_annotations(annotations: Mapping[str, str]) -> list[FieldError]:
    if _TOPOLOGY_MODE in annotations and _TOPOLOGY_HINTS in annotations:
        mode = annotations[_TOPOLOGY_MODE]
        if mode != annotations[_TOPOLOGY_HINTS]:
            path = f"metadata.annotations[{_TOPOLOGY_MODE}]"
            detail = f"must match annotations[{_TOPOLOGY_HINTS}] when both are specified"
            return [invalid(path, mode, detail)]
    return []


def _type_specific(spec: Manifest) -> list[FieldError]:
    """Ports are required but for headless and ExternalName services; a headless service is
    of neither node-port kind; an ExternalName has a name and no cluster addresses."""
    kind = spec["type"]
    errors: list[FieldError] = []
    if not spec["ports"] and not is_headless(spec) and kind != "ExternalName":
        errors.append(required("spec.ports"))
    if kind in ("LoadBalancer", "NodePort") and is_headless(spec):
        detail = f"may not be set to 'None' for {kind} services"
        errors.append(invalid("spec.clusterIPs[0]", "None", detail))
    elif kind == "ExternalName":
        detail = "may not be set for ExternalName services"
        for key in ("clusterIPs", "ipFamilies"):
            if spec.get(key):
                errors.append(forbidden(f"spec.{key}", detail))
        if spec.get("ipFamilyPolicy") is not None:
            errors.append(forbidden("spec.ipFamilyPolicy", detail))
        cname = (spec.get("externalName") or "").removesuffix(".")
        if cname:
            problems = is_dns1123_subdomain(cname)
            errors += [invalid("spec.externalName", cname, msg) for msg in problems]
        else:
            errors.append(required("spec.externalName"))
    return errors


def _ports(spec: Manifest) -> list[FieldError]:
    ports = spec["ports"]
    names: set[str] = set()
    errors: list[FieldError] = []
    for index, port in enumerate(ports):
        errors += _service_port(port, len(ports) > 1, names, f"spec.ports[{index}]")
    return errors


def _service_port(
    port: Manifest, require_name: bool, names: set[str], path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        errors.append(required(f"{path}.name"))
    elif name:
        errors += [invalid(f"{path}.name", name, msg) for msg in is_dns1123_label(name)]
        if name in names:
            errors.append(duplicate(f"{path}.name", name))
        names.add(name)
    number = port.get("port") or 0
    errors += [invalid(f"{path}.port", number, msg) for msg in is_valid_port_num(number)]
    protocol = port["protocol"]
    if protocol not in _PROTOCOLS:
        errors.append(not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
    errors += validate_port_num_or_name(port["targetPort"], f"{path}.targetPort")
    if port.get("appProtocol") is not None:
        app_protocol = port["appProtocol"]
        problems = is_qualified_name(app_protocol)
        errors += [invalid(f"{path}.appProtocol", app_protocol, msg) for msg in problems]
    return errors


def validate_port_num_or_name(port: int | str, path: str) -> list[FieldError]:
    """``ValidatePortNumOrName``: a port number, or the name of a container's port."""
    if isinstance(port, str):
        return [invalid(path, port, msg) for msg in is_valid_port_name(port)]
    return [invalid(path, port, msg) for msg in is_valid_port_num(port)]


def _session_affinity(spec: Manifest) -> list[FieldError]:
    affinity = spec["sessionAffinity"]
    if affinity not in _SESSION_AFFINITIES:
        return [not_supported("spec.sessionAffinity", affinity, _SESSION_AFFINITIES)]
    if affinity == "None":
        return []
    timeout = spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"]
    if 0 < timeout <= MAX_CLIENT_IP_AFFINITY_SECONDS:
        return []
    path = "spec.sessionAffinityConfig.clientIP.timeoutSeconds"
    detail = f"must be greater than 0 and less than {MAX_CLIENT_IP_AFFINITY_SECONDS}"
    return [invalid(path, timeout, detail)]


def _cluster_ips(spec: Manifest) -> list[FieldError]:
    """``ValidateServiceClusterIPsRelatedFields`` on create."""
    if spec["type"] == "ExternalName":
        return []
    path = "spec.clusterIPs"
    cluster_ips = spec["clusterIPs"]
    families = spec.get("ipFamilies") or []
    errors: list[FieldError] = []
    if cluster_ips and cluster_ips[0] != spec["clusterIP"]:
        errors.append(invalid(path, cluster_ips, "first value must match `clusterIP`"))
    seen: set[str] = set()
    for index, family in enumerate(families):
        if family not in _IP_FAMILIES:
            errors.append(not_supported(f"spec.ipFamilies[{index}]", family, _IP_FAMILIES))
        if family in seen:
            errors.append(duplicate(f"spec.ipFamilies[{index}]", family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _IP_FAMILY_POLICIES:
        errors.append(not_supported("spec.ipFamilyPolicy", policy, _IP_FAMILY_POLICIES))
    bad_address = False
    for index, address in enumerate(cluster_ips):
        if index == 0 and address == "None":
            if len(cluster_ips) > 1:
                bad_address = True
                detail = "'None' must be the first and only value"
                errors.append(invalid(path, cluster_ips, detail))
            continue
        problems = validate_legacy_ip(address, f"{path}[{index}]")
        bad_address = bad_address or bool(problems)
        errors += problems
    if len(cluster_ips) > 2:
        errors.append(invalid(path, cluster_ips, "may only hold up to 2 values"))
    if bad_address:
        return errors
    if len(cluster_ips) > 1 and is_ipv6(cluster_ips[0]) == is_ipv6(cluster_ips[1]):
        detail = "may specify no more than one IP for each IP family"
        errors.append(invalid(path, cluster_ips, detail))
    if not is_headless(spec):
        for index, (address, family) in enumerate(zip(cluster_ips, families, strict=False)):
            if family == "IPv4" and is_ipv6(address):
                detail = f"expected an IPv4 value as indicated by `ipFamilies[{index}]`"
                errors.append(invalid(f"{path}[{index}]", address, detail))
            if family == "IPv6" and not is_ipv6(address):
                detail = f"expected an IPv6 value as indicated by `ipFamilies[{index}]`"
                errors.append(invalid(f"{path}[{index}]", address, detail))
    return errors


def _endpoint_ip(address: str, path: str) -> list[FieldError]:
    """``ValidateEndpointIP``: an external IP may not be a special-purpose address."""
    ip = parse_ip_sloppy(address)
    if ip is None:
        return [invalid(path, address, "must be a valid IP address")]
    errors: list[FieldError] = []
    if ip.is_unspecified:
        errors.append(invalid(path, address, f"may not be unspecified ({address})"))
    if ip.is_loopback:
        errors.append(
            invalid(path, address, "may not be in the loopback range (127.0.0.0/8, ::1/128)")
        )
    if ip.is_link_local:
        detail = "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
        errors.append(invalid(path, address, detail))
    if _is_link_local_multicast(address):
        detail = "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
        errors.append(invalid(path, address, detail))
    return errors


def _is_link_local_multicast(address: str) -> bool:
    """Go's ``IsLinkLocalMulticast``: 224.0.0.0/24, or ff02::/16 (the message says /10)."""
    ip = parse_ip_sloppy(address)
    if ip is None:
        return False
    if ip.version == 4:
        return ip.packed[:3] == bytes((224, 0, 0))
    return ip.packed[:2] == bytes((0xFF, 0x02))


def _node_ports(spec: Manifest) -> list[FieldError]:
    """No node ports on a ClusterIP service; no node port twice for one protocol."""
    errors: list[FieldError] = []
    if spec["type"] == "ClusterIP":
        for index, port in enumerate(spec["ports"]):
            if port.get("nodePort"):
                detail = "may not be used when `type` is 'ClusterIP'"
                errors.append(forbidden(f"spec.ports[{index}].nodePort", detail))
    seen: set[tuple[str, int]] = set()
    for index, port in enumerate(spec["ports"]):
        node_port = port.get("nodePort") or 0
        if not node_port:
            continue
        key = (port["protocol"], node_port)
        if key in seen:
            errors.append(duplicate(f"spec.ports[{index}].nodePort", node_port))
        seen.add(key)
    return errors


def _duplicate_ports(spec: Manifest) -> list[FieldError]:
    """One port number per protocol; the repeat is shown as upstream's internal type."""
    errors: list[FieldError] = []
    seen: set[tuple[str, int]] = set()
    for index, port in enumerate(spec["ports"]):
        key = (port["protocol"], port.get("port") or 0)
        if key in seen:
            shown = {
                "Name": "",
                "Protocol": key[0],
                "AppProtocol": None,
                "Port": key[1],
                "TargetPort": 0,
                "NodePort": 0,
            }
            errors.append(duplicate(f"spec.ports[{index}]", shown))
        seen.add(key)
    return errors


def _source_ranges(spec: Manifest, annotations: Mapping[str, str]) -> list[FieldError]:
    """The CIDRs a load balancer admits, from the field or else the older annotation."""
    errors: list[FieldError] = []
    ranges = spec.get("loadBalancerSourceRanges") or []
    is_load_balancer = spec["type"] == "LoadBalancer"
    if ranges:
        path = "spec.LoadBalancerSourceRanges"
        if not is_load_balancer:
            errors.append(forbidden(path, _ONLY_LOAD_BALANCERS))
        for index, value in enumerate(ranges):
            errors += validate_legacy_cidr(value.strip(), f"{path}[{index}]")
    elif _SOURCE_RANGES in annotations:
        path = f"metadata.annotations[{_SOURCE_RANGES}]"
        if not is_load_balancer:
            errors.append(forbidden(path, _ONLY_LOAD_BALANCERS))
        value = annotations[_SOURCE_RANGES].strip()
        if value:
            for cidr in value.split(","):
                errors += validate_legacy_cidr(cidr.strip(), path)
    return errors


def _load_balancer_class(spec: Manifest) -> list[FieldError]:
    value = spec.get("loadBalancerClass")
    if value is None:
        return []
    if spec["type"] != "LoadBalancer":
        return [forbidden("spec.loadBalancerClass", _ONLY_LOAD_BALANCERS)]
    return [invalid("spec.loadBalancerClass", value, msg) for msg in is_qualified_name(value)]


def _external_traffic_policy(spec: Manifest) -> list[FieldError]:
    errors: list[FieldError] = []
    policy = spec.get("externalTrafficPolicy") or ""
    if not _externally_accessible(spec):
        if policy:
            detail = "may only be set for externally-accessible services"
            errors.append(invalid("spec.externalTrafficPolicy", policy, detail))
    elif policy not in _TRAFFIC_POLICIES:
        errors.append(not_supported("spec.externalTrafficPolicy", policy, _TRAFFIC_POLICIES))
    health_port = spec.get("healthCheckNodePort") or 0
    needs_health_check = spec["type"] == "LoadBalancer" and policy == "Local"
    if not needs_health_check and health_port:
        detail = (
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"
        )
        errors.append(invalid("spec.healthCheckNodePort", health_port, detail))
    elif needs_health_check and health_port:
        problems = is_valid_port_num(health_port)
        errors += [invalid("spec.healthCheckNodePort", health_port, msg) for msg in problems]
    return errors


def _internal_traffic_policy(spec: Manifest) -> list[FieldError]:
    policy = spec.get("internalTrafficPolicy")
    if policy is None or policy in _TRAFFIC_POLICIES:
        return []
    return [not_supported("spec.internalTrafficPolicy", policy, _TRAFFIC_POLICIES)]
