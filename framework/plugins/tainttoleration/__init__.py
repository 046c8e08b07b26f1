"""The TaintToleration plugin (Filter, PreScore, Score)."""
