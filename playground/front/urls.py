"""The playground's pages. Every one needs a login; workspace pages also need access."""

from django.contrib.auth import views as auth_views
from django.urls import path

from playground.front.views import cluster, pods, queue, workspaces

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", workspaces.index, name="index"),
    path("w/", workspaces.workspace_list, name="workspaces"),
    path("w/<slug:slug>/", workspaces.overview, name="workspace"),
    path("w/<slug:slug>/nodes/", cluster.nodes, name="nodes"),
    path("w/<slug:slug>/pods/", cluster.pods, name="pods"),
    path("w/<slug:slug>/pods/<str:uid>/", pods.pod_detail, name="pod"),
    path("w/<slug:slug>/attempts/<int:pk>/", pods.attempt_detail, name="attempt"),
    path("w/<slug:slug>/objects/", cluster.objects, name="objects"),
    path("w/<slug:slug>/queue/", queue.queue, name="queue"),
]
