"""Websocket routes; asgi.py wraps them in the allowed-hosts origin check and session auth."""

from django.urls import path

from playground.live.consumers import PodConsumer, WorkspaceConsumer

websocket_urlpatterns = [
    path("ws/w/<slug:slug>/", WorkspaceConsumer.as_asgi()),
    path("ws/w/<slug:slug>/pods/<str:uid>/", PodConsumer.as_asgi()),
]
