"""The plugin API: status codes, cycle state, node info and one small class per extension point."""
