from django.apps import AppConfig


class ClustersConfig(AppConfig):
    name = "playground.clusters"
    label = "clusters"
    verbose_name = "Cluster connections"
