"""The explain panels' cost on a big workspace: the pods list (does its tooltip slow it down?),
a pod's "Why pending" panel the first time and once kept, its tooltip, and the Preemption panel.

Runs in this process against a throwaway SQLite database (whatever DATABASE_URL says: the run
writes a workspace of its own), through Django's test client, logged in. The workspace:
``nodes`` nodes in three zones, a running pod on every other node, ``pods`` pending pods that
each have a stored unschedulable attempt (as a scheduler leaves them), and one of them, "big",
with its real attempt and trace (scheduled by the engine over the same objects).

The pods list must not explain anything: it is timed with the explain entry points made to
fail, so a figure printed at all means no row ran one.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

DEFAULT_NODES = 2000
DEFAULT_PODS = 1000
REPEATS = 5


def run(nodes: int = DEFAULT_NODES, pods: int = DEFAULT_PODS) -> list[tuple[str, float]]:
    """(what, milliseconds) per measurement."""
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}/explain.db"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        client, uid = _workspace(nodes, pods)
        return _measure(client, uid)


def _workspace(node_count: int, pod_count: int) -> tuple[Any, str]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from framework.simulator import Simulation
    from playground.workspaces.cluster import DatabaseCluster
    from playground.workspaces.models import AttemptTrace, SchedulingAttempt, Workspace

    user = get_user_model().objects.create_user("bench", password="bench")
    workspace = Workspace.objects.create(name="Bench", slug="bench", owner=user)
    manifests = [_node(i) for i in range(node_count)]
    manifests += [_pod(f"run-{i}", "1", node=f"node-{i}") for i in range(0, node_count, 2)]
    # 9 CPU fit on no node (the largest have 8): every pending pod stays pending.
    pending = [_pod("big", "9")] + [_pod(f"wait-{i}", "9") for i in range(pod_count - 1)]
    DatabaseCluster(workspace).add_many([*manifests, *pending])  # as an import stores them
    report = Simulation(CONFIG, _yaml([*manifests, pending[0]])).run()[0]
    attempts = [
        SchedulingAttempt(
            workspace=workspace,
            pod_key=f"default/{p['metadata']['name']}",
            pod_uid=p["metadata"]["uid"],
            number=1,
            profile="default-scheduler",
            result=report.attempt.result,
            message=report.attempt.message,
            evaluated_nodes=node_count,
        )
        for p in pending
    ]
    SchedulingAttempt.objects.bulk_create(attempts, batch_size=500)
    big = SchedulingAttempt.objects.get(workspace=workspace, pod_uid="uid-big")
    AttemptTrace.pack(big, [e.to_dict() for e in report.events]).save()
    client = Client(SERVER_NAME="127.0.0.1")  # an allowed host
    client.force_login(user)
    return client, "uid-big"


def _measure(client: Any, uid: str) -> list[tuple[str, float]]:
    from playground.front import preemption_panel, why_pending

    figures = []
    real = why_pending._explain, preemption_panel._explain
    why_pending._explain = preemption_panel._explain = _refuse
    try:
        pods_list = _median(client, "/w/bench/pods/")
        figures.append(("pods list, first page of 100 (no explain)", pods_list))
    finally:
        why_pending._explain, preemption_panel._explain = real
    hx = {"HTTP_HX_REQUEST": "true"}
    why = f"/w/bench/pods/{uid}/why/"
    figures.append(("why pending panel, first time", _once(lambda: client.get(why, **hx))))
    figures.append(("why pending panel, kept", _median(client, why, **hx)))
    figures.append(("tooltip, kept", _median(client, f"{why}short/", **hx)))
    preemption = f"/w/bench/pods/{uid}/attempts/1/preemption/"
    figures.append(("preemption panel, first time", _once(lambda: client.get(preemption, **hx))))
    figures.append(("preemption panel, kept", _median(client, preemption, **hx)))
    return figures


def _refuse(*args: Any) -> Any:
    raise AssertionError("the pods list ran explain")


def _median(client: Any, url: str, **headers: Any) -> float:
    return statistics.median(_once(lambda: client.get(url, **headers)) for _ in range(REPEATS))


def _once(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    response = call()
    assert response.status_code == 200, (response.status_code, response.content[:300])
    return (time.perf_counter() - start) * 1000


CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def _node(i: int) -> dict[str, Any]:
    name = f"node-{i}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"z{i % 3}"},
        },
        "status": {"allocatable": {"cpu": "4" if i % 5 else "8", "memory": "16Gi", "pods": "110"}},
    }


def _pod(name: str, cpu: str, node: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}]
    }
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": spec,
    }


def _yaml(manifests: list[dict[str, Any]]) -> str:
    import yaml

    return "---\n".join(yaml.safe_dump(m) for m in manifests)
