"""What a session's answers show, each built in one place and always redacted for the
caller: a seat (or a spectator: ``seat`` None) sees only what that seat may see.

- ``Views.seat_answer``: the session as a seat sees it (every read and move answer is
  built on it: its view, its legal moves, the clock, the seed commitment).
- ``public_seats``: the seats as everyone may see them (no token, no hash).
- ``seat_changed``: the answer to a join, a leave or a rematch.
- ``lobby_entry``: a session in the public lobby (no token, no code, no seed; whether
  its creator chose the seed, ``client_seeded``).
- ``redacted`` and ``event_row``: events as a seat may see them, numbered.
"""

from __future__ import annotations

from typing import Any

import orjson

import engine
from engine import Event, State
from service.fairness import commitment, seed_commitment

from .config import Env
from .models import Meta, Reply, Snapshot, wire_bot


class Views:
    """The answers that read the time (the clock's view): ``env.now``."""

    def __init__(self, env: Env) -> None:
        self.env = env

    def seat_answer(self, c: Snapshot, seat: int | None) -> dict[str, Any]:
        """The session as ``seat`` sees it (None: a spectator)."""
        state, sid = c.state, c.sid
        return {
            "session_id": sid,
            "variant": c.meta.variant,
            "status": c.status.value,
            "version": c.version,
            "last_event": c.seq,
            "seat": seat,
            "client_seeded": c.meta.client_seeded,
            "seed_commitment": (
                seed_commitment(sid, state) if state else waiting_commitment(sid, c.meta)
            ),
            "view": engine.view(state, seat) if state else None,
            "legal_moves": legal_moves(state, seat),
            "clock": self.clock(c),
        }

    def created(self, c: Snapshot, toks: list[str | None], events: list[Event]) -> dict[str, Any]:
        """The creator's answer: the first named person's seat, with every named
        person's token (an open seat has none yet) and the session's first events."""
        first = next((s.seat for s in c.meta.seats if s.bot is None and not s.open), None)
        body = self.seat_answer(c, first)
        body["seats"] = [
            {**seat, "token": t} for seat, t in zip(public_seats(c.meta), toks, strict=True)
        ]
        body["events"] = redacted(events, 1, first)
        return body

    def moved(self, c: Snapshot, seat: int, events: list[Event], first_seq: int) -> bytes:
        """The mover's answer: the new state seen by its seat, and the move's events."""
        body = self.seat_answer(c, seat)
        body["events"] = redacted(events, first_seq, seat)
        return orjson.dumps(body)

    def clock(self, c: Snapshot) -> dict[str, Any] | None:
        clock = c.meta.clock
        if clock is None:
            return None
        return clock.view(c.waiting_person(), self.env.now())


def seat_changed(c: Snapshot, seat: int, **extra: Any) -> Reply:
    """A seat change's answer (join, leave, rematch): the seat, ``extra`` (a token, the
    previous session) and the session's seats as everyone may see them."""
    body = {
        "session_id": c.sid,
        "seat": seat,
        **extra,
        "status": c.status.value,
        "version": c.version,
        "last_event": c.seq,
        "client_seeded": c.meta.client_seeded,
        "seats": public_seats(c.meta),
    }
    return Reply(orjson.dumps(body), c.version)


def legal_moves(state: State | None, seat: int | None) -> list[dict[str, Any]]:
    """``seat``'s legal moves (none for a spectator or before the deal)."""
    if seat is None or state is None:
        return []
    return [m.to_dict() for m in engine.legal_moves(state, seat)]


def public_seats(meta: Meta) -> list[dict[str, Any]]:
    """The seats as everyone may see them (no token, no hash)."""
    return [
        {"seat": s.seat, "name": s.name, "bot": wire_bot(s.bot), "open": s.open} for s in meta.seats
    ]


def lobby_entry(sid: str, meta: Meta) -> dict[str, Any]:
    """A lobby entry: nothing hidden (no token, no code, no seed)."""
    return {
        "session_id": sid,
        "variant": meta.variant,
        "client_seeded": meta.client_seeded,
        "created": int(meta.created * 1000),
        "seats": [{"seat": s.seat, "name": None if s.open else s.name, "bot": wire_bot(s.bot),
                   "open": s.open} for s in meta.seats],
        "open_seats": len(meta.open_seats),
    }  # fmt: skip


def waiting_commitment(sid: str, meta: Meta) -> dict[str, Any]:
    """The seed commitment of a session not dealt yet (its seed is chosen already)."""
    if meta.seed is None:
        raise RuntimeError(f"session {sid}: its meta keeps no seed")
    return {"game_id": sid, "sha256": commitment(sid, meta.seed), "seed": None}


def redacted(events: list[Event], first_seq: int, seat: int | None) -> list[Event]:
    """``events`` as ``seat`` may see them, numbered from ``first_seq``."""
    return [{"seq": first_seq + i, **engine.redact(e, seat)} for i, e in enumerate(events)]


def event_row(seq: int, raw: bytes, seat: int | None) -> Event:
    """A stored event (JSON) as ``seat`` may see it, numbered ``seq``."""
    return {"seq": seq, **engine.redact(orjson.loads(raw), seat)}
