"""Events: plain dicts describing what a move caused, with hidden parts kept apart.

An event is a JSON-ready dict with a ``type``. Anything hidden is held under the key
``"secret"``: ``{"to": [seats...], "data": {...}}``. ``redact(event, seat)`` returns the
event as ``seat`` may see it: the secret data merged in for the seats in ``to``, and
dropped for everybody else (``seat=None`` is a spectator). Every path that shows events
to a seat (API answers, session logs, streams) goes through ``redact``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Event = dict[str, Any]


def event(type_: str, **fields: Any) -> Event:
    return {"type": type_, **fields}


def secret_event(type_: str, to: Iterable[int], secret: dict[str, Any], **public: Any) -> Event:
    """An event whose ``secret`` fields only the seats in ``to`` may see."""
    return {"type": type_, **public, "secret": {"to": sorted(to), "data": secret}}


def redact(ev: Event, seat: int | None) -> Event:
    secret = ev.get("secret")
    if secret is None:
        return ev
    out = {k: v for k, v in ev.items() if k != "secret"}
    if seat is not None and seat in secret["to"]:
        out.update(secret["data"])
    return out


def redact_all(events: Iterable[Event], seat: int | None) -> list[Event]:
    return [redact(e, seat) for e in events]


def reveal_all(ev: Event) -> Event:
    """The event with every secret merged in (for trusted callers holding the state)."""
    secret = ev.get("secret")
    if secret is None:
        return ev
    out = {k: v for k, v in ev.items() if k != "secret"}
    out.update(secret["data"])
    return out
