"""Scheduler benchmarks: scheduler_perf-like workloads on the in-memory cluster (not tests)."""
