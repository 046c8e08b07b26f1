"""Pod-level resources defaulted as kube-apiserver defaults them (``SetDefaults_Pod`` with
PodLevelResources on: ``defaultHugePagePodLimits`` then ``defaultPodRequests``), so the
scheduler counts what a real cluster stores. Cases from upstream's TestPodResourcesDefaults
(pod-level requests and limits compared; names kept)."""

from __future__ import annotations

import pytest

from framework.api.errors import InvalidObjectError
from framework.api.loader import parse_new_object
from framework.api.pod import Pod
from framework.api.resources import pod_requests

HP = "hugepages-2Mi"


def pod(pod_resources: dict | None, *containers: dict) -> Pod:
    spec: dict = {
        "containers": [
            {"name": f"c{i}", "image": "i", "resources": r} for i, r in enumerate(containers)
        ]
    }
    if pod_resources is not None:
        spec["resources"] = pod_resources
    return Pod.from_dict({"kind": "Pod", "metadata": {"name": "p"}, "spec": spec})


def pod_level(p: Pod) -> tuple[dict[str, str], dict[str, str]] | None:
    if p.spec.resources is None:
        return None
    as_text = lambda quantities: {k: str(v) for k, v in sorted(quantities.items())}  # noqa: E731
    return as_text(p.spec.resources.requests), as_text(p.spec.resources.limits)


CASES = [
    (
        "pod resources=unset, container requests=unset limits=set",
        None,
        [{"limits": {"cpu": "2m"}}],
        None,
    ),
    (
        "pod requests=unset limits=set, container resources=unset",
        {"limits": {"cpu": "4m", "memory": "8Mi"}},
        [{}],
        ({"cpu": "4m", "memory": "8Mi"}, {"cpu": "4m", "memory": "8Mi"}),
    ),
    (
        "pod requests=unset limits=set, container requests=set limits=set",
        {"limits": {"cpu": "4m", "memory": "8Mi"}},
        [
            {"requests": {"cpu": "1m", "memory": "1Mi"}, "limits": {"cpu": "2m", "memory": "1Mi"}},
            {"requests": {"cpu": "1m", "memory": "2Mi"}, "limits": {"cpu": "1m", "memory": "5Mi"}},
        ],
        ({"cpu": "2m", "memory": "3Mi"}, {"cpu": "4m", "memory": "8Mi"}),
    ),
    (
        "pod requests=unset limits=set, container memory requests=set limits=unset",
        {"limits": {"cpu": "4m", "memory": "8Mi"}},
        [{"requests": {"memory": "1Mi"}}, {"requests": {"memory": "5Mi"}}],
        ({"cpu": "4m", "memory": "6Mi"}, {"cpu": "4m", "memory": "8Mi"}),
    ),
    (
        "pod requests=unset cpu limits=set, container resources=unset",
        {"limits": {"cpu": "4m"}},
        [{}],
        ({"cpu": "4m"}, {"cpu": "4m"}),
    ),
    (
        "pod limits=set, container unsupported requests=set limits=set",
        {"limits": {"cpu": "4m"}},
        [{"requests": {"ephemeral-storage": "1Mi"}, "limits": {"ephemeral-storage": "2Mi"}}],
        ({"cpu": "4m"}, {"cpu": "4m"}),
    ),
    (
        "pod has cpu limit with hugepages requests=unset limits=unset, container hugepages "
        "requests=unset limits=set",
        {"limits": {"cpu": "5m"}},
        [{"limits": {"cpu": "2m", HP: "4Mi"}}, {"limits": {"cpu": "1m", HP: "2Mi"}}],
        ({"cpu": "3m", HP: "6Mi"}, {"cpu": "5m", HP: "6Mi"}),
    ),
    (
        "pod has cpu request with hugepages requests=unset limits=unset, container hugepages "
        "requests=unset limits=set",
        {"requests": {"cpu": "5m"}},
        [{"limits": {"cpu": "2m", HP: "4Mi"}}, {"limits": {"cpu": "1m", HP: "2Mi"}}],
        ({"cpu": "5m", HP: "6Mi"}, {HP: "6Mi"}),
    ),
    (
        "pod hugepages requests=set limits=set, container hugepages requests=unset limits=set",
        {"requests": {HP: "2Mi"}, "limits": {HP: "4Mi"}},
        [{"limits": {HP: "2Mi"}}],
        ({HP: "2Mi"}, {HP: "4Mi"}),
    ),
]


@pytest.mark.parametrize(
    ("pod_resources", "containers", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_pod_level_resources_are_defaulted_as_the_api_server_defaults_them(
    pod_resources, containers, expected
):
    assert (
        pod_level(pod(pod_resources, *[{k: dict(v) for k, v in c.items()} for c in containers]))
        == expected
    )


def test_the_scheduler_counts_a_pod_with_only_pod_level_limits_at_those_limits():
    """Without the defaulting the pod asked for nothing and fitted anywhere."""
    requests = pod_requests(pod({"limits": {"cpu": "2", "memory": "1Gi"}}, {}))
    assert (requests["cpu"], requests["memory"]) == (2000, 1024**3)


def test_a_defaulted_pod_request_above_the_pod_limit_is_refused():
    """Validation runs after defaulting: the containers' 2 CPUs become the pod's request."""

    manifest = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "a"},
        "spec": {
            "resources": {"limits": {"cpu": "1"}},
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}}}],
        },
    }
    with pytest.raises(InvalidObjectError) as refused:
        parse_new_object(manifest)
    assert str(refused.value) == (
        'Pod "default/a" is invalid: spec.resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1"
    )
