"""Session events: what happens to a session's seats, beside the engine's game events.

They go into the session's event log like the engine's (numbered, in every answer, the
event log and the stream) and carry no hidden information: ``engine.redact`` passes an
event without a ``secret`` through unchanged. Each type is named here once, with its
fields; the spec's ``Event`` union has a member per type (tests/sessions/test_lobby.py
checks they agree). To add one, add it to ``SESSION_EVENTS``.
"""

from __future__ import annotations

from typing import Any

from engine import Event

#: Each session event type and the fields it carries (beside ``type``).
SESSION_EVENTS: dict[str, tuple[str, ...]] = {
    # A person took an open seat (``name``: the name it chose).
    "joined": ("seat", "name"),
    # The last open seat was taken: the cards are dealt (the game's events follow).
    "started": (),
    # A seat left: before the start it is open again (``replaced_by: "open"``), after
    # it a bot plays it (``replaced_by: "bot"``).
    "left": ("seat", "name", "replaced_by"),
    # The next game with the same seats was made: ``session_id`` names it.
    "rematch": ("session_id",),
}


def session_event(kind: str, **fields: Any) -> Event:
    """A session event of ``kind`` with exactly its fields."""
    want = SESSION_EVENTS[kind]
    if set(fields) != set(want):
        raise ValueError(f"a {kind!r} event has the fields {want}, not {sorted(fields)}")
    return {"type": kind, **fields}
