"""Who may do what with a session: the seat a bearer token names, the spectators a
session admits (``SpectatorAccess``), and the invitation code a join needs.

Seat tokens, invitation and spectator codes are random secrets the service hands out
once; the meta keeps only their SHA-256 (``tokens.digest``), compared in constant time.
A seat's former tokens are kept the same way (``Seat.lost``): a token that stopped
working is told what became of its seat (``problems.seat_lost``), never another's.
"""

from __future__ import annotations

import hmac

from . import problems, tokens
from .events import rfc3339
from .models import LostToken, Meta, SpectatorAccess


def sent(token: str | None) -> str:
    """The bearer token sent (None: none sent: 401 ``missing_token``)."""
    if token is None:
        raise problems.missing_token("this needs a seat token: Authorization: Bearer <token>")
    return token


def holder_seat(meta: Meta, token: str | None) -> int:
    """The seat ``token`` (the bearer token; None: none sent, "": not a bearer token)
    holds: 401 ``missing_token`` or ``invalid_token`` otherwise."""
    token = sent(token)
    seat = tokens.seat_of(token, meta.hashes) if token else None
    if seat is None:
        raise not_a_seat_token(meta, token)
    return seat


def reader_seat(meta: Meta, token: str | None) -> int | None:
    """The seat ``token`` holds, or None for a spectator the session admits (anyone; with
    ``SpectatorAccess.CODE``, the bearer of the spectator code); 401 otherwise."""
    if token is None:
        if meta.spectators is SpectatorAccess.ANYONE:
            return None
        raise problems.missing_token(
            "this needs a seat token: Authorization: Bearer <token>"
            if meta.spectators is SpectatorAccess.SEATS
            else "this session is watched with its spectator code: Authorization: Bearer <code>"
        )
    seat = tokens.seat_of(token, meta.hashes) if token else None
    if seat is None:
        if token and is_spectator_code(meta, token):
            return None
        raise not_a_seat_token(meta, token)
    return seat


def token_seat(meta: Meta, token: str | None) -> int | None:
    """The seat ``token`` holds now, or None (no problem raised)."""
    return tokens.seat_of(token, meta.hashes) if token else None


def not_a_seat_token(meta: Meta, token: str) -> problems.SessionError:
    """The problem of a token that is no seat's now: ``seat_lost`` when it is a former
    token of a seat (its hash kept in ``Seat.lost``), else ``invalid_token``."""
    found = lost_token(meta, token)
    if found is None:
        return problems.invalid_token()
    seat, lost = found
    return problems.seat_lost(seat, rfc3339(lost.at), lost.reason.value, lost.replaced_by)


def lost_token(meta: Meta, token: str | None) -> tuple[int, LostToken] | None:
    """The seat ``token`` is a former token of and what became of it (``Seat.lost``), or
    None."""
    if token:
        want = tokens.digest(token)
        for seat in meta.seats:
            for lost in seat.lost:
                if hmac.compare_digest(want, lost.token_sha256):
                    return seat.seat, lost
    return None


def is_spectator_code(meta: Meta, code: str) -> bool:
    return (
        meta.spectators is SpectatorAccess.CODE
        and meta.spectator_sha256 is not None
        and hmac.compare_digest(tokens.digest(code), meta.spectator_sha256)
    )


def check_invitation(meta: Meta, code: str | None) -> None:
    """A join needs the invitation code, unless the session is public (403 otherwise)."""
    if code is None and meta.public:
        return
    if (
        code is None
        or meta.invite_sha256 is None
        or not hmac.compare_digest(tokens.digest(code), meta.invite_sha256)
    ):
        raise problems.invalid_invitation()


def hashed(code: str | None) -> str | None:
    """What the meta keeps of a code: its SHA-256 (None for none)."""
    return None if code is None else tokens.digest(code)
