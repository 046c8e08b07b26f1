"""The embedded runs' in-memory broker: a consumer woken to stop leaves its wait for messages,
and one not woken still receives every message.

Celery's consume loop waits up to 2 s per call for a message before it looks whether the worker
is stopping; the embedded worker's stop wakes it instead (``wake_consumer``). Each test waits
with no timeout at all, so only the wake (or a message) can end the wait.
"""

from __future__ import annotations

import threading
import uuid

from kombu import Connection, Exchange, Queue

from playground.memory_broker import TRANSPORT, Transport, wake_consumer

JOIN_SECONDS = 30.0
"""Only a hung wait takes this long; the test fails then."""


def consuming(received: list):
    """A connection of the broker consuming a queue of its own into ``received``."""
    connection = Connection("memory://", transport=TRANSPORT)
    name = f"test-{uuid.uuid4().hex}"
    queue = Queue(name, Exchange(name), routing_key=name)
    consumer = connection.Consumer([queue], callbacks=[lambda body, message: received.append(body)])
    consumer.consume()
    return connection, queue, consumer


def drain_in_a_thread(connection) -> tuple[threading.Thread, list]:
    outcome: list = []

    def drain() -> None:
        try:
            connection.drain_events(timeout=None)
            outcome.append("returned")
        except TimeoutError as woken:
            outcome.append(woken)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread, outcome


def test_celery_uses_the_transport_for_an_in_memory_broker():
    connection = Connection("memory://", transport=TRANSPORT)
    assert isinstance(connection.transport, Transport)


def test_a_woken_consumer_leaves_its_wait_as_the_consume_loop_expects():
    received: list = []
    connection, _, consumer = consuming(received)
    thread, outcome = drain_in_a_thread(connection)

    wake_consumer(connection)
    thread.join(JOIN_SECONDS)

    assert not thread.is_alive(), "the woken consumer still waits for messages"
    assert len(outcome) == 1 and isinstance(outcome[0], TimeoutError), outcome
    assert received == []
    consumer.cancel()
    connection.release()


def test_a_consumer_not_woken_receives_what_is_published_while_it_waits():
    received: list = []
    connection, queue, consumer = consuming(received)
    thread, outcome = drain_in_a_thread(connection)

    with Connection("memory://", transport=TRANSPORT) as producing:
        producing.Producer().publish(
            {"n": 1}, exchange=queue.exchange, routing_key=queue.name, declare=[queue]
        )
    thread.join(JOIN_SECONDS)

    assert not thread.is_alive()
    assert outcome == ["returned"]
    assert received == [{"n": 1}]
    consumer.cancel()
    connection.release()


def test_waking_another_brokers_connection_does_nothing():
    wake_consumer(None)
    wake_consumer(Connection("redis://127.0.0.1:1/0"))
