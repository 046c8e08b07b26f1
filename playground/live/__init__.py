"""Live updates: Channels consumers and the groups the scheduler service broadcasts to."""
