"""The connections pages (playground.clusters.views), under ``/connections/``."""

from django.urls import path

from playground.clusters import recording_views, views

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
    path("<int:pk>/import/", recording_views.import_view, name="connection-import"),
    path(
        "<int:pk>/recordings/",
        recording_views.recordings_section,
        name="connection-recordings",
    ),
    path("<int:pk>/recordings/start/", recording_views.start_recording, name="recording-start"),
    path("<int:pk>/recordings/stop/", recording_views.stop_recording, name="recording-stop"),
    path(
        "<int:pk>/recordings/<int:recording_pk>/download/",
        recording_views.download_recording,
        name="recording-download",
    ),
    path(
        "<int:pk>/recordings/<int:recording_pk>/delete/",
        recording_views.delete_recording,
        name="recording-delete",
    ),
    path(
        "<int:pk>/recordings/<int:recording_pk>/replay/",
        recording_views.replay_recording,
        name="recording-replay",
    ),
]
