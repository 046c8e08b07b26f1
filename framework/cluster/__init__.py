"""The engine's view of a cluster: Kubernetes objects to read, and the writes a scheduler makes.

Implementations: in memory (CLI, tests, benchmarks), the playground's database, a live API server.
"""
