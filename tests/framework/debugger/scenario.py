"""A small cluster to debug: three nodes of different sizes, pods that fit and one that does not."""

from __future__ import annotations

from pathlib import Path

from framework.debugger.breakpoints import Breakpoint, parse_breakpoint
from framework.debugger.session import CONTINUE, Debugger, Stop
from framework.simulator import Simulation

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
"""


def node(name: str, cpu: str) -> str:
    return f"""\
---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}
"""


def pod(name: str, cpu: str, labels: str = "{}") -> str:
    return f"""\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {labels}}}
spec:
  containers:
  - {{name: c, image: app, resources: {{requests: {{cpu: "{cpu}"}}}}}}
"""


REPO = Path(__file__).resolve().parents[3]
SCENARIOS = [
    *sorted(p for p in (REPO / "tests/fixtures/oracle").iterdir() if p.is_dir()),
    *sorted(p for p in (REPO / "examples").iterdir() if (p / "expected.json").exists()),
]
"""The oracle's and the examples' scenarios (each a folder with config.yaml, objects.yaml)."""

NODES = node("n1", "1") + node("n2", "2") + node("n3", "4")
WEB = pod("web", "500m", "{app: web}")
BIG = pod("big", "8", "{app: big}")


def simulate(objects: str, *breaks: str | Breakpoint, answer=None, **narrowing: str):
    """Runs the simulation under a debugger; returns (reports, stops).

    ``answer(stop, stops)`` chooses each command (default: continue)."""
    stops: list[Stop] = []

    def controller(stop: Stop) -> str:
        stops.append(stop)
        return answer(stop, stops) if answer is not None else CONTINUE

    breakpoints = [
        b if isinstance(b, Breakpoint) else parse_breakpoint(b, **narrowing) for b in breaks
    ]
    debugger = Debugger(breakpoints, controller)
    simulation = Simulation(CONFIG, objects, debugger=debugger)
    return simulation.run(), stops, simulation


def outcomes(reports) -> list[tuple[str, str, str | None]]:
    return [(r.attempt.pod, r.attempt.result, r.attempt.node) for r in reports]
