"""``manage.py cluster add|list|test|remove|rotate|mirror|unmirror|import|record|replay``:
connections from the command line.

``add`` reads a kubeconfig file (``-`` for stdin), reads in the files it names (the
flattened form is stored), checks it as the page does and tests it before storing; one whose
test fails is stored only with ``--save-anyway``. Nothing here
prints a credential: only names, servers, contexts and the test's answers.

``import`` copies a snapshot of the cluster into a new workspace of the connection's owner;
``record NAME start|stop`` starts or stops a recording (the mirror's runtime writes it);
``replay ID`` plays a recording into a workspace inline, at its pace times ``--speed``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from playground.clusters import recording as recordings
from playground.clusters.access import AccessReport, needs_of
from playground.clusters.connecting import (
    Target,
    create_connection,
    probe,
    retest,
    target_from_text,
)
from playground.clusters.encryption import EncryptionKeyError, rotate
from playground.clusters.forms import FollowFields
from playground.clusters.kubeconfig import KubeconfigError, embed_files
from playground.clusters.mirroring import MirroringError, start_mirroring, stop_mirroring
from playground.clusters.models import ClusterConnection, Recording, Replay
from playground.clusters.replay import (
    SPEEDS,
    ReplayError,
    check_target,
    new_target,
    run_replay,
)
from playground.clusters.snapshot import ImportFailed, import_snapshot
from playground.workspaces.models import Workspace


class Command(BaseCommand):
    help = "Adds, lists, tests and removes connections to live clusters."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="test and store a connection")
        add.add_argument("name")
        add.add_argument("--owner", required=True, help="the user it belongs to")
        source = add.add_mutually_exclusive_group(required=True)
        source.add_argument("--kubeconfig", help="a kubeconfig file, - for stdin")
        source.add_argument(
            "--in-cluster", action="store_true", help="the service account of this pod"
        )
        add.add_argument("--context", default="", help="default: current-context")
        add.add_argument("--namespaces", default="", help="to follow, comma separated")
        add.add_argument("--selector", default="", help="label selector of what to follow")
        add.add_argument(
            "--save-anyway", action="store_true", help="store it even if the test fails"
        )
        actions.add_parser("list", help="every connection")
        mirror = actions.add_parser("mirror", help="start mirroring into a new workspace")
        mirror.add_argument("name")
        mirror.add_argument("--owner", default="", help="when several users use the name")
        mirror.add_argument("--workspace", default="", help="its name (default: the connection's)")
        for name, text in (
            ("test", "Test connection"),
            ("remove", "delete a connection"),
            ("unmirror", "stop mirroring (the workspace stays, editable)"),
        ):
            action = actions.add_parser(name, help=text)
            action.add_argument("name")
            action.add_argument("--owner", default="", help="when several users use the name")
        actions.add_parser("rotate", help="re-encrypt every kubeconfig with the current key")
        snapshot = actions.add_parser("import", help="copy the cluster into a new workspace")
        snapshot.add_argument("name", help="the connection")
        snapshot.add_argument("--owner", default="", help="when several users use the name")
        snapshot.add_argument("--workspace", default="", help="its name (default: dated)")
        record = actions.add_parser("record", help="start or stop recording the mirror")
        record.add_argument("name", help="the connection")
        record.add_argument("what", choices=["start", "stop"])
        record.add_argument("--owner", default="", help="when several users use the name")
        replay = actions.add_parser("replay", help="play a recording into a workspace")
        replay.add_argument("recording", type=int, help="the recording's id")
        replay.add_argument(
            "--workspace", default="", help="an ordinary workspace of the owner, or a new one"
        )
        replay.add_argument("--speed", default="1", choices=list(SPEEDS))

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        getattr(self, f"_{action}")(**options)

    def _add(self, *, name: str, owner: str, kubeconfig: str | None, in_cluster: bool,
             context: str, namespaces: str, selector: str, save_anyway: bool,
             **options: Any) -> None:  # fmt: skip
        user = self._user(owner)
        form = FollowFields()
        form.cleaned_data = {"namespaces": namespaces, "label_selector": selector}
        try:
            namespaces = form.clean_namespaces()
            selector = form.clean_label_selector()
        except Exception as err:
            raise CommandError(" ".join(getattr(err, "messages", [str(err)]))) from None
        if ClusterConnection.objects.filter(owner=user, name=name).exists():
            raise CommandError(f'{owner} already has a connection named "{name}"')
        try:
            target = Target(in_cluster=True) if in_cluster else self._target(kubeconfig, context)
        except KubeconfigError as err:
            raise CommandError(str(err)) from None
        report = probe(target)
        self._print_report(report, needs_of(False, False))
        if not report.reached and not save_anyway:
            raise CommandError("not saved: Test connection failed (--save-anyway stores it)")
        connection = create_connection(
            user, name, target, report, namespaces=namespaces, label_selector=selector
        )
        self.stdout.write(f'Connection "{connection.name}" saved (id {connection.pk}).')

    def _list(self, **options: Any) -> None:
        for connection in ClusterConnection.objects.select_related("owner", "workspace"):
            report = AccessReport.from_dict(connection.last_test)
            tested = (
                "never tested"
                if report is None
                else (f"failed: {report.problem}" if report.problem else report.version)
            )
            where = (
                "in-cluster"
                if connection.in_cluster
                else (f"{connection.server} context {connection.context}")
            )
            self.stdout.write(
                f"{connection.pk}\t{connection.name}\t{connection.owner.get_username()}\t"
                f"{where}\t{connection.workspace or '-'}\t{tested}"
            )

    def _test(self, *, name: str, owner: str, **options: Any) -> None:
        connection = self._connection(name, owner)
        report = retest(connection)
        self._print_report(report, needs_of(connection.second_scheduler, connection.preemption))
        if not report.reached:
            raise CommandError("Test connection failed")

    def _remove(self, *, name: str, owner: str, **options: Any) -> None:
        connection = self._connection(name, owner)
        connection.delete()
        self.stdout.write(f'Connection "{name}" removed.')

    def _mirror(self, *, name: str, owner: str, workspace: str, **options: Any) -> None:
        connection = self._connection(name, owner)
        try:
            mirrored = start_mirroring(connection, workspace)
        except MirroringError as err:
            raise CommandError(str(err)) from None
        self.stdout.write(
            f'Connection "{name}" mirrors into workspace "{mirrored.name}" ({mirrored.slug}); '
            "a worker's watchdog starts the mirror."
        )

    def _unmirror(self, *, name: str, owner: str, **options: Any) -> None:
        connection = self._connection(name, owner)
        try:
            workspace = stop_mirroring(connection)
        except MirroringError as err:
            raise CommandError(str(err)) from None
        self.stdout.write(f'Stopped mirroring: workspace "{workspace}" is an ordinary one now.')

    def _rotate(self, **options: Any) -> None:
        count = 0
        with transaction.atomic():
            for connection in ClusterConnection.objects.select_for_update().exclude(
                kubeconfig_encrypted=""
            ):
                try:
                    connection.kubeconfig_encrypted = rotate(connection.kubeconfig_encrypted)
                except EncryptionKeyError as err:
                    raise CommandError(f'connection "{connection.name}": {err}') from None
                connection.save(update_fields=["kubeconfig_encrypted"])
                count += 1
        self.stdout.write(f"{count} kubeconfig(s) re-encrypted with the current key.")

    def _import(self, *, name: str, owner: str, workspace: str, **options: Any) -> None:
        connection = self._connection(name, owner)
        try:
            made = import_snapshot(connection, connection.owner, workspace)
        except ImportFailed as err:
            raise CommandError(str(err)) from None
        count = made.cluster_objects.count()
        self.stdout.write(f'Imported {count} objects into workspace "{made.name}" ({made.slug}).')

    def _record(self, *, name: str, what: str, owner: str, **options: Any) -> None:
        connection = self._connection(name, owner)
        try:
            if what == "start":
                recording = recordings.start(connection)
                self.stdout.write(f"Recording {recording.pk} started: {recording.file}")
            else:
                recording = recordings.stop(connection)
                self.stdout.write(f"Recording {recording.pk} stopped.")
        except recordings.RecordingRefused as err:
            raise CommandError(str(err)) from None

    def _replay(self, *, recording: int, workspace: str, speed: str, **options: Any) -> None:
        found = Recording.objects.select_related("connection__owner").filter(pk=recording).first()
        if found is None:
            raise CommandError(f"no recording {recording}")
        if found.in_progress:
            raise CommandError(f"recording {recording} is still going on: stop it first")
        try:
            target = self._replay_target(found, workspace)
        except ReplayError as err:
            raise CommandError(str(err)) from None
        replay = Replay.objects.create(recording=found, workspace=target, speed=speed)
        self.stdout.write(f'Replaying recording {found.pk} into workspace "{target.name}"...')
        run_replay(replay)
        if replay.state == Replay.FAILED:
            raise CommandError(f"replay failed after {replay.applied} lines: {replay.error}")
        self.stdout.write(f"Replayed {replay.applied} lines.")

    def _replay_target(self, recording: Recording, name: str) -> Workspace:
        owner = recording.connection.owner
        existing = Workspace.objects.filter(owner=owner, name__iexact=name.strip()).first()
        if name and existing is not None:
            check_target(existing)
            return existing
        return new_target(recording, owner, name)

    def _target(self, path: str | None, context: str) -> Target:
        """The kubeconfig's target, with the files it names read from this machine (paths
        relative to the kubeconfig's folder; to the working directory for stdin)."""
        try:
            text = sys.stdin.read() if path == "-" else open(path or "").read()  # noqa: SIM115
        except OSError as err:
            raise CommandError(f"--kubeconfig: cannot read {path}: {err.strerror}") from None
        folder = os.getcwd() if path == "-" else os.path.dirname(os.path.abspath(path or ""))
        return target_from_text(embed_files(text, folder), context)

    def _user(self, username: str) -> Any:
        try:
            return get_user_model().objects.get_by_natural_key(username)
        except get_user_model().DoesNotExist:
            raise CommandError(f'--owner: no user "{username}"') from None

    def _connection(self, name: str, owner: str) -> ClusterConnection:
        connections = ClusterConnection.objects.filter(name=name)
        if owner:
            connections = connections.filter(owner=self._user(owner))
        found = list(connections[:2])
        if not found:
            raise CommandError(f'no connection named "{name}"')
        if len(found) > 1:
            raise CommandError(f'several users have a connection named "{name}": give --owner')
        return found[0]

    def _print_report(self, report: AccessReport, needs: tuple[str, ...]) -> None:
        if report.problem:
            self.stderr.write(f"Test connection: {report.problem}")
            return
        self.stdout.write(f"Server version {report.version}")
        for answer in report.answers:
            verdict = "allowed" if answer.allowed else "DENIED"
            used = "" if answer.needed_for in needs else " (off)"
            self.stdout.write(f"  {verdict:8} {answer.label}  [{answer.needed_for}{used}]")
