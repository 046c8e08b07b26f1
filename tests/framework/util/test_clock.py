"""The fake clock fires timers in deadline order as it is stepped; stopped timers never fire."""

from framework.util.clock import FakeClock


def test_timers_fire_in_deadline_order_when_time_passes_them():
    clock, fired = FakeClock(), []
    clock.after_func(5, lambda: fired.append(("b", clock.now())))
    clock.after_func(2, lambda: fired.append(("a", clock.now())))
    clock.step(1)
    assert fired == []
    clock.step(10)
    assert fired == [("a", 2), ("b", 5)]
    assert clock.now() == 11


def test_a_stopped_timer_never_fires():
    clock, fired = FakeClock(), []
    timer = clock.after_func(1, lambda: fired.append(1))
    assert timer.stop() is True
    clock.step(2)
    assert fired == []
    assert timer.stop() is False


def test_next_deadline_lets_a_simulation_jump_ahead():
    clock = FakeClock(100)
    assert clock.next_deadline() is None
    clock.after_func(3, lambda: None).stop()
    clock.after_func(7, lambda: None)
    assert clock.next_deadline() == 107
