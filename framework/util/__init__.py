"""Small helpers shared by the engine: clocks, Go-style duration text."""
