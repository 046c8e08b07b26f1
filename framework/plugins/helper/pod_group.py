"""Pod-group helpers shared by plugins (upstream plugins/helper/podgroup.go)."""

from __future__ import annotations

from framework.api.pod import Pod


def matching_scheduling_group(pod1: Pod, pod2: Pod) -> bool:
    """Whether both pods belong to the same pod group (same namespace, same group name)."""
    return (
        pod1.namespace == pod2.namespace
        and pod1.spec.pod_group_name is not None
        and pod1.spec.pod_group_name == pod2.spec.pod_group_name
    )
