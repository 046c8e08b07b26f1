"""The Django side of the Scheduler Playground: adapts the engine to a database and a browser."""
