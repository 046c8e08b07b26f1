"""Credentials encrypted at rest: Fernet (AES-128-CBC + HMAC-SHA256) from ``cryptography``.

Where the keys come from, first match wins:

- ``PLAYGROUND_ENCRYPTION_KEY``: one or more Fernet keys, separated by commas;
- ``PLAYGROUND_SECRET_KEY_FILE``: a file holding one key per line;
- the embedded mode (no ``DATABASE_URL``) only: ``var/encryption.key``, created (mode 0600) on
  first use. Production refuses to invent a key: its processes may run on several machines,
  and each would make its own.

The first key encrypts; every key decrypts (MultiFernet), so a key is rotated by putting the
new one first and the old ones after it, then running ``manage.py cluster rotate``
(docs/live-clusters.md). The environment is read at each use, not at import, so a key changed
by the operator (or a test) is seen without a restart of the code that reads it.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings

KEY_ENV = "PLAYGROUND_ENCRYPTION_KEY"
KEY_FILE_ENV = "PLAYGROUND_SECRET_KEY_FILE"


class EncryptionKeyError(RuntimeError):
    """No usable key, or a stored value the keys cannot decrypt. The message names the cause,
    never the value."""


def encrypt(plaintext: str) -> str:
    """The Fernet token (ASCII) of the text, with the current (first) key."""
    return _fernet().encrypt(plaintext.encode()).decode("ascii")


def decrypt(token: str, what: str = "value", ttl: int | None = None) -> str:
    """The text of a token made by :func:`encrypt` with any configured key.

    ``what`` names the value in the error ("kubeconfig: cannot be decrypted ..."); ``ttl``
    (seconds) refuses older tokens, for values handed to a browser and back.
    """
    try:
        return _fernet().decrypt(token.encode("ascii"), ttl=ttl).decode()
    except (InvalidToken, UnicodeError, ValueError) as err:
        raise EncryptionKeyError(
            f"{what}: cannot be decrypted with the configured encryption key "
            f"(was it encrypted with another key? put that key after the current one in "
            f"{KEY_ENV} to read it, see docs/live-clusters.md)"
            + ("" if ttl is None else ", or it is older than allowed")
        ) from err


def rotate(token: str) -> str:
    """The token re-encrypted with the current key (its text unchanged)."""
    try:
        return _fernet().rotate(token.encode("ascii")).decode("ascii")
    except InvalidToken as err:
        raise EncryptionKeyError("cannot be decrypted with any configured encryption key") from err


def generate_key() -> str:
    return Fernet.generate_key().decode("ascii")


def _fernet() -> MultiFernet:
    keys = configured_keys()
    try:
        return MultiFernet([Fernet(key.encode("ascii")) for key in keys])
    except (ValueError, UnicodeError) as err:
        # Fernet's own message says the key must be 32 url-safe base64-encoded bytes; it never
        # contains the key.
        raise EncryptionKeyError(f"encryption key: {err}") from err


def configured_keys() -> list[str]:
    """The keys, current first (see the module)."""
    text = os.getenv(KEY_ENV, "")
    if text.strip():
        return [key.strip() for key in text.split(",") if key.strip()]
    path = os.getenv(KEY_FILE_ENV, "")
    if path:
        return _keys_in(Path(path), f"{KEY_FILE_ENV} ({path})")
    if settings.DATABASE_URL:
        raise EncryptionKeyError(
            f"encryption key: set {KEY_ENV} or {KEY_FILE_ENV} (production mode makes none; "
            f'make one with: python -c "from cryptography.fernet import Fernet; '
            f'print(Fernet.generate_key().decode())")'
        )
    return _keys_in(_embedded_key_file(), str(settings.ENCRYPTION_KEY_FILE))


def _keys_in(path: Path, source: str) -> list[str]:
    try:
        keys = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    except OSError as err:
        raise EncryptionKeyError(f"encryption key: cannot read {source}: {err.strerror}") from err
    if not keys:
        raise EncryptionKeyError(f"encryption key: {source} holds no key")
    return keys


def _embedded_key_file() -> Path:
    """``var/encryption.key``, created with a new key, readable by its owner only, if absent."""
    path = Path(settings.ENCRYPTION_KEY_FILE)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path  # another process made it first: use theirs
        with os.fdopen(descriptor, "w") as file:
            file.write(generate_key() + "\n")
    return path
