"""The playground's pages, one module per page or concern (all login-required)."""
