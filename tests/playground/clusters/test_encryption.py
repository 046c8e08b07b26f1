"""Credentials at rest: encrypted in the database, read back with the key, and a wrong or
missing key said clearly (never with the value)."""

from __future__ import annotations

import os
import stat

import pytest
from django.core.management import call_command
from django.db import connection as db

from playground.clusters.encryption import (
    KEY_ENV,
    KEY_FILE_ENV,
    EncryptionKeyError,
    decrypt,
    encrypt,
    generate_key,
)
from playground.clusters.models import ClusterConnection
from tests.playground.clusters.kubeconfigs import TOKEN, kubeconfig


@pytest.fixture
def stored(user):
    connection = ClusterConnection(name="prod", owner=user, context="test")
    connection.set_kubeconfig(kubeconfig())
    connection.save()
    return connection


def raw_row(pk: int) -> str:
    with db.cursor() as cursor:
        cursor.execute("SELECT * FROM clusters_clusterconnection WHERE id = %s", [pk])
        return repr(cursor.fetchone())


def test_the_database_row_holds_no_token_and_reading_it_back_gives_the_kubeconfig(stored):
    row = raw_row(stored.pk)
    assert stored.kubeconfig_encrypted in row
    assert TOKEN not in row
    assert "token" not in row
    fresh = ClusterConnection.objects.get(pk=stored.pk)
    assert fresh.kubeconfig_text() == kubeconfig()
    assert TOKEN not in repr(fresh) and TOKEN not in str(fresh)


def test_a_wrong_key_says_the_key_cannot_decrypt_it(stored, monkeypatch):
    monkeypatch.setenv(KEY_ENV, generate_key())
    with pytest.raises(EncryptionKeyError) as caught:
        ClusterConnection.objects.get(pk=stored.pk).kubeconfig_text()
    message = str(caught.value)
    assert message.startswith('kubeconfig of connection "prod": cannot be decrypted with the')
    assert KEY_ENV in message
    assert TOKEN not in message


def test_rotation_reads_with_the_old_key_listed_second_then_rewrites_with_the_new(
    stored, monkeypatch, encryption_key
):
    new = generate_key()
    monkeypatch.setenv(KEY_ENV, f"{new},{encryption_key}")
    assert ClusterConnection.objects.get(pk=stored.pk).kubeconfig_text() == kubeconfig()
    call_command("cluster", "rotate", stdout=open(os.devnull, "w"))  # noqa: SIM115
    monkeypatch.setenv(KEY_ENV, new)
    assert ClusterConnection.objects.get(pk=stored.pk).kubeconfig_text() == kubeconfig()


def test_keys_can_come_from_a_file(tmp_path, monkeypatch):
    key_file = tmp_path / "keys"
    key_file.write_text(generate_key() + "\n")
    monkeypatch.delenv(KEY_ENV)
    monkeypatch.setenv(KEY_FILE_ENV, str(key_file))
    assert decrypt(encrypt("hello")) == "hello"
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "missing"))
    with pytest.raises(EncryptionKeyError, match=r"cannot read .*missing"):
        encrypt("hello")


def test_the_embedded_mode_makes_a_private_key_file_on_first_use(tmp_path, monkeypatch, settings):
    monkeypatch.delenv(KEY_ENV)
    settings.DATABASE_URL = ""
    settings.ENCRYPTION_KEY_FILE = tmp_path / "var" / "encryption.key"
    token = encrypt("hello")
    assert stat.S_IMODE(settings.ENCRYPTION_KEY_FILE.stat().st_mode) == 0o600
    assert decrypt(token) == "hello"  # the same key is read again


def test_production_makes_no_key_and_says_which_variable_to_set(monkeypatch, settings):
    monkeypatch.delenv(KEY_ENV)
    settings.DATABASE_URL = "postgres://db/playground"
    with pytest.raises(EncryptionKeyError, match=f"set {KEY_ENV} or {KEY_FILE_ENV}"):
        encrypt("hello")


def test_a_malformed_key_is_named_as_the_problem(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "not-a-key")
    with pytest.raises(EncryptionKeyError, match=r"^encryption key: "):
        encrypt("hello")
