"""The engine's Bind step can run elsewhere: the binding cycle resumes when its outcome arrives.

The playground binds in a Celery task; these tests exercise the hook it relies on
(``Scheduler.bind_pod``) on the engine alone, over an in-memory cluster.
"""

from __future__ import annotations

from framework.api.loader import parse_object
from framework.cluster.memory import InMemoryCluster
from framework.config.defaults import default_configuration
from framework.interface.status import Code, Status
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.util.clock import FakeClock
from tests.playground.scheduling.manifests import node_manifest, pod_manifest


class DeferredBindingScheduler(Scheduler):
    """Keeps each Bind request instead of binding, as the playground's service does."""

    def bind_pod(self, framework, state, pod, host, done):
        self.requests.append((pod, host, done))


def build():
    cluster = InMemoryCluster([parse_object(node_manifest("n1"))])
    attempts = []
    scheduler = DeferredBindingScheduler.from_configuration(
        default_configuration(),
        cluster,
        in_tree_registry(),
        clock=FakeClock(1000.0),
        on_attempt=attempts.append,
    )
    scheduler.requests = []
    scheduler.start()
    cluster.add(parse_object(pod_manifest("web")))
    return scheduler, cluster, attempts


def test_the_attempt_is_reported_only_once_the_bind_outcome_arrives():
    scheduler, cluster, attempts = build()
    scheduler.schedule_one()
    assert attempts == []
    assert scheduler.cache.is_assumed_pod(cluster.get("Pod", "web", "default"))

    pod, host, done = scheduler.requests.pop()
    cluster.bind(pod.namespace, pod.name, pod.uid, host)
    done(None)

    assert [(a.pod, a.result, a.node) for a in attempts] == [("default/web", "Scheduled", "n1")]


def test_a_failed_bind_forgets_the_pod_and_requeues_it():
    scheduler, _, attempts = build()
    scheduler.schedule_one()
    pod, _, done = scheduler.requests.pop()

    done(Status(Code.ERROR, "binding refused"))

    assert not scheduler.cache.is_assumed_pod(pod)
    assert [(a.result, a.message) for a in attempts] == [("Error", "binding refused")]
    assert [p.name for p in scheduler.queue.pods_in_backoff_q()] == ["web"]
