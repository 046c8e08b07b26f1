"""The step debugger: stop a pod's scheduling cycle at breakpoints and look at its state."""
