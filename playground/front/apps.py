from django.apps import AppConfig


class FrontConfig(AppConfig):
    name = "playground.front"
    label = "front"
