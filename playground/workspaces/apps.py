from django.apps import AppConfig


class WorkspacesConfig(AppConfig):
    name = "playground.workspaces"
    label = "workspaces"
