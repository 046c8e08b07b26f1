"""CEL for DRA device selectors: the ``device`` environment and the Kubernetes libraries."""
