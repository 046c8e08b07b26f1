"""Objects checked as kube-apiserver checks them before storing: strict field decoding,
upstream's content checks (label keys, DNS names) and each kind's validation."""
