"""The connections pages (playground.clusters.views), under ``/connections/``."""

from django.urls import path

from playground.clusters import views

urlpatterns = [
    path("", views.connection_list, name="connections"),
    path("new/", views.connection_new, name="connection-new"),
    path("<int:pk>/", views.connection_detail, name="connection"),
    path("<int:pk>/test/", views.connection_test, name="connection-test"),
    path("<int:pk>/mirror/", views.mirror_state, name="connection-mirror"),
    path("<int:pk>/mirror/start/", views.mirror_start, name="connection-mirror-start"),
    path("<int:pk>/mirror/stop/", views.mirror_stop, name="connection-mirror-stop"),
    path("<int:pk>/edit/", views.connection_edit, name="connection-edit"),
    path("<int:pk>/delete/", views.connection_delete, name="connection-delete"),
]
