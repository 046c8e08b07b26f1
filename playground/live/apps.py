from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "playground.live"
    label = "live"
