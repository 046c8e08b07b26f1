"""``manage.py create_demo``: an administrator and the demo workspace, whatever exists already.

Run by the one-command start-up, so it must be safe to run every time: an existing user keeps
its password unless ``--password`` gives another one, and an existing demo workspace is left as
it is. The password is set only when it differs: setting it again, even to the same text, makes
a new hash (a new salt), and Django logs out every session hashed with the old one.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from playground.workspaces.models import ClusterObject
from playground.workspaces.services import demo_workspace


class Command(BaseCommand):
    help = "Creates an administrator (if needed) and the demo workspace (if needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin", help="default: admin")
        parser.add_argument(
            "--password",
            default="",
            help="sets the password (default: a random one for a new user, unchanged otherwise)",
        )

    def handle(self, *args: Any, username: str, password: str, **options: Any) -> None:
        user, login = self._administrator(username, password)
        workspace = demo_workspace(user)
        objects = ClusterObject.objects.filter(workspace=workspace)
        self.stdout.write(
            f'Demo workspace "{workspace.name}" ({workspace.get_absolute_url()}): '
            f"{objects.filter(kind='Node').count()} nodes, "
            f"{objects.filter(kind='Pod').count()} pods."
        )
        self.stdout.write(login)

    def _administrator(self, username: str, password: str) -> tuple[Any, str]:
        """The user and how to log in as them."""
        users = get_user_model()
        user = users.objects.filter(username=username).first()
        if user is None:
            password = password or secrets.token_urlsafe(12)
            user = users.objects.create_superuser(username, password=password)
            return user, f"Log in as {username} with password {password} (new administrator)."
        if password and not user.check_password(password):
            user.set_password(password)
            user.save(update_fields=["password"])
            return user, f"Log in as {username} with password {password} (password reset)."
        if password:
            return user, f"Log in as {username} with password {password} (unchanged)."
        return user, f"Log in as {username} (existing user, password unchanged)."
