"""Every move of a pod is reported to the optional on_change callback, with its cause."""

from __future__ import annotations

from .helpers import NODE_ADD, QUEUE, AllowlistPreEnqueue, gated_queue, hint_map, make_pod


def test_a_pods_life_in_the_queue_is_reported_step_by_step():
    changes: list[tuple[str, str]] = []
    queue, clock = gated_queue(
        AllowlistPreEnqueue("ok"),
        queueing_hint_map=hint_map({NODE_ADD: [("NodeAffinity", QUEUE)]}),
        on_change=lambda event, pod_info: changes.append((event, pod_info.pod.name)),
    )
    pod = make_pod("p", uid="p", labels={"ok": ""})
    queue.add(pod)
    popped = queue.pop()
    popped.unschedulable_plugins = {"NodeAffinity"}
    queue.add_unschedulable_if_not_present(popped, queue.scheduling_cycle())
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    clock.step(2)
    queue.flush_backoff_q_completed()
    queue.update(pod, make_pod("p", uid="p", labels={"ok": ""}, annotations={"a": "b"}))
    queue.delete(pod)
    queue.add(make_pod("gated"))

    assert changes == [
        ("Active:UnschedulablePodAdd", "p"),
        ("InFlight", "p"),
        ("Unschedulable:ScheduleAttemptFailure", "p"),
        ("Done", "p"),
        ("Backoff:NodeAdd", "p"),
        ("Active:BackoffComplete", "p"),
        ("Updated", "p"),
        ("Deleted", "p"),
        ("Gated:UnschedulablePodAdd", "gated"),
    ]


def test_the_callback_receives_the_queued_pod_info_itself():
    seen = []
    queue, _ = gated_queue(on_change=lambda event, pod_info: seen.append(pod_info))
    queue.add(make_pod("p"))
    assert queue.pop() is seen[0] is seen[1]
