"""The TLS settings of an extender's HTTP client (upstream ``makeTransport``).

Upstream copies ``tlsConfig`` into a client-go REST config, turns ``insecure`` on when
``enableHTTPS`` is set without a CA, and lets client-go build the TLS configuration. The same
decisions, in the same order and with the same errors, produce an ``ssl.SSLContext`` here.
``enableHTTPS`` never changes the URL: only an ``https://`` urlPrefix speaks TLS.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from dataclasses import dataclass

from framework.config.types import Extender, ExtenderTLSConfig

INSECURE_WITH_CA = "specifying a root certificates file with the insecure flag is not allowed"


class ExtenderTLSError(ValueError):
    """The extender's TLS settings cannot be used (upstream's wording)."""


@dataclass(slots=True)
class TLSSettings:
    """What the HTTP client needs for ``https://`` URLs."""

    context: ssl.SSLContext
    server_name: str = ""
    """The name to verify (and send as SNI) instead of the URL's host, when set."""


def tls_settings_for(config: Extender) -> TLSSettings:
    """The TLS context for an extender; without TLS options, the system's trusted roots."""
    tls = config.tls_config or ExtenderTLSConfig()
    has_ca = bool(tls.ca_file or tls.ca_data)
    insecure = tls.insecure or (config.enable_https and not has_ca)
    has_cert_auth = bool(tls.cert_file or tls.cert_data) and bool(tls.key_file or tls.key_data)
    if not (has_ca or has_cert_auth or insecure or tls.server_name):
        return TLSSettings(ssl.create_default_context())
    if has_ca and insecure:
        raise ExtenderTLSError(INSECURE_WITH_CA)
    ca_data = _data_from_slice_or_file(tls.ca_data, tls.ca_file)
    cert_data = _data_from_slice_or_file(tls.cert_data, tls.cert_file)
    key_data = _data_from_slice_or_file(tls.key_data, tls.key_file)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if has_ca:
        _load_root_certificates(context, ca_data)
    else:
        context.load_default_certs()
    if has_cert_auth:
        _load_client_certificate(context, cert_data, key_data)
    return TLSSettings(context, tls.server_name)


def _data_from_slice_or_file(data: bytes, path: str) -> bytes:
    """Inline data wins over a file, as in client-go; a file that cannot be read is an error."""
    if data or not path:
        return data
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as err:
        reason = (err.strerror or str(err)).lower()
        raise ExtenderTLSError(f"open {path}: {reason}") from None


def _load_root_certificates(context: ssl.SSLContext, ca_data: bytes) -> None:
    try:
        context.load_verify_locations(cadata=ca_data.decode("latin-1"))
    except (ssl.SSLError, ValueError):
        raise ExtenderTLSError(
            "unable to load root certificates: unable to parse bytes as PEM block"
        ) from None


def _load_client_certificate(context: ssl.SSLContext, cert_data: bytes, key_data: bytes) -> None:
    """``ssl`` reads key pairs from files only, so inline data goes through private temp files."""
    paths = []
    try:
        for data in (cert_data, key_data):
            descriptor, path = tempfile.mkstemp(suffix=".pem")
            paths.append(path)
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
        context.load_cert_chain(paths[0], paths[1])
    except ssl.SSLError as err:
        raise ExtenderTLSError(f"tls: failed to load the client key pair: {err}") from None
    finally:
        for path in paths:
            os.unlink(path)
