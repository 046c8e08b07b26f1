"""Comparisons: the same cluster scheduled under several profiles, one Celery task per variant
(docs/compare.md, "In the playground")."""
