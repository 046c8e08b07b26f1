"""The scheduler's in-memory backend: the scheduling queue and the cache with its snapshot."""
