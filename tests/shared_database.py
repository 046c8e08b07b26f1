"""The test database, reached from another process (a server or worker the test starts).

Such tests use committed transactions (``transactional_db``): the other process sees only
what is committed. On SQLite the test database is a file for that reason (see settings).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote


def environment_for(database: dict[str, Any]) -> dict[str, str]:
    """This process's environment, with the settings pointed at ``database`` (a DATABASES
    entry, such as ``connection.settings_dict`` once the test database is set up)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(database_env(database))
    return env


def database_env(database: dict[str, Any]) -> dict[str, str]:
    """The variables that make the settings (``playground/settings.py``) use ``database``."""
    if database["ENGINE"] == "django.db.backends.sqlite3":
        return {"SQLITE_PATH": str(database["NAME"])}
    if database["ENGINE"] == "django.db.backends.postgresql":
        credentials = quote(database["USER"], safe="")
        if database["PASSWORD"]:
            credentials += ":" + quote(database["PASSWORD"], safe="")
        address = database["HOST"] + (f":{database['PORT']}" if database["PORT"] else "")
        return {"DATABASE_URL": f"postgres://{credentials}@{address}/{database['NAME']}"}
    raise ValueError(f"no environment reaches a database of engine {database['ENGINE']}")
