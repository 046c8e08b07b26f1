"""The structured parameters allocator (upstream dynamic-resource-allocation/structured)."""
