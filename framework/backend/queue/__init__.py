"""The scheduling queue: active, backoff and unschedulable pods, queueing hints, nominations."""
