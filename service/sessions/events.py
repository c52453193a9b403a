"""Session events: what the service itself (not a move of the game) adds to a session's
event log, each declared once here.

They go into the session's event log like the engine's (numbered, in every answer, the
event log and the stream) and carry no hidden information: ``engine.redact`` passes an
event without a ``secret`` through unchanged. A seat is named ``player``, as in the
engine's events. ``SESSION_EVENTS`` names each type once,
with its fields; the spec's ``Event`` union has one member per entry
(tests/sessions/api/test_lobby.py and test_clocks.py check they agree). To add one: an entry
here and its member in the spec's ``Event`` union.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine import Event

#: Each session event type and the fields it carries (beside ``type``).
SESSION_EVENTS: dict[str, tuple[str, ...]] = {
    # A person took an open seat (``player``: the seat; ``name``: the name it chose).
    "joined": ("player", "name"),
    # The last open seat was taken: the cards are dealt (the game's events follow).
    "started": (),
    # A seat left: before the start it is open again (``replaced_by: "open"``), after
    # it a bot plays it (``replaced_by: "bot"``).
    "left": ("player", "name", "replaced_by"),
    # The next game with the same seats was made: ``session_id`` names it.
    "rematch": ("session_id",),
    # ``player``'s time ran out at ``deadline``; the clock played ``moves`` forced moves
    # for it (their events follow).
    "timeout": ("player", "deadline", "moves"),
    # A bot plays ``player``'s seat from now on (``reason``: ``timeouts``, the seat ran
    # out of time ``max_timeouts`` times in a row).
    "bot_took_seat": ("player", "reason"),
    # ``player``'s person took the seat back from the bot that took it after its
    # timeouts (``POST .../return``, or its rematch claim): the bot's moves stand.
    "seat_returned": ("player",),
}


def session_event(kind: str, **fields: Any) -> Event:
    """A session event of ``kind`` with exactly its fields."""
    want = SESSION_EVENTS[kind]
    if set(fields) != set(want):
        raise ValueError(f"a {kind!r} event has the fields {want}, not {sorted(fields)}")
    return {"type": kind, **fields}


def rfc3339(at: float) -> str:
    """Epoch seconds as an RFC 3339 UTC time with milliseconds (``...T12:00:00.000Z``)."""
    stamp = datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def timeout(player: int, deadline: float, moves: int) -> Event:
    return session_event("timeout", player=player, deadline=rfc3339(deadline), moves=moves)


def bot_took_seat(player: int, reason: str) -> Event:
    return session_event("bot_took_seat", player=player, reason=reason)
