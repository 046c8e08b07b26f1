"""HTTPS extenders: enableHTTPS and tlsConfig decide verification as upstream's makeTransport.

The fixtures hold a test CA, a server certificate for 127.0.0.1 and a client certificate it
signed (valid until 2126, used nowhere else).
"""

from __future__ import annotations

import pytest

from framework.config.types import Extender, ExtenderTLSConfig
from framework.extender.http_extender import ExtenderError, HTTPExtender
from framework.extender.tls import ExtenderTLSError
from tests.framework.builders import make_node_info, make_pod
from tests.framework.extender.servers import FIXTURES, ScriptedServer, server_tls, serving

CA = (FIXTURES / "ca.crt").read_bytes()
CLIENT_CERT = (FIXTURES / "client.crt").read_bytes()
CLIENT_KEY = (FIXTURES / "client.key").read_bytes()
NODES = [make_node_info("node1")]


def prioritize_over_https(server: ScriptedServer, **config) -> list[tuple[str, int]]:
    extender = HTTPExtender(
        Extender(url_prefix=server.url("https"), prioritize_verb="prioritize", weight=1, **config)
    )
    return extender.prioritize(make_pod(), NODES)[0]


def https_server(**tls) -> ScriptedServer:
    return ScriptedServer(lambda verb, args: [{"Host": "node1", "Score": 4}], server_tls(**tls))


@pytest.mark.parametrize(
    "config",
    [
        {"enable_https": True},
        {"tls_config": ExtenderTLSConfig(insecure=True)},
        {"tls_config": ExtenderTLSConfig(ca_data=CA)},
        {"enable_https": True, "tls_config": ExtenderTLSConfig(ca_file=str(FIXTURES / "ca.crt"))},
        {"tls_config": ExtenderTLSConfig(ca_data=CA, server_name="extender.test")},
    ],
    ids=[
        "enableHTTPS without a CA skips verification",
        "insecure skips verification",
        "a CA given inline verifies the server",
        "a CA read from a file verifies the server",
        "a server name is verified instead of the URL's host",
    ],
)
def test_an_https_extender_is_reached(config):
    with serving(https_server()) as server:
        assert prioritize_over_https(server, **config) == [("node1", 4)]


@pytest.mark.parametrize(
    ("config", "want"),
    [
        ({}, "x509: certificate signed by unknown authority"),
        (
            {"tls_config": ExtenderTLSConfig(ca_data=CA, server_name="other.test")},
            "x509: Hostname mismatch, certificate is not valid for 'other.test'.",
        ),
    ],
    ids=[
        "without a CA the system's roots do not trust the test CA",
        "a server name the certificate does not cover",
    ],
)
def test_an_untrusted_server_fails_the_call(config, want):
    with serving(https_server()) as server:
        url = server.url("https")
        with pytest.raises(ExtenderError) as err:
            prioritize_over_https(server, **config)
    assert str(err.value) == f'Post "{url}prioritize": tls: failed to verify certificate: {want}'


def test_a_client_certificate_is_presented_when_configured():
    tls = ExtenderTLSConfig(ca_data=CA, cert_data=CLIENT_CERT, key_data=CLIENT_KEY)
    with serving(https_server(require_client_certificate=True)) as server:
        assert prioritize_over_https(server, tls_config=tls) == [("node1", 4)]


def test_a_server_requiring_a_client_certificate_refuses_a_client_without_one():
    tls = ExtenderTLSConfig(ca_data=CA)
    with (
        serving(https_server(require_client_certificate=True)) as server,
        pytest.raises(ExtenderError) as err,
    ):
        prioritize_over_https(server, tls_config=tls)
    assert str(err.value).startswith(f'Post "{server.url("https")}prioritize": ')


def test_enable_https_does_not_change_an_http_url():
    answer = ScriptedServer(lambda verb, args: [{"Host": "node1", "Score": 2}])
    with serving(answer) as server:
        extender = HTTPExtender(
            Extender(
                url_prefix=server.url(), prioritize_verb="prioritize", weight=1, enable_https=True
            )
        )
        assert extender.prioritize(make_pod(), NODES) == ([("node1", 2)], 1)


@pytest.mark.parametrize(
    ("tls", "want"),
    [
        (
            ExtenderTLSConfig(insecure=True, ca_file="does-not-exist.crt"),
            "specifying a root certificates file with the insecure flag is not allowed",
        ),
        (
            ExtenderTLSConfig(ca_file="does-not-exist.crt"),
            "open does-not-exist.crt: no such file or directory",
        ),
        (
            ExtenderTLSConfig(ca_data=b"not a certificate"),
            "unable to load root certificates: unable to parse bytes as PEM block",
        ),
    ],
    ids=[
        "insecure together with a CA",
        "a CA file that does not exist",
        "CA data that is not PEM",
    ],
)
def test_unusable_tls_settings_fail_when_the_extender_is_built(tls, want):
    with pytest.raises(ExtenderTLSError) as err:
        HTTPExtender(Extender(url_prefix="https://extender.kube-system/", tls_config=tls))
    assert str(err.value) == want
