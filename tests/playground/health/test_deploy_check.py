"""Production hardening: ``manage.py check --deploy`` with the production settings warns about
HSTS, the SSL redirect and the two cookies until PLAYGROUND_HTTPS=true turns them on; with it
on, plain HTTP is redirected to HTTPS, except the probes kubelet sends over plain HTTP."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WARNINGS = ("security.W004", "security.W008", "security.W012", "security.W016")


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``manage.py`` in a fresh process with the production settings and ``env``."""
    production = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "playground.example.com",
        **env,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=production,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_warns_four_times_without_https():
    result = manage("check", "--deploy", "--fail-level", "WARNING", PLAYGROUND_HTTPS="false")
    assert result.returncode == 1
    for warning in WARNINGS:
        assert warning in result.stderr
    assert "identified 4 issues" in result.stderr


def test_check_deploy_is_clean_with_https():
    result = manage("check", "--deploy", "--fail-level", "WARNING", PLAYGROUND_HTTPS="true")
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


REQUESTS = """
from django.test import Client
client = Client(HTTP_HOST="10.244.1.7:8000")
for path in ("/livez", "/healthz?verbose", "/readyz/nope"):
    print(path, client.get(path).status_code)
site = Client(HTTP_HOST="playground.example.com")
page = site.get("/w/")
print("/w/", page.status_code, page["Location"])
proxied = site.get("/livez", HTTP_X_FORWARDED_PROTO="https")
print("hsts", proxied.get("Strict-Transport-Security", "none"))
"""


def test_https_redirects_pages_but_not_the_probes():
    # A web process apart from the workers: its /healthz reads no database (none is migrated).
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        REQUESTS,
        PLAYGROUND_HTTPS="true",
        PLAYGROUND_TRUST_X_FORWARDED_PROTO="true",
        EMBEDDED_WORKER="false",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["/livez 200", "/healthz?verbose 200", "/readyz/nope 404"]
    assert lines[3] == "/w/ 301 https://playground.example.com/w/"
    assert lines[4] == "hsts max-age=31536000; includeSubDomains; preload"
