"""The connections pages under ``/connections/``: list, new, detail with Test connection and
the mirror (start, stop, its state, refreshed by htmx), settings, delete. A connection holds its
owner's credentials: only they (and superusers) see it; everyone else gets a 404.

New connections are tested before they are stored. One whose test fails (unreachable, TLS,
401...) is stored only when its owner, shown the failure, ticks "Save anyway": nothing is
half-created behind their back. A kubeconfig that fails its checks is never stored.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from playground.clusters.access import AccessReport, needs_of
from playground.clusters.connecting import create_connection, probe, retest
from playground.clusters.forms import ConnectionForm, SettingsForm
from playground.clusters.mirroring import MirroringError, start_mirroring, stop_mirroring
from playground.clusters.models import ClusterConnection, MirrorStatus
from playground.clusters.runtime import MIRROR_LEASES
from playground.clusters.tasks import ensure_mirror_running


def connections_of(user: object) -> QuerySet[ClusterConnection]:
    queryset = ClusterConnection.objects.select_related("owner", "workspace")
    return queryset if user.is_superuser else queryset.filter(owner=user)


def owned(request: HttpRequest, pk: int) -> ClusterConnection:
    connection = get_object_or_404(ClusterConnection, pk=pk)
    if not connection.can_access(request.user):
        raise Http404("No connection matches the given query.")
    return connection


@login_required
def connection_list(request: HttpRequest) -> HttpResponse:
    connections = [
        (connection, AccessReport.from_dict(connection.last_test))
        for connection in connections_of(request.user)
    ]
    return render(request, "clusters/list.html", {"connections": connections})


@login_required
def connection_new(request: HttpRequest) -> HttpResponse:
    form = ConnectionForm(request.POST or None, request.FILES or None, owner=request.user)
    report = None
    if request.method == "POST" and form.is_valid():
        report = probe(form.target)
        if report.reached or form.cleaned_data["save_anyway"]:
            connection = create_connection(
                request.user,
                form.cleaned_data["name"],
                form.target,
                report,
                namespaces=form.cleaned_data["namespaces"],
                label_selector=form.cleaned_data["label_selector"],
            )
            messages.success(request, f'Connection "{connection.name}" saved.')
            return redirect(connection)
    context = {"form": form, "report": report, "needs": needs_of(False, False)}
    status = 422 if form.errors or report else 200
    return render(request, "clusters/new.html", context, status=status)


@login_required
def connection_detail(request: HttpRequest, pk: int) -> HttpResponse:
    connection = owned(request, pk)
    report = AccessReport.from_dict(connection.last_test)
    return render(request, "clusters/detail.html", _detail_context(connection, report))


@login_required
@require_POST
def connection_test(request: HttpRequest, pk: int) -> HttpResponse:
    """Tests, stores the report, and redirects to the connection's page, which shows it: a
    reload there shows the report again instead of asking to send the form again."""
    connection = owned(request, pk)
    retest(connection)
    return redirect(connection)


@login_required
@require_POST
def mirror_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Makes the workspace that stands for the cluster and starts its mirror at once."""
    connection = owned(request, pk)
    try:
        workspace = start_mirroring(connection, request.POST.get("workspace_name", ""))
    except MirroringError as err:
        messages.error(request, str(err))
        return redirect(connection)
    ensure_mirror_running(connection)
    messages.success(
        request, f'Mirroring into workspace "{workspace.name}": its objects come from the cluster.'
    )
    return redirect(connection)


@login_required
@require_POST
def mirror_stop(request: HttpRequest, pk: int) -> HttpResponse:
    """Unlinks the workspace (it stays, editable); the running mirror ends within a second."""
    connection = owned(request, pk)
    try:
        workspace = stop_mirroring(connection)
    except MirroringError as err:
        messages.error(request, str(err))
        return redirect(connection)
    messages.success(
        request, f'Stopped mirroring: workspace "{workspace}" is an ordinary workspace now.'
    )
    return redirect(connection)


@login_required
def mirror_state(request: HttpRequest, pk: int) -> HttpResponse:
    """The mirror's section, which the page asks for again every few seconds."""
    connection = owned(request, pk)
    return render(request, "clusters/mirror.html", _mirror_context(connection))


@login_required
def connection_edit(request: HttpRequest, pk: int) -> HttpResponse:
    connection = owned(request, pk)
    form = SettingsForm(request.POST or None, request.FILES or None, instance=connection)
    if request.method == "POST" and form.is_valid():
        connection = form.save()
        if form.target is not None:
            retest(connection)
        ensure_mirror_running(connection)  # the running one, if any, ends for new settings
        messages.success(request, f'Connection "{connection.name}" updated.')
        return redirect(connection)
    report = AccessReport.from_dict(connection.last_test)
    # The confirmation lists what the switches being turned on need: delete pods only when
    # preemption is ticked too.
    preemption = bool(form.is_bound and form.cleaned_data.get("preemption"))
    context = {
        "connection": connection,
        "form": form,
        "denied": report.denied(needs_of(True, preemption)) if report else [],
    }
    return render(request, "clusters/edit.html", context, status=422 if form.errors else 200)


@login_required
def connection_delete(request: HttpRequest, pk: int) -> HttpResponse:
    connection = owned(request, pk)
    if request.method == "POST":
        name = connection.name
        connection.delete()
        messages.success(request, f'Connection "{name}" deleted.')
        return redirect("connections")
    return render(request, "clusters/delete.html", {"connection": connection})


def _detail_context(connection: ClusterConnection, report: AccessReport | None) -> dict:
    return {
        "connection": connection,
        "report": report,
        "needs": needs_of(connection.second_scheduler, connection.preemption),
        **_mirror_context(connection),
    }


def _mirror_context(connection: ClusterConnection) -> dict:
    """The mirror's last reported state; "starting" while no worker holds its lease (a state
    written by a worker that died is not shown as current)."""
    status = MirrorStatus.objects.filter(connection=connection).first()
    running = MIRROR_LEASES.is_live(connection.pk, timezone.now())
    state = status.state if status is not None and running else "starting"
    if state == MirrorStatus.STOPPED:
        state = "starting"
    if connection.workspace_id is None:
        state = MirrorStatus.STOPPED
    return {
        "connection": connection,
        "mirror": status,
        "mirror_state": state,
        "mirror_kinds": sorted((status.kinds or {}).items()) if status is not None else [],
    }
