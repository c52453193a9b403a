"""A seat token kept for its ticket's holder, sealed with the ticket's secret: the store
keeps the token XORed with SHAKE-256 of the secret and the ticket id (a key stream used
for this one token: each ticket has its own 256-bit secret), and the service keeps only
the secret's SHA-256, so what the store holds opens only with the secret the holder
sends. Seat tokens elsewhere are kept as hashes alone; this one must be handed over
later, so it is kept, but never readable without its holder."""

from __future__ import annotations

import hashlib


def _stream(secret: str, ticket_id: str, size: int) -> bytes:
    return hashlib.shake_256(f"uno-match-token\n{ticket_id}\n{secret}".encode()).digest(size)


def seal(token: str, secret: str, ticket_id: str) -> str:
    raw = token.encode()
    return bytes(
        a ^ b for a, b in zip(raw, _stream(secret, ticket_id, len(raw)), strict=True)
    ).hex()


def unseal(sealed: str, secret: str, ticket_id: str) -> str:
    raw = bytes.fromhex(sealed)
    return bytes(
        a ^ b for a, b in zip(raw, _stream(secret, ticket_id, len(raw)), strict=True)
    ).decode()
