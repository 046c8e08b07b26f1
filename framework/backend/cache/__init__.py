"""The scheduler cache, its node tree and the per-cycle snapshot (upstream backend/cache)."""
