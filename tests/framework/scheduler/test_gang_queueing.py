"""Gang members in the queue, through the scheduler's event handlers (eventhandlers.go with
GenericWorkload and GangScheduling on): held in PreEnqueue, silently, until their PodGroup
exists and minCount members do, as the ``gang-completed-later`` and ``gang-pods-before-group``
recordings show (tests/fixtures/oracle-workloads)."""

from __future__ import annotations

from framework.api.pod_group import PodGroup
from framework.cluster.memory import InMemoryCluster
from framework.config.defaults import default_configuration
from framework.features import FeatureGates
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.util.clock import FakeClock
from tests.framework.builders import make_node, make_pod

GANG_GATES = FeatureGates({"GenericWorkload": True, "GangScheduling": True})


def member(name: str, group: str = "trainer"):
    return make_pod(name, uid=name, cpu="1", schedulingGroup={"podGroupName": group})


def gang(name: str = "trainer", min_count: int = 3) -> PodGroup:
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
        }
    )


def started(features: FeatureGates = GANG_GATES) -> tuple[Scheduler, InMemoryCluster]:
    cluster = InMemoryCluster([make_node("w0", cpu="4")])
    scheduler = Scheduler.from_configuration(
        default_configuration(features),
        cluster,
        in_tree_registry(features),
        clock=FakeClock(),
        features=features,
    )
    scheduler.start()
    return scheduler, cluster


def board(scheduler: Scheduler) -> dict[str, list[str]]:
    listing = scheduler.queue.listing()
    return {
        "active": sorted(p.pod.name for p in listing.active),
        "gated": sorted(p.pod.name for p in listing.gated),
    }


def test_members_wait_silently_until_min_count_members_exist():
    scheduler, cluster = started()
    cluster.add(gang())
    cluster.add(member("trainer-0"))
    cluster.add(member("trainer-1"))
    assert board(scheduler) == {"active": [], "gated": ["trainer-0", "trainer-1"]}
    gating = {p.pod.name: p.gating_plugin for p in scheduler.queue.listing().gated}
    assert set(gating.values()) == {"GangScheduling"}
    assert cluster.events == []  # no FailedScheduling: held before any attempt
    assert all(p.status.condition("PodScheduled") is None for p in cluster.list("Pod"))

    cluster.add(member("trainer-2"))
    assert board(scheduler) == {
        "active": ["trainer-0", "trainer-1", "trainer-2"],
        "gated": [],
    }


def test_members_created_before_their_pod_group_wait_for_it():
    scheduler, cluster = started()
    for name in ("trainer-0", "trainer-1", "trainer-2"):
        cluster.add(member(name))
    assert board(scheduler)["gated"] == ["trainer-0", "trainer-1", "trainer-2"]
    cluster.add(gang())
    assert board(scheduler) == {
        "active": ["trainer-0", "trainer-1", "trainer-2"],
        "gated": [],
    }


def test_a_member_of_another_group_releases_nobody():
    scheduler, cluster = started()
    cluster.add(gang(min_count=2))
    cluster.add(gang("other", min_count=2))
    cluster.add(member("trainer-0"))
    cluster.add(member("other-0", group="other"))
    assert board(scheduler)["gated"] == ["other-0", "trainer-0"]


def test_deleting_a_member_takes_it_out_of_its_groups_count():
    scheduler, cluster = started()
    cluster.add(gang(min_count=2))
    first = member("trainer-0")
    cluster.add(first)
    cluster.delete(cluster.get("Pod", "trainer-0", "default"))
    cluster.add(member("trainer-1"))
    assert board(scheduler)["gated"] == ["trainer-1"]


def test_with_the_gates_off_group_members_queue_as_plain_pods():
    scheduler, cluster = started(FeatureGates())
    cluster.add(member("trainer-0"))
    assert board(scheduler) == {"active": ["trainer-0"], "gated": []}
    assert "GangScheduling" not in scheduler.profiles["default-scheduler"].plugins_map
