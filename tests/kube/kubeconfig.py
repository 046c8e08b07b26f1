"""The kubeconfig the fixtures hand out: one context, the CA inline, a bearer token."""

from __future__ import annotations

import base64


def kubeconfig(server: str, ca_pem: str, token: str, user: str, context: str) -> dict:
    """A one-context kubeconfig with the CA inline and a bearer token."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": context,
                "cluster": {
                    "server": server,
                    "certificate-authority-data": base64.b64encode(ca_pem.encode()).decode(),
                },
            }
        ],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": user}}],
        "current-context": context,
    }
