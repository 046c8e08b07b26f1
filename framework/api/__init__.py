"""Kubernetes objects as the scheduler reads them, parsed from ordinary manifests.

Quantities with exact semantics, Pod and Node and the other kinds scheduling reads,
label selectors, taints and tolerations, node affinity, and pod resource requests.
"""
