"""Websocket routes (consumers in playground/live/consumers.py)."""

websocket_urlpatterns: list = []
