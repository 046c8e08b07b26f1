"""The DefaultPreemption plugin (PostFilter, PreEnqueue)."""
