from django.apps import AppConfig


class HealthConfig(AppConfig):
    name = "playground.health"
    label = "health"
