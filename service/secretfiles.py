"""Secrets from files: ``<NAME>_FILE`` names a file that holds the value of ``<NAME>``.

For the settings in ``SECRETS``. A Kubernetes Secret mounted as a volume (or a Docker
secret) gives such a file; the plain variable still works for simple set-ups. Read at
start. Setting both is an error (which one wins would be a guess), and so is a file that
cannot be read or is empty: a wrong path must not quietly fall back to no secret. Errors
name the variable and the path, never the value.

Standard library only: ``gunicorn_conf.py`` loads this file by path in the master.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: The settings that may come from a file.
SECRETS = ("REDIS_URL", "STATE_TOKEN_KEYS", "WEBHOOK_SECRET", "IDENTITY_ASSERTION_KEY")
SUFFIX = "_FILE"


class SecretFileError(ValueError):
    """A secret set twice, or a ``*_FILE`` that cannot be read or is empty."""


def read(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The value of ``name`` from the environment or from the file ``name_FILE`` names."""
    if name not in SECRETS:
        raise KeyError(f"{name} is not one of {SECRETS}")
    env = os.environ if environ is None else environ
    value = env.get(name, "").strip()
    path = env.get(name + SUFFIX, "").strip()
    if not path:
        return value or None
    if value:
        raise SecretFileError(f"both {name} and {name}{SUFFIX} are set: set one")
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise SecretFileError(f"{name}{SUFFIX}={path}: cannot read it ({reason})") from None
    if not text:
        raise SecretFileError(f"{name}{SUFFIX}={path} is empty")
    return text
