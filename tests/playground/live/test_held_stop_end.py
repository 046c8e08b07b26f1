"""The held end of a debugger stop never overwrites the stop that came after it."""

import asyncio

from playground.live import consumers


class Recorder(consumers.LiveConsumer):
    """A consumer without a socket: it records which stops its renders showed."""

    def __init__(self) -> None:
        self._pending = {}
        self._renderer = None
        self._next_render = 0.0
        self.shown: list[str | None] = []

    async def _render_pending(self) -> None:
        while self._pending:
            messages = list(self._pending.values())
            self._pending.clear()
            self.shown += [(m.get("stop") or {}).get("id") for m in messages]


def test_a_stop_that_comes_as_the_held_end_falls_due_is_the_one_shown(monkeypatch):
    monkeypatch.setattr(consumers, "END_HOLD_SECONDS", 0.0)

    async def scenario() -> list:
        consumer = Recorder()
        await consumer.show_stop({"type": "debug.stop", "stop": None, "note": ""})
        # The hold falls due between the two: its timer runs after this task's first resume.
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        await consumer.show_stop({"type": "debug.stop", "stop": {"id": "1-2"}, "note": ""})
        for _ in range(5):
            await asyncio.sleep(0)
        return consumer.shown

    shown = asyncio.run(scenario())
    assert shown[-1] == "1-2", shown
