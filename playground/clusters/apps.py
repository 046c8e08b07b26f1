from django.apps import AppConfig


class ClustersConfig(AppConfig):
    name = "playground.clusters"
    label = "clusters"
    verbose_name = "Cluster connections"

    def ready(self) -> None:
        """Imports the official client while Django sets up, on one thread.

        The ``kubernetes`` package's modules import each other in a cycle (``client`` and its
        ``api_client``, ``configuration`` and ``exceptions``): two threads importing it for the
        first time at once (the embedded worker starting a mirror while a page loads) can
        deadlock in the import system (tests/test_imports.py saw it).
        """
        import kubernetes.client  # noqa: F401
