"""Pages people see: the landing page for now."""
