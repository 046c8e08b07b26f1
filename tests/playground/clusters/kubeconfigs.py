"""Kubeconfigs for the connection tests, and a port nothing listens on."""

from __future__ import annotations

import base64
import datetime
import socket
from typing import Any

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

TOKEN = "pg-secret-token-7f3a9c41d2e8b6"
"""The credential every test looks for where it must never be."""


def kubeconfig_document(
    server: str = "https://127.0.0.1:6443",
    token: str = TOKEN,
    ca_pem: str | bytes | None = None,
    context: str = "test",
    user: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    cluster: dict[str, Any] = {"server": server}
    if ca_pem is not None:
        ca = ca_pem.encode() if isinstance(ca_pem, str) else ca_pem
        cluster["certificate-authority-data"] = base64.b64encode(ca).decode()
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "lab", "cluster": cluster}],
        "users": [{"name": "ada", "user": user if user is not None else {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": "lab", "user": "ada"}}],
        "current-context": context,
        **extra,
    }


def kubeconfig(**kwargs: Any) -> str:
    return yaml.safe_dump(kubeconfig_document(**kwargs), sort_keys=False)


def closed_port_url() -> str:
    """An https URL on 127.0.0.1 where nothing listens: connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"https://127.0.0.1:{port}"


def self_signed_ca_pem() -> str:
    """A CA certificate nobody's server certificate is signed by."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "not-the-cluster-ca")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode()
