"""Session events: what the service itself (not a move of the game) adds to a session's
event log, each declared once here.

``SESSION_EVENTS`` maps each type to its fields; the spec's ``Event`` union has one
member per entry (``tests/sessions/test_clocks.py`` checks they agree). A session event
holds no hidden information, so ``engine.redact`` passes it through unchanged and the
SSE stream sends it like any other event. To add one: an entry here, a builder below,
and its member in the spec's ``Event`` union.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine import Event

#: type -> the fields it carries besides ``type`` (and ``seq`` in the log).
SESSION_EVENTS: dict[str, frozenset[str]] = {
    "timeout": frozenset({"player", "deadline", "moves"}),
    "bot_took_seat": frozenset({"player", "reason"}),
}


def rfc3339(at: float) -> str:
    """Epoch seconds as an RFC 3339 UTC time with milliseconds (``...T12:00:00.000Z``)."""
    stamp = datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def timeout(player: int, deadline: float, moves: int) -> Event:
    """``player``'s time ran out at ``deadline``; the clock played ``moves`` forced moves
    for it (their events follow)."""
    return {"type": "timeout", "player": player, "deadline": rfc3339(deadline), "moves": moves}


def bot_took_seat(player: int, reason: str) -> Event:
    """A bot plays ``player``'s seat from now on (``reason``: ``timeouts``, the seat ran
    out of time ``max_timeouts`` times in a row)."""
    return {"type": "bot_took_seat", "player": player, "reason": reason}
