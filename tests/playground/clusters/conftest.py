"""Every connection test has its own encryption key and no exec switch set.

The ``kube_api`` fixture (the Kubernetes API server for tests, tests/kube/) is imported here
for tests/playground/clusters/test_with_api_server.py.
"""

from __future__ import annotations

import pytest

from playground.clusters.encryption import KEY_ENV, KEY_FILE_ENV, generate_key
from playground.clusters.kubeconfig import ALLOW_EXEC_ENV
from tests.kube.fixtures import kube_api  # noqa: F401  (a fixture, used by name)


@pytest.fixture(autouse=True)
def encryption_key(monkeypatch):
    key = generate_key()
    monkeypatch.setenv(KEY_ENV, key)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    monkeypatch.delenv(ALLOW_EXEC_ENV, raising=False)
    return key
