"""Fixtures for the tests of the test Kubernetes API server."""

from tests.kube.fixtures import kube_api

__all__ = ["kube_api"]
