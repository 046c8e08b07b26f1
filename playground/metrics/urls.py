"""``/metrics``."""

from django.urls import path

from playground.metrics import views

urlpatterns = [path("metrics", views.metrics, name="metrics")]
