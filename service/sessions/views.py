"""What a session's answers show, each built in one place and always redacted for the
caller: a seat (or a spectator: ``seat`` None) sees only what that seat may see.

- ``Views.answer``: the session as a seat sees it, the one answer of every call about
  a seat (create, join, get, move, leave, rematch: the spec's ``SessionState``): its
  view, its legal moves, the clock, the seed commitment, the seats with presence, the
  events the call caused (or a read asked for), and what the call adds (a token, the
  codes, the previous session).
- ``seat_rows``: the seats as everyone may see them (no token, no hash).
- ``lobby_entry``: a session in the public lobby (no token, no code, no seed; whether
  its creator chose the seed, ``client_seeded``), with its ``pace``.
- ``redacted`` and ``event_row``: events as a seat may see them, numbered.

Every time is RFC 3339 UTC with milliseconds (``events.rfc3339``); every seat has a
name (an open seat its default, ``Player N``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

import engine
from engine import Event, State
from service.fairness import commitment, seed_commitment

from .config import Env
from .events import rfc3339
from .models import Meta, Snapshot, wire_bot
from .presence import Presence


class Views:
    """The answers that read the time (the clock's view: ``env.now``) and presence."""

    def __init__(self, env: Env, presence: Presence) -> None:
        self.env = env
        self.presence = presence

    def answer(
        self,
        c: Snapshot,
        seat: int | None,
        viewer: int | None,
        events: list[Event],
        tokens: Sequence[str | None] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """The session as ``viewer`` sees it (None: a spectator), answered to ``seat``
        (the caller's seat; the leaver's after a leave, which sees what a spectator
        sees), with ``events`` (numbered and redacted already), each seat's token when
        ``tokens`` are given (the creator's answer) and ``extra`` (a token, codes)."""
        state, sid = c.state, c.sid
        seen = self.presence.last_seen(sid, c.meta)
        connected = self.presence.connected(sid, c.meta)
        body = {
            "session_id": sid,
            "variant": c.meta.variant,
            "status": c.status.value,
            "version": c.version,
            "etag": c.etag,
            "last_event": c.seq,
            "seat": seat,
            "client_seeded": c.meta.client_seeded,
            "seed_commitment": (
                seed_commitment(sid, state, c.meta.seed_nonce)
                if state
                else waiting_commitment(sid, c.meta)
            ),
            "view": engine.view(state, viewer) if state else None,
            "legal_moves": legal_moves(state, viewer),
            "clock": self.clock(c),
            "seats": seat_rows(c.meta, connected, tokens, seen),
            "events": events,
            **extra,
        }
        return body

    def moved(self, c: Snapshot, seat: int, events: list[Event], first_seq: int) -> bytes:
        """The mover's answer: the new state seen by its seat, and the move's events."""
        return orjson.dumps(self.answer(c, seat, seat, redacted(events, first_seq, seat)))

    def clock(self, c: Snapshot) -> dict[str, Any] | None:
        clock = c.meta.clock
        if clock is None:
            return None
        return clock.view(c.waiting_person(), self.env.now())


def legal_moves(state: State | None, seat: int | None) -> list[dict[str, Any]]:
    """``seat``'s legal moves (none for a spectator or before the deal)."""
    if seat is None or state is None:
        return []
    return [m.to_dict() for m in engine.legal_moves(state, seat)]


def seat_rows(
    meta: Meta,
    connected: frozenset[int],
    tokens: Sequence[str | None] | None = None,
    seen: dict[int, int] | None = None,
) -> list[dict[str, Any]]:
    """The seats as everyone may see them (no token, no hash), each with ``connected``
    and ``last_seen`` (RFC 3339, from ``seen``: seat -> epoch ms; null for a seat never
    seen, a bot or an open seat); with each seat's token when ``tokens`` are given (the
    creator's answer, once)."""
    seen = seen or {}
    rows: list[dict[str, Any]] = [
        {"seat": s.seat, "name": s.name, "bot": wire_bot(s.bot), "open": s.open,
         "connected": s.seat in connected,
         "last_seen": rfc3339(seen[s.seat] / 1000) if s.person and s.seat in seen else None}
        for s in meta.seats
    ]  # fmt: skip
    if tokens is not None:
        for row, token in zip(rows, tokens, strict=True):
            row["token"] = token
    return rows


def lobby_entry(sid: str, meta: Meta) -> dict[str, Any]:
    """A lobby entry: nothing hidden (no token, no code, no seed)."""
    return {
        "session_id": sid,
        "variant": meta.variant,
        "client_seeded": meta.client_seeded,
        "created_at": rfc3339(meta.created),
        "seats": [{"seat": s.seat, "name": s.name, "bot": wire_bot(s.bot), "open": s.open}
                  for s in meta.seats],
        "open_seats": len(meta.open_seats),
        "pace": pace(meta),
    }  # fmt: skip


#: A turn of this long or longer is correspondence play (days, not minutes).
CORRESPONDENCE_SECONDS = 3600


def pace(meta: Meta) -> dict[str, Any]:
    """The game's pace, for the lobby: ``untimed`` (no clock), ``live`` (turns under an
    hour) or ``correspondence``, and the turn's seconds (null without a clock)."""
    clock = meta.clock
    if clock is None:
        return {"kind": "untimed", "turn_seconds": None}
    kind = "correspondence" if clock.turn_seconds >= CORRESPONDENCE_SECONDS else "live"
    return {"kind": kind, "turn_seconds": int(clock.turn_seconds)}


def waiting_commitment(sid: str, meta: Meta) -> dict[str, Any]:
    """The seed commitment of a session not dealt yet (its seed is chosen already)."""
    if meta.seed is None:
        raise RuntimeError(f"session {sid}: its meta keeps no seed")
    sha256 = commitment(sid, meta.seed, meta.seed_nonce)
    return {"game_id": sid, "sha256": sha256, "seed": None, "nonce": None}


def redacted(events: list[Event], first_seq: int, seat: int | None) -> list[Event]:
    """``events`` as ``seat`` may see them, numbered from ``first_seq``."""
    return [{"seq": first_seq + i, **engine.redact(e, seat)} for i, e in enumerate(events)]


def event_row(seq: int, raw: bytes, seat: int | None) -> Event:
    """A stored event (JSON) as ``seat`` may see it, numbered ``seq``."""
    return {"seq": seq, **engine.redact(orjson.loads(raw), seat)}
