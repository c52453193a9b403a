"""Seat tokens: random bearer secrets, kept only as SHA-256 hashes in the session meta."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from werkzeug.datastructures import Authorization


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (werkzeug parses it):
    None without the header, "" when it is not a bearer token."""
    if header is None:
        return None
    auth = Authorization.from_header(header)
    if auth is None or auth.type != "bearer" or not auth.token:
        return ""
    return auth.token


def seat_of(token: str, hashes: list[str | None]) -> int | None:
    """The seat whose hash matches ``token`` (every seat compared, in constant time)."""
    want = digest(token)
    found = None
    for seat, h in enumerate(hashes):
        if h is not None and hmac.compare_digest(want, h):
            found = seat
    return found
