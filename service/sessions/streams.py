"""A session's event stream: the events above a number, then each commit's as it comes,
redacted for the caller's seat, framed as Server-Sent Events.

A stream subscribes before it reads the log (so nothing committed in between is
missed), reads the log page by page, then waits on the subscription: for a commit, up
to one heartbeat interval (an idle wait yields a keep-alive), or, in a clocked session,
until the clock's next deadline. After a commit or a deadline a clocked session is
settled, so the stream sees a timeout when it falls due; while the bots are owed a move
(every seat a bot, their last chain stopped at ``max_bot_moves``) each idle wait settles
it too, one chain a heartbeat, so a stream sees such a game go on to its end. It ends at
its deadline, when the session is gone or when the store fails.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import Literal

import orjson

from engine import Event

from . import access
from .config import Env
from .presence import Presence
from .problems import SessionProblem
from .repo import Repository
from .store import StoreUnavailable, Subscription
from .timekeeper import Timekeeper
from .views import event_row

#: The most events one read of the log returns (a page of ``GET .../events`` too).
MAX_EVENTS_PAGE = 1000

log = logging.getLogger("service.sessions")

#: What a stream yields: ``(seq, redacted event)``, or None after an idle heartbeat.
Item = tuple[int, Event] | None


class Streams:
    def __init__(
        self, env: Env, repo: Repository, timekeeper: Timekeeper, presence: Presence
    ) -> None:
        self.env = env
        self.repo = repo
        self.store = repo.store
        self.timekeeper = timekeeper
        self.presence = presence

    def open(
        self, sid: str, token: str | None, after: int, until: float
    ) -> tuple[int | None, Iterator[Item]]:
        """The caller's seat and an iterator of ``(seq, redacted event)`` from ``after``
        on, yielding ``None`` after each idle heartbeat interval. It ends at ``until``
        (``time.monotonic()``), when the session is gone or when the store fails."""
        c = self.repo.load(sid)[0]
        c = self.timekeeper.settle(c, caller=access.token_seat(c.meta, token))
        seat = access.reader_seat(c.meta, token)
        sub = self.store.subscribe(sid)
        clocked = c.meta.clock is not None
        return seat, self.follow(
            sid, seat, sub, after, until, clocked, self.timekeeper.next_deadline(c),
            c.bot_to_move(),
        )  # fmt: skip

    def follow(
        self,
        sid: str,
        seat: int | None,
        sub: Subscription,
        after: int,
        until: float,
        clocked: bool = False,
        deadline: float | None = None,
        owed: bool = False,
    ) -> Iterator[Item]:
        """``open``'s iterator: the events above ``after`` page by page, a wait on ``sub``
        when the log is read to its end, ``None`` after each idle wait. A ``clocked``
        session is settled after a commit or at its next ``deadline``; one whose bots are
        ``owed`` a move after each idle wait. ``sub`` is closed when it ends."""
        last = after
        try:
            with sub:
                while True:
                    self.presence.keep(self.store, sid, seat)
                    rows = self.store.events(sid, last, MAX_EVENTS_PAGE)
                    for seq, ev in rows:
                        last = seq
                        yield seq, event_row(seq, ev, seat)
                    if len(rows) == MAX_EVENTS_PAGE:
                        continue  # more are waiting
                    woke = self.wait(sid, sub, until, deadline)
                    if woke == "end":
                        return
                    if woke == "idle":
                        yield None
                    if (woke != "idle" and clocked) or (woke == "idle" and owed):
                        # A commit or a deadline: play what the clock owes; an idle
                        # wait while bots are owed a move: their next chain.
                        c = self.timekeeper.settle(self.repo.load(sid)[0])
                        deadline, owed = self.timekeeper.next_deadline(c), c.bot_to_move()
        except StoreUnavailable as e:
            log.error("session store unavailable, ending the stream: %s", e)
            return
        except SessionProblem:  # the session is gone (settling it found it missing)
            return

    def wait(
        self, sid: str, sub: Subscription, until: float, deadline: float | None = None
    ) -> Literal["changed", "idle", "deadline", "end"]:
        """Wait for a commit up to one heartbeat interval or the clock's ``deadline``:
        ``changed``; ``deadline`` when that came first; ``idle`` when nothing came (a
        heartbeat is due); ``end`` at ``until`` or when the session is gone."""
        left = until - time.monotonic()
        if left <= 0:
            return "end"
        wait = min(self.env.config.heartbeat_seconds, left)
        due = deadline - self.env.now() if deadline is not None else None
        if due is not None and due <= wait:
            if due <= 0 or not sub.wait(due):
                return "deadline"
            return "changed"
        if sub.wait(wait):
            return "changed"
        if self.store.load(sid) is None:
            return "end"
        return "idle"


def sse(items: Iterable[Item], retry_ms: int, max_events: int = 0) -> Iterator[bytes]:
    """A stream's items as Server-Sent Events: ``retry:`` first, then ``id: <seq>``,
    ``event: <type>``, ``data: <json>`` per event and a comment line per heartbeat; at
    most ``max_events`` events (0: no limit). Closes ``items`` when it ends."""
    sent = 0
    yield f"retry: {retry_ms}\n\n".encode()
    try:
        for item in items:
            if item is None:
                yield b": keep-alive\n\n"
                continue
            seq, ev = item
            yield f"id: {seq}\nevent: {ev['type']}\ndata: ".encode() + orjson.dumps(ev) + b"\n\n"
            sent += 1
            if max_events and sent >= max_events:
                return
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
