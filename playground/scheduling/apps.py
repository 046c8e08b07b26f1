from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "playground.scheduling"
    label = "scheduling"
