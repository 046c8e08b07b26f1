"""The playground's pages. Every one needs a login; workspace pages also need access."""

from django.contrib.auth import views as auth_views
from django.urls import path

from playground.front.views import (
    cluster,
    compare,
    control,
    debugger,
    objects,
    permit,
    pod_deletion,
    pod_groups,
    pods,
    profile,
    queue,
    replay,
    reweight,
    transfer,
    what_if,
    workspaces,
)

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", workspaces.index, name="index"),
    path("w/", workspaces.workspace_list, name="workspaces"),
    path("w/<slug:slug>/", workspaces.overview, name="workspace"),
    path("w/<slug:slug>/delete/", workspaces.delete, name="workspace-delete"),
    path("w/<slug:slug>/nodes/", cluster.nodes, name="nodes"),
    path("w/<slug:slug>/pods/", cluster.pods, name="pods"),
    path("w/<slug:slug>/delete-pods/", pod_deletion.delete_pods, name="pods-delete"),
    path("w/<slug:slug>/pods/<str:uid>/", pods.pod_detail, name="pod"),
    path(
        "w/<slug:slug>/pods/<str:uid>/attempts/<int:number>/",
        pods.attempt_detail,
        name="attempt",
    ),
    path(
        "w/<slug:slug>/pods/<str:uid>/attempts/<int:number>/replay/",
        replay.attempt_replay,
        name="attempt-replay",
    ),
    path(
        "w/<slug:slug>/pods/<str:uid>/attempts/<int:number>/reweighted-profile/",
        reweight.reweighted_profile,
        name="attempt-reweighted-profile",
    ),
    path("w/<slug:slug>/attempts/<int:pk>/", pods.attempt_by_id, name="attempt-by-id"),
    path("w/<slug:slug>/pod-groups/", pod_groups.groups, name="pod-groups"),
    path(
        "w/<slug:slug>/pod-groups/<str:namespace>/<str:name>/",
        pod_groups.group_detail,
        name="pod-group",
    ),
    path("w/<slug:slug>/objects/", cluster.objects, name="objects"),
    path("w/<slug:slug>/objects/new/", objects.new_object, name="object-new"),
    path("w/<slug:slug>/objects/<int:pk>/", objects.edit_object, name="object"),
    path("w/<slug:slug>/objects/<int:pk>/delete/", objects.delete_object, name="object-delete"),
    path(
        "w/<slug:slug>/objects/<int:pk>/recreate/",
        objects.recreate_object,
        name="object-recreate",
    ),
    path("w/<slug:slug>/profile/", profile.editor, name="profile"),
    path("w/<slug:slug>/profile/validate/", profile.validate, name="profile-validate"),
    path("w/<slug:slug>/profile/edit/", profile.edit, name="profile-edit"),
    path("w/<slug:slug>/profile/apply/", profile.apply, name="profile-apply"),
    path("w/<slug:slug>/transfer/", transfer.transfer, name="transfer"),
    path("w/<slug:slug>/import/", transfer.import_objects, name="import"),
    path("w/<slug:slug>/export.yaml", transfer.export_objects, name="export"),
    path("w/<slug:slug>/bulk/", transfer.bulk, name="bulk"),
    path("w/<slug:slug>/queue/", queue.queue, name="queue"),
    path("w/<slug:slug>/permit/", permit.permit, name="permit"),
    path("w/<slug:slug>/permit/decide/", permit.decide, name="permit-decide"),
    path("w/<slug:slug>/permit/decide-all/", permit.decide_all, name="permit-decide-all"),
    path("w/<slug:slug>/debugger/", debugger.debugger, name="debugger"),
    path("w/<slug:slug>/debugger/command/", debugger.debug_command, name="debugger-command"),
    path("w/<slug:slug>/debugger/breakpoints/", debugger.breakpoint_add, name="breakpoint-add"),
    path(
        "w/<slug:slug>/debugger/breakpoints/<int:pk>/delete/",
        debugger.breakpoint_delete,
        name="breakpoint-delete",
    ),
    path(
        "w/<slug:slug>/debugger/breakpoints/clear/",
        debugger.breakpoints_clear,
        name="breakpoints-clear",
    ),
    path("w/<slug:slug>/what-if/", what_if.what_if, name="what-if"),
    path("w/<slug:slug>/compare/", compare.compare, name="compare"),
    path("w/<slug:slug>/compare/<int:pk>/", compare.comparison, name="comparison"),
    path(
        "w/<slug:slug>/compare/<int:pk>/cancel/",
        compare.comparison_cancel,
        name="comparison-cancel",
    ),
    path(
        "w/<slug:slug>/compare/<int:pk>/export.<str:fmt>",
        compare.comparison_export,
        name="comparison-export",
    ),
    path(
        "w/<slug:slug>/compare/<int:pk>/variants/<int:index>/pods/<str:namespace>/<str:name>/"
        "attempts/<int:number>/",
        compare.comparison_attempt,
        name="comparison-attempt",
    ),
    path(
        "w/<slug:slug>/compare/<int:pk>/variants/<int:index>/pods/<str:namespace>/<str:name>/"
        "attempts/<int:number>/replay/",
        compare.comparison_replay,
        name="comparison-replay",
    ),
    path("w/<slug:slug>/pause/", control.pause, name="pause"),
    path("w/<slug:slug>/resume/", control.resume, name="resume"),
]
