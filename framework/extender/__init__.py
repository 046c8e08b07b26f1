"""Scheduler extenders: external HTTP services consulted at Filter, Score, Preempt and Bind.

``build_extenders(cfg)`` turns a configuration's ``extenders`` into ``HTTPExtender``s, which
``Scheduler.from_configuration`` does by itself. See ``docs/extenders.md``.
"""
