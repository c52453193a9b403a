"""Seat tokens and codes: random bearer secrets, kept only as SHA-256 hashes in the
session meta (the API reads them from ``Authorization: Bearer``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(32)


def derived(token: str, purpose: str) -> str:
    """A token only the holder of ``token`` can know, the same each time for ``purpose``
    (HMAC-SHA-256 keyed with ``token``; as long and as random as ``new_token``'s)."""
    mac = hmac.new(token.encode(), purpose.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, hashes: list[str | None]) -> int | None:
    """The seat whose hash matches ``token`` (every seat compared, in constant time)."""
    want = digest(token)
    found = None
    for seat, h in enumerate(hashes):
        if h is not None and hmac.compare_digest(want, h):
            found = seat
    return found
